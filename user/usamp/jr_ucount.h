/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_ucount.h - what befell a user sampler thread itself while it sampled,
 * which jitmod's kthread cannot suffer or the gaps do not name: page
 * faults, context switches and migrations, counted by the kernel for that
 * thread alone.
 */
#ifndef JR_UCOUNT_H
#define JR_UCOUNT_H

#include <stdbool.h>
#include <stdint.h>

struct jr_ucount {
	uint64_t minflt, majflt; /* page faults, minor and major */
	uint64_t nivcsw; /* switched out while runnable: preempted */
	uint64_t nvcsw; /* switched out to wait */
	uint64_t migrations;
	uint64_t phases; /* a sum's: the phases added to it */
	bool ok; /* faults and switches were counted (getrusage) */
	bool migr_ok; /* migrations were counted (a perf event) */
};

int jr_ucount_open(void);
void jr_ucount_read(struct jr_ucount *now, int fd);
void jr_ucount_since(struct jr_ucount *d, const struct jr_ucount *a,
		     const struct jr_ucount *b);
void jr_ucount_add(struct jr_ucount *sum, const struct jr_ucount *c);

#endif /* JR_UCOUNT_H */
