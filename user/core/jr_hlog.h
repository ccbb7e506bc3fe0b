/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_hlog.h - --hlog: an HdrHistogram interval log (format 1.3) of each
 * CPU's gaps, one compressed histogram per CPU and interval.
 *
 * Intervals are multiples of the interval on the trace clock, counted
 * from the one that holds the first record; each CPU keeps its own, as
 * its records arrive in order while CPUs are read in turns.  A CPU's
 * interval is written when a later record of that CPU arrives, or at the
 * end; one with no record of that CPU at all is skipped, so a quiet CPU
 * still gets a line (an empty histogram) whenever jitmod's summary says
 * it sampled.  Lines are in time order per tag ("Tag=cpuN").
 */
#ifndef JR_HLOG_H
#define JR_HLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/jr_hist.h"
#include "core/jr_rec.h"

struct jr_hlog_cpu {
	struct jr_hist h; /* the open interval's gaps */
	uint64_t k; /* the open interval's number */
	bool used; /* a record fell in the open interval */
};

struct jr_hlog {
	FILE *f;
	uint64_t interval_ns;
	uint64_t k0; /* the first interval's number */
	bool started;
	int precision;
	struct jr_hlog_cpu **cpu; /* JR_MAX_CPUS, each made at its first record */
	int err; /* the first write or memory error, sticky */
};

int jr_hlog_open(struct jr_hlog *l, FILE *f, uint64_t interval_ns,
		 int precision, double start_epoch_s);
int jr_hlog_add(struct jr_hlog *l, const struct jr_rec *r);
int jr_hlog_close(struct jr_hlog *l);

#endif /* JR_HLOG_H */
