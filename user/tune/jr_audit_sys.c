// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_sys.c - the audit's files, read under its root directory.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune/jr_audit.h"

/*
 * jr_audit_file - the file at root + path into buf, without its trailing
 * newline; 0 or -errno.
 */
int jr_audit_file(const struct jr_audit *a, const char *path, char *buf,
		  size_t len)
{
	char full[4096];
	ssize_t n;
	int fd;

	snprintf(full, sizeof(full), "%s%s", a->root, path);
	buf[0] = '\0';
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		return -EIO;
	}
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

/*
 * jr_audit_has_word - whether word is an entry of list, whose entries are
 * separated by spaces or commas (a flags line, a list of names).
 */
bool jr_audit_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while (n && (p = strstr(p, word))) {
		if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
			return true;
		p += n;
	}
	return false;
}

/* jr_audit_long - a file holding one number; -1 when it cannot be read. */
long jr_audit_long(const struct jr_audit *a, const char *path)
{
	char buf[64], *end;
	long v;

	if (jr_audit_file(a, path, buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

/*
 * jr_audit_cpulist - the CPUs of a list as sysfs and the boot line write
 * it ("1-3,5", and the kernel's "N", "all" and "0-15:2/4"), skipping
 * words such as isolcpus' flags ("managed_irq", "domain").  An empty
 * list is no CPU.  0, or -EINVAL.
 */
int jr_audit_cpulist(const char *text, unsigned char *set)
{
	char clean[512] = "", *tok, *save = NULL, copy[512];
	struct jr_err e;
	size_t n = 0;

	memset(set, 0, JR_MAX_CPUS);
	snprintf(copy, sizeof(copy), "%s", text);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		/* a region starts with a CPU, the last one (N), or all */
		if (!isdigit((unsigned char)tok[0]) && tok[0] != 'N' &&
		    strncmp(tok, "all", 3))
			continue;
		n += snprintf(clean + n, sizeof(clean) - n, "%s%s",
			      n ? "," : "", tok);
		if (n >= sizeof(clean))
			return -EINVAL;
	}
	return n ? jr_parse_cpus(clean, set, &e) : 0;
}
