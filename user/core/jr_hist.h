/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_hist.h - log-linear histogram of ns values, in the HdrHistogram manner.
 *
 * Values are stored raw (ns) and scaled only when printed.  Any value is
 * kept with a relative error below 10^-precision: each power-of-two range
 * is split into 2^m linear sub-buckets, with 2^m >= 2 * 10^precision.
 * min, max, count and sum are exact.
 */
#ifndef JR_HIST_H
#define JR_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JR_HIST_MIN_PRECISION 1
#define JR_HIST_MAX_PRECISION 4
#define JR_HIST_DEFAULT_PRECISION 3
/* Values from 2^JR_HIST_MAX_LOG2 ns (~18 minutes) up are clamped. */
#define JR_HIST_MAX_LOG2 40

struct jr_hist {
	int precision;
	int sub_mag; /* log2 of the sub-bucket count */
	int nr_counts;
	uint64_t *counts; /* NULL until the first value */
	uint64_t count;
	uint64_t clamped; /* values above the trackable range */
	uint64_t min;
	uint64_t max;
	long double sum;
};

/* struct jr_hist_iter - walks the non-empty slots, lowest first. */
struct jr_hist_iter {
	const struct jr_hist *h;
	int idx;
	uint64_t value_lo; /* lowest value of the slot */
	uint64_t value_hi; /* highest value of the slot */
	uint64_t count; /* values in the slot */
	uint64_t cumulative; /* values in this slot and below */
};

void jr_hist_init(struct jr_hist *h, int precision);
void jr_hist_free(struct jr_hist *h);
int jr_hist_alloc(struct jr_hist *h);
int jr_hist_record(struct jr_hist *h, uint64_t value_ns);
int jr_hist_record_n(struct jr_hist *h, uint64_t value_ns, uint64_t n);
int jr_hist_merge(struct jr_hist *dst, const struct jr_hist *src);
uint64_t jr_hist_percentile(const struct jr_hist *h, double pct);
double jr_hist_mean(const struct jr_hist *h);
uint64_t jr_hist_highest_equiv(const struct jr_hist *h, uint64_t v);
void jr_hist_iter_init(struct jr_hist_iter *it, const struct jr_hist *h);
bool jr_hist_iter_next(struct jr_hist_iter *it);

#endif /* JR_HIST_H */
