// SPDX-License-Identifier: GPL-2.0
/*
 * jr_sysinfo.c - the machine's description for reports: kernel, command
 * line, CPU model, TSC rate and jitmod's parameters as found.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/jr_sys.h"
#include "kernel/jr_kparams.h"
#include "kernel/jr_sysinfo.h"

/* jr_sysinfo_fill - kernel, cmdline, CPU model, TSC and module params. */
void jr_sysinfo_fill(struct jr_sysinfo *s, int argc, char **argv)
{
	struct utsname u;
	char line[256], val[128];
	FILE *f;
	DIR *d;
	struct dirent *e;
	size_t off = 0;
	int i;

	memset(s, 0, sizeof(*s));
	if (!uname(&u))
		snprintf(s->kernel, sizeof(s->kernel), "%s", u.release);
	jr_read_line("/proc/cmdline", s->cmdline, sizeof(s->cmdline));
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(s->cpu_model, sizeof(s->cpu_model), "%s",
				 colon + 2);
			s->cpu_model[strcspn(s->cpu_model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	if (!jr_read_line(JR_PARAMS_DIR "/tsc_khz", val, sizeof(val)))
		sscanf(val, "%" SCNu64, &s->tsc_khz);
	d = opendir(JR_PARAMS_DIR);
	while (d && (e = readdir(d))) {
		char path[300];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), JR_PARAMS_DIR "/%s", e->d_name);
		if (jr_read_line(path, val, sizeof(val)))
			continue;
		off += snprintf(s->params + off, sizeof(s->params) - off,
				"%s%s=%s", off ? " " : "", e->d_name, val);
		if (off >= sizeof(s->params))
			break;
	}
	if (d)
		closedir(d);
	for (i = 0, off = 0; i < argc && off < sizeof(s->argv); i++)
		off += snprintf(s->argv + off, sizeof(s->argv) - off, "%s%s",
				i ? " " : "", argv[i]);
}
