/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_verdict.h - --fail-if: conditions on a finished report, for CI.
 *
 * A condition is
 *   [cpu=N|all,][class=NAME,][source=GLOB,][side=kernel|user,]METRIC OP VALUE
 *   METRIC  max, min, mean, count, rate, pP (p99, p99.9999), avail, noise
 *   OP      >, >=, <, <=
 *   VALUE   a time for max, min, mean, pP and noise (500ns, 2us; bare: us,
 *           as -T), a number for count, events per second for rate (1,
 *           0.5/s), a percentage for avail (99.99%)
 * It fails when it holds: "max>50us" fails a CPU whose gaps reached more
 * than 50 us.  Without cpu=, each reported CPU is judged on its own and
 * any one fails it; cpu=all judges the CPUs merged (rate: their rates
 * summed).  Without class= or source=, the gaps.  source= judges the
 * noise sources whose names match GLOB (fnmatch), of class= if given, as
 * one: their events' count, rate, max, min, mean and total (noise).
 * rate, avail and a CPU's noise need the period summaries; a CPU without
 * one cannot be judged, and that fails too.
 */
#ifndef JR_VERDICT_H
#define JR_VERDICT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "core/jr_model.h"
#include "core/jr_report.h"

#define JR_MAX_CONDS 16
#define JR_COND_ALL (-2) /* cpu=all: the CPUs merged */
#define JR_COND_EACH (-1) /* no cpu=: every CPU on its own */

enum jr_metric {
	JR_M_MAX,
	JR_M_MIN,
	JR_M_MEAN,
	JR_M_COUNT,
	JR_M_PCT,
	JR_M_AVAIL,
	JR_M_NOISE,
	JR_M_RATE,
	JR_M_NR,
};

enum jr_side { JR_SIDE_ANY, JR_SIDE_KERNEL, JR_SIDE_USER };

struct jr_cond {
	const char *text;
	int cpu; /* a CPU, JR_COND_EACH or JR_COND_ALL */
	int hcls; /* enum jr_hclass */
	char source[64]; /* source=GLOB, or "" */
	enum jr_side side;
	enum jr_metric metric;
	double pct; /* JR_M_PCT */
	bool less; /* < or <= (else > or >=) */
	bool or_equal;
	double value; /* ns, a count, or a percentage */
};

int jr_cond_parse(const char *text, struct jr_cond *c, struct jr_err *e);
int jr_verdict(FILE *out, const struct jr_model *m,
	       const struct jr_report_opts *o, const struct jr_cond *c,
	       const char *side);

#endif /* JR_VERDICT_H */
