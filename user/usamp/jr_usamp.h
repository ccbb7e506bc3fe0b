/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_usamp.h - the userspace TSC sampler: one pinned thread per CPU running
 * the kernel sampler's gap loop, or a "get time, do work, get time" loop.
 */
#ifndef JR_USAMP_H
#define JR_USAMP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/jr_hist.h"
#include "common/jr_tsc.h"
#include "usamp/jr_ucount.h"

enum jr_work {
	JR_WORK_NONE, /* the gap loop: time, time, time */
	JR_WORK_USLEEP,
	JR_WORK_NANOSLEEP,
	JR_WORK_MEMWALK,
	JR_WORK_ARITH,
	JR_WORK_KILL,
	JR_WORK_GETTIME,
	JR_WORK_NR,
};

extern const char *const jr_work_names[JR_WORK_NR];

/* struct jr_ugap - one gap: where it began and how long, in TSC cycles. */
struct jr_ugap {
	uint64_t tsc;
	uint64_t cyc;
};

/*
 * The sampler hands its gaps and clock pairs to the reader while it runs,
 * so that a run of any length needs memory for a poll's worth of them:
 *  - gaps: a queue of cap_gaps; the sampler publishes nr_gaps, the reader
 *    gaps_read, and a gap that finds the queue full is counted (dropped);
 *  - pairs: a ring of JR_PAIRS, the first read before the loop, one every
 *    JR_PAIR_MS in it, the last after it.  The reader maps the gaps
 *    between two pairs through the line joining them.
 * Each side's index is stored with release and loaded with acquire.
 */
#define JR_PAIRS 64
#define JR_PAIR_MS 200

struct jr_usamp {
	int cpu;
	int fifo_prio; /* 0: SCHED_OTHER */
	enum jr_work work;
	uint64_t thr_cyc;
	uint64_t run_cyc;
	uint64_t warm_cyc; /* spun before the loop, unrecorded */
	const struct jr_stop *stop; /* the caller's: end early */
	volatile int halt; /* this phase's own: end early */
	pthread_t th;
	volatile pid_t tid; /* published once pinned, before sampling */
	volatile int go; /* the caller's start signal */
	/* results */
	struct jr_ugap *gaps; /* the queue, cap_gaps long */
	uint64_t nr_gaps, gaps_read, cap_gaps, dropped;
	struct jr_tsc_pair pairs[JR_PAIRS]; /* on this CPU */
	uint64_t nr_pairs;
	uint64_t pair_cyc, next_pair;
	uint64_t blind_cyc; /* the pairs' own time, not sampled */
	uint64_t iters, min_cyc, start_tsc, end_tsc, noise_cyc, max_cyc;
	volatile int done; /* end_tsc and the last pair are published */
	struct jr_hist work_hist; /* JR_WORK_* != NONE: every item, ns */
	double ns_per_cyc;
	int err; /* errno of a failed pin or policy change */
	uint8_t *walk; /* JR_WORK_MEMWALK buffer */
	unsigned int resident_pct; /* of the gap log, before sampling */
	struct jr_ucount count; /* its own, from the first pair to the last */
};

int jr_usamp_start(struct jr_usamp *u);
void jr_usamp_go(struct jr_usamp *u);
int jr_usamp_join(struct jr_usamp *u);
void jr_usamp_free(struct jr_usamp *u);

#endif /* JR_USAMP_H */
