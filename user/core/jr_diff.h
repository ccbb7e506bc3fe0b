/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_diff.h - two reports of the same CPUs compared, with a verdict that
 * a difference the runs' own sampling noise explains cannot move.
 *
 * Judged per CPU, on quantities per second of sampled runtime: the noise
 * share, and the rate of gaps above the floor (the higher threshold) and
 * above each step of a 1-2-5 ladder over it.  A
 * change counts when it is at least JR_DIFF_Z standard errors and
 * min_change of A's value.  Counts are taken as Poisson, the noise share
 * as a compound Poisson sum (whose variance is the sum of squared gaps),
 * each variance widened by the run's own index of dispersion, so that
 * bursty noise does not pass for a change.  A dispersion estimated from
 * few seconds is itself uncertain: then the critical value is Student's
 * t at the same level as JR_DIFF_Z, with that estimate's degrees of
 * freedom.
 * Gap percentiles are shown, not judged: they are conditional on a gap,
 * so removing a frequent small source raises them while the CPU got
 * quieter.
 */
#ifndef JR_DIFF_H
#define JR_DIFF_H

#include "core/jr_rdoc.h"

#define JR_DIFF_Z 3.0
#define JR_DIFF_MAX_MEASURES 24

enum jr_dverdict {
	JR_DV_SAME,
	JR_DV_BETTER,
	JR_DV_WORSE,
	JR_DV_UNJUDGED,
};

/* struct jr_dmeasure - one judged quantity of one CPU */
struct jr_dmeasure {
	uint64_t level_ns; /* gaps above this, per s; 0: the noise share */
	double a, b;
	double disp_a, disp_b; /* index of dispersion (jr_disp.h) */
	double z; /* (b - a) in standard errors */
	double crit; /* |z| from which it counts */
	enum jr_dverdict verdict;
};

/* struct jr_dsource - one source in either run, per second of runtime */
struct jr_dsource {
	const char *name;
	int hcls;
	uint64_t count_a, count_b;
	uint64_t total_a, total_b; /* ns */
	double time_a, time_b; /* ns per s of runtime */
	double z; /* of the rate */
	enum jr_dverdict verdict; /* better: fewer */
};

struct jr_dcpu {
	int cpu;
	const struct jr_rcpu *a, *b;
	enum jr_dverdict verdict;
	const char *unjudged; /* why, when verdict is JR_DV_UNJUDGED */
	struct jr_dmeasure m[JR_DIFF_MAX_MEASURES];
	int nr_m;
	struct jr_dsource
		*src; /* by |change of time per second|, largest first */
	size_t nr_src;
};

struct jr_diff {
	const struct jr_rdoc *a, *b;
	double min_change; /* a fraction of A's value */
	uint64_t floor_ns; /* the lowest level judged */
	bool noise_from_slots; /* thresholds differ: noise from floor_ns up */
	struct jr_dcpu *cpu; /* CPUs in both reports (and wanted) */
	int nr_cpu;
	int only_a[16], nr_only_a; /* CPUs in one report alone (the first 16) */
	int only_b[16], nr_only_b;
	enum jr_dverdict verdict;
};

int jr_diff_run(struct jr_diff *d, const struct jr_rdoc *a,
		const struct jr_rdoc *b, const unsigned char *want,
		double min_change);
void jr_diff_free(struct jr_diff *d);
const char *jr_dverdict_name(enum jr_dverdict v);
uint64_t jr_rclass_percentile(const struct jr_rclass *c, double pct);
double jr_rate(uint64_t n, uint64_t runtime_ns);

#endif /* JR_DIFF_H */
