// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ucount.c - the sampler thread's own counters, read before and after
 * its loop: getrusage(RUSAGE_THREAD) for page faults and context switches,
 * a software perf event for migrations (getrusage has none).  The perf
 * event counts in kernel context, so it needs perf_event_paranoid <= 1 or
 * CAP_PERFMON; without it migrations are not counted, and the report says
 * so rather than printing 0.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "usamp/jr_ucount.h"

/* jr_ucount_open - a migrations counter for the calling thread, or -1 */
int jr_ucount_open(void)
{
	struct perf_event_attr pa;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_CPU_MIGRATIONS;
	return (int)syscall(SYS_perf_event_open, &pa, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* jr_ucount_read - the calling thread's counters now; fd from above */
void jr_ucount_read(struct jr_ucount *now, int fd)
{
	struct rusage ru;
	uint64_t v;

	memset(now, 0, sizeof(*now));
	if (!getrusage(RUSAGE_THREAD, &ru)) {
		now->ok = true;
		now->minflt = (uint64_t)ru.ru_minflt;
		now->majflt = (uint64_t)ru.ru_majflt;
		now->nivcsw = (uint64_t)ru.ru_nivcsw;
		now->nvcsw = (uint64_t)ru.ru_nvcsw;
	}
	if (fd >= 0 && read(fd, &v, sizeof(v)) == sizeof(v)) {
		now->migrations = v;
		now->migr_ok = true;
	}
}

/* jr_ucount_since - *d = what b counted since a */
void jr_ucount_since(struct jr_ucount *d, const struct jr_ucount *a,
		     const struct jr_ucount *b)
{
	memset(d, 0, sizeof(*d));
	d->ok = a->ok && b->ok;
	if (d->ok) {
		d->minflt = b->minflt - a->minflt;
		d->majflt = b->majflt - a->majflt;
		d->nivcsw = b->nivcsw - a->nivcsw;
		d->nvcsw = b->nvcsw - a->nvcsw;
	}
	d->migr_ok = a->migr_ok && b->migr_ok;
	if (d->migr_ok)
		d->migrations = b->migrations - a->migrations;
}

/*
 * jr_ucount_add - add one phase's counts to a sum, which stays counted
 * only while every phase added to it was
 */
void jr_ucount_add(struct jr_ucount *sum, const struct jr_ucount *c)
{
	sum->ok = c->ok && (!sum->phases || sum->ok);
	sum->migr_ok = c->migr_ok && (!sum->phases || sum->migr_ok);
	sum->phases++;
	sum->minflt += c->minflt;
	sum->majflt += c->majflt;
	sum->nivcsw += c->nivcsw;
	sum->nvcsw += c->nvcsw;
	sum->migrations += c->migrations;
}
