// SPDX-License-Identifier: GPL-2.0
/*
 * jr_advise_user.c - advice on what only a user thread suffers, from a
 * comparison's "why" (compare.cpus[].why): the page faults, waits and
 * migrations the kernel counted for jitread's user sampler, and the time
 * other tasks took from it beyond what they took from jitmod's kthread.
 * The sampler stands for the application's own thread on that CPU: what
 * befell it will befall the application's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/jr_advise.h"

static struct jr_uadvice *jr_uadv_new(struct jr_advise *v, int cpu,
				      const char *id)
{
	struct jr_uadvice *n = realloc(v->uadv, (v->nr_uadv + 1) * sizeof(*n));

	if (!n)
		return NULL;
	v->uadv = n;
	n = &v->uadv[v->nr_uadv++];
	memset(n, 0, sizeof(*n));
	n->cpu = cpu;
	n->id = id;
	return n;
}

/* jr_uadv_thread - the "thread" class row's excess, and its top source */
static double jr_uadv_thread(const struct jr_rwhy *w, const char **top)
{
	double excess = 0, best = 0;
	size_t i;

	*top = NULL;
	for (i = 0; i < w->nr; i++) {
		const struct jr_rwhy_row *r = &w->row[i];
		double d = r->ns_per_s[1] - r->ns_per_s[0];

		if (!r->source && !strcmp(r->name, "thread"))
			excess = d;
		else if (r->source && !strncmp(r->name, "thread:", 7) &&
			 d > best) {
			best = d;
			*top = r->name;
		}
	}
	return excess;
}

static int jr_uadv_cpu(struct jr_advise *v, const struct jr_rcpu *c)
{
	const struct jr_rwhy *w = c->why;
	int64_t faults = w->count[JR_RW_MINFLT] + w->count[JR_RW_MAJFLT];
	struct jr_uadvice *x;
	const char *top;
	double excess;

	if (w->count[JR_RW_MINFLT] >= 0 && w->count[JR_RW_MAJFLT] >= 0 &&
	    faults > 0) {
		x = jr_uadv_new(v, c->cpu, "user-faults");
		if (!x)
			return -ENOMEM;
		x->count = faults;
		snprintf(
			x->what, sizeof(x->what),
			"the user thread on CPU %d took %" PRId64
			" page faults (%" PRId64
			" major) while it sampled, which jitmod's kthread cannot",
			c->cpu, faults, w->count[JR_RW_MAJFLT]);
		x->fix =
			"lock and pre-fault the application's memory: "
			"mlockall(MCL_CURRENT | MCL_FUTURE) before its hot "
			"loop, then touch every page it will use; "
			"kernel.numa_balancing=0 stops NUMA hinting faults, and "
			"vm.compact_unevictable_allowed=0 keeps compaction from "
			"moving locked pages";
		x->verify = "a new comparison's user_only counts 0 faults";
	}
	if (w->count[JR_RW_WAITED] > 0) {
		x = jr_uadv_new(v, c->cpu, "user-waited");
		if (!x)
			return -ENOMEM;
		x->count = w->count[JR_RW_WAITED];
		snprintf(x->what, sizeof(x->what),
			 "the user thread on CPU %d slept %" PRId64
			 " times while it sampled, though it never asks to",
			 c->cpu, x->count);
		x->fix = "find what it waited on (a major fault, a lock in the "
			 "kernel): jitread attach on the application names "
			 "each wait";
		x->verify = "a new comparison's user_only counts 0 waits";
	}
	if (w->count[JR_RW_MIGRATIONS] > 0) {
		x = jr_uadv_new(v, c->cpu, "user-migrations");
		if (!x)
			return -ENOMEM;
		x->count = w->count[JR_RW_MIGRATIONS];
		snprintf(x->what, sizeof(x->what),
			 "the user thread on CPU %d was moved %" PRId64
			 " times while pinned there: a CPU went offline or "
			 "its cpuset changed",
			 c->cpu, x->count);
		x->fix = "keep CPU hotplug and cpuset changes off the measured "
			 "CPUs while the application runs";
		x->verify = "a new comparison's user_only counts 0 migrations";
	}
	excess = jr_uadv_thread(w, &top);
	if (excess > 0 && w->count[JR_RW_PREEMPTED] > 0) {
		x = jr_uadv_new(v, c->cpu, "user-preempted");
		if (!x)
			return -ENOMEM;
		x->count = w->count[JR_RW_PREEMPTED];
		x->excess_ns_per_s = excess;
		snprintf(
			x->what, sizeof(x->what),
			"other tasks preempted the user thread on CPU %d %" PRId64
			" times, %.3f us/s more than they took from jitmod's "
			"kthread%s%s",
			c->cpu, x->count, excess / 1000.0,
			top ? "; most of all " : "", top ? top : "");
		x->fix = "keep other tasks off the CPU (isolcpus=domain or a "
			 "cpuset for the application), or run the application "
			 "thread SCHED_FIFO above them";
		x->verify = "a new comparison's thread row is 0 or below";
	}
	return 0;
}

/*
 * jr_advise_user - the user-thread advice of every CPU of d that a
 * comparison explained; 0 or -ENOMEM
 */
int jr_advise_user(struct jr_advise *v, const struct jr_rdoc *d)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < d->nr_cpu && !ret; i++)
		if (d->cpu[i].why && d->cpu[i].why->has_counts)
			ret = jr_uadv_cpu(v, &d->cpu[i]);
	return ret;
}
