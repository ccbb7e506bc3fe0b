// SPDX-License-Identifier: GPL-2.0
/*
 * jr_sys.c - what jitread knows about the machine and about jitmod.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jr_cli.h"
#include "jr_sys.h"

/* jr_read_line - the first line of a file, without its newline. */
int jr_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int jr_write_param(const char *name, unsigned long long v)
{
	char path[128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), JR_PARAMS_DIR "/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%llu\n", v) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/*
 * jr_cpus_outside - the first CPU in want that the cpulist file at path
 * leaves out, or -1 (also when the file cannot be read or parsed: nothing
 * to check against).  text gets the file's list, for the caller's message.
 */
int jr_cpus_outside(const unsigned char *want, const char *path, char *text,
		    size_t len)
{
	unsigned char have[JR_MAX_CPUS];
	char err[128];
	int cpu;

	if (jr_read_line(path, text, len) ||
	    jr_parse_cpus(text, have, err, sizeof(err)))
		return -1;
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
		if (want[cpu] && !have[cpu])
			return cpu;
	return -1;
}

/*
 * jr_pin_self - name the calling thread "<name>/<cpu>" (as top, ps and the
 * attribution tables show it), bind it to cpu, SCHED_FIFO if prio > 0.
 */
int jr_pin_self(const char *name, int cpu, int fifo_prio)
{
	char comm[16];
	cpu_set_t set;

	snprintf(comm, sizeof(comm), "%s/%d", name, cpu);
	pthread_setname_np(pthread_self(), comm);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	if (fifo_prio) {
		struct sched_param sp = { .sched_priority = fifo_prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			return -errno;
	}
	return 0;
}

/*
 * jr_ready_clear - remove a ready file left by an earlier run, and make
 * sure that the file can be created, before any sampling starts.
 */
int jr_ready_clear(const char *path)
{
	int fd;

	if (!path)
		return 0;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return unlink(path) ? -errno : 0;
}

/*
 * jr_ready - create the --ready-file, holding our pid, the first time
 * sampling begins; a script waits for it instead of guessing a delay.  It
 * is written aside and renamed, so whoever sees the file sees the pid.
 */
void jr_ready(const char *path)
{
	static bool done;
	char tmp[4096];
	FILE *f;

	if (!path || done)
		return;
	done = true;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) ||
	    rename(tmp, path))
		fprintf(stderr, "jitread: --ready-file %s: %s\n", path,
			strerror(errno));
}

bool jr_module_loaded(void)
{
	return access(JR_PARAMS_DIR, F_OK) == 0;
}

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
