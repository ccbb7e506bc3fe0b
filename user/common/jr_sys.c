// SPDX-License-Identifier: GPL-2.0
/*
 * jr_sys.c - small dealings with the machine: files, pinning, ready files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jr_parse.h"
#include "common/jr_safe.h"
#include "common/jr_sys.h"

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

/*
 * jr_stat_parse - the comm (between the first '(' and the last ')', since
 * a comm may hold either) and the flags (field 9) of a /proc/PID/stat
 * line.  0, or -EINVAL for a line that is not one.
 */
int jr_stat_parse(const char *stat, char *comm, size_t len,
		  unsigned long *flags)
{
	const char *p = strchr(stat, '('), *l = strrchr(stat, ')');
	int field;

	if (!p || !l || l < p)
		return -EINVAL;
	snprintf(comm, len, "%.*s", (int)(l - p - 1), p + 1);
	for (field = 3, p = l + 1; *p && field < 9; field++)
		p = strchr(p + 1, ' ') ?: p + strlen(p);
	*flags = strtoul(p, NULL, 10);
	return 0;
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

/* jr_ready_aside - the name the ready file is written under first */
static void jr_ready_aside(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "%s.%d.tmp", path, (int)getpid());
}

/*
 * jr_ready_clear - remove a ready file left by an earlier run, and make
 * sure that it can be made, before any sampling starts.  Its directory
 * must be trusted, as every output's is, and what stands at its name must
 * be a regular file of ours: nothing else is removed.  The probe is the
 * aside name jr_ready() writes to: a script watching for path must never
 * see it before jitread is ready.  0, or -errno with e.
 */
int jr_ready_clear(const char *path, struct jr_err *e)
{
	struct stat st;
	char tmp[4096];
	int fd;

	if (!path)
		return 0;
	if (jr_safe_parent(path, e))
		return -EPERM;
	if (!lstat(path, &st) &&
	    (!S_ISREG(st.st_mode) || st.st_uid != geteuid()))
		return jr_fail(e, -EPERM,
			       "%s: refused: not a regular file of ours", path);
	if (unlink(path) && errno != ENOENT)
		return jr_fail(e, -errno, "%s: %s", path, strerror(errno));
	jr_ready_aside(tmp, sizeof(tmp), path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	if (fd < 0)
		return jr_fail(e, -errno, "%s: %s", tmp, strerror(errno));
	close(fd);
	if (unlink(tmp))
		return jr_fail(e, -errno, "%s: %s", tmp, strerror(errno));
	return 0;
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
	int fd;

	if (!path || done)
		return;
	done = true;
	jr_ready_aside(tmp, sizeof(tmp), path);
	/* a new file: never through a link someone placed at that name */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) ||
	    rename(tmp, path)) {
		fprintf(stderr, "jitread: --ready-file %s: %s\n", path,
			strerror(errno));
		if (fd >= 0 && !f)
			close(fd);
	}
}

/*
 * jr_read_cpulist - a cpulist file such as jitmod's cpus parameter into
 * set; text keeps the file's line, for the caller's messages.
 */
int jr_read_cpulist(const char *path, unsigned char *set, char *text,
		    size_t len)
{
	struct jr_err e;
	int ret = jr_read_line(path, text, len);

	if (ret)
		return ret;
	return jr_parse_cpus(text, set, &e);
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
	int cpu;

	if (jr_read_cpulist(path, have, text, len))
		return -1;
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
		if (want[cpu] && !have[cpu])
			return cpu;
	return -1;
}

/*
 * jr_read_file - the whole of a regular file of at most max bytes, NUL
 * terminated, in memory the caller frees; *len gets its size.  NULL with
 * e saying why.
 */
char *jr_read_file(const char *path, size_t max, size_t *len, struct jr_err *e)
{
	struct stat st;
	size_t got = 0;
	ssize_t n = 0;
	char *text;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		jr_fail(e, -errno, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		close(fd);
		jr_fail(e, -EINVAL, "not a regular file of at most %zu MiB",
			max >> 20);
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		jr_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, text + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	if (n < 0) {
		jr_fail(e, -errno, "%s", strerror(errno));
		free(text);
		text = NULL;
	} else {
		text[got] = '\0';
		*len = got;
	}
	close(fd);
	return text;
}

/* jr_own_thread - tid is a thread of this process (it exists now). */
bool jr_own_thread(int tid)
{
	char path[64];

	if (tid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	return !access(path, F_OK);
}
