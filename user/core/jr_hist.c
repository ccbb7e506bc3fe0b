// SPDX-License-Identifier: GPL-2.0
/*
 * jr_hist.c - log-linear histogram (see jr_hist.h).
 *
 * Slot layout: bucket 0 covers [0, 2^m) one ns per slot; bucket b >= 1
 * covers [2^(m-1+b), 2^(m+b)) with 2^(m-1) slots of width 2^b.  That is
 * HdrHistogram's layout with a unit of 1 ns.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/jr_hist.h"

static int jr_sub_mag(int precision)
{
	double want = 2.0 * pow(10.0, precision);
	int m = 0;

	while ((double)(1ULL << m) < want)
		m++;
	return m;
}

void jr_hist_init(struct jr_hist *h, int precision)
{
	memset(h, 0, sizeof(*h));
	h->precision = precision;
	h->sub_mag = jr_sub_mag(precision);
	/* buckets 0 .. MAX_LOG2 - m, each half a bucket past the first */
	h->nr_counts = (JR_HIST_MAX_LOG2 - h->sub_mag + 2) << (h->sub_mag - 1);
	h->min = UINT64_MAX;
}

void jr_hist_free(struct jr_hist *h)
{
	free(h->counts);
	h->counts = NULL;
}

/* jr_bucket - which power-of-two bucket v falls in. */
static int jr_bucket(const struct jr_hist *h, uint64_t v)
{
	uint64_t mask = (1ULL << h->sub_mag) - 1;

	return 64 - __builtin_clzll(v | mask) - h->sub_mag;
}

/* jr_index - slot of v: b * 2^(m-1) + (v >> b); one formula for all b. */
static int jr_index(const struct jr_hist *h, uint64_t v)
{
	int b = jr_bucket(h, v);

	return (b << (h->sub_mag - 1)) + (int)(v >> b);
}

static uint64_t jr_value_at(const struct jr_hist *h, int idx)
{
	int half = h->sub_mag - 1;
	int b, sub;

	if (idx < (1 << h->sub_mag))
		return (uint64_t)idx;
	b = (idx >> half) - 1;
	sub = (idx & ((1 << half) - 1)) + (1 << half);
	return (uint64_t)sub << b;
}

static uint64_t jr_hist_lowest_equiv(const struct jr_hist *h, uint64_t v)
{
	int b = jr_bucket(h, v);

	return (v >> b) << b;
}

uint64_t jr_hist_highest_equiv(const struct jr_hist *h, uint64_t v)
{
	int b = jr_bucket(h, v);

	return jr_hist_lowest_equiv(h, v) + (1ULL << b) - 1;
}

/* jr_hist_alloc - allocate and touch the counts now, not at the first value. */
int jr_hist_alloc(struct jr_hist *h)
{
	if (!h->counts) {
		h->counts = calloc(h->nr_counts, sizeof(*h->counts));
		if (!h->counts)
			return -ENOMEM;
	}
	memset(h->counts, 0, h->nr_counts * sizeof(*h->counts));
	return 0;
}

int jr_hist_record(struct jr_hist *h, uint64_t v)
{
	uint64_t top = (1ULL << JR_HIST_MAX_LOG2) - 1;

	if (!h->counts && jr_hist_alloc(h))
		return -ENOMEM;
	if (v > top) {
		h->clamped++;
		v = top;
	}
	h->counts[jr_index(h, v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

/*
 * jr_hist_record_n - n values that share v's slot (v the slot's highest,
 * as a report's slots give it): the counts are exact, the sum counts
 * each at v.
 */
int jr_hist_record_n(struct jr_hist *h, uint64_t v, uint64_t n)
{
	uint64_t top = (1ULL << JR_HIST_MAX_LOG2) - 1;

	if (!n)
		return 0;
	if (!h->counts && jr_hist_alloc(h))
		return -ENOMEM;
	if (v > top) {
		h->clamped += n;
		v = top;
	}
	h->counts[jr_index(h, v)] += n;
	h->count += n;
	h->sum += (long double)v * n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

/* jr_hist_merge - add src into dst; both must have the same precision. */
int jr_hist_merge(struct jr_hist *dst, const struct jr_hist *src)
{
	int i;

	if (dst->precision != src->precision)
		return -EINVAL;
	if (!src->counts)
		return 0;
	if (!dst->counts) {
		dst->counts = calloc(dst->nr_counts, sizeof(*dst->counts));
		if (!dst->counts)
			return -ENOMEM;
	}
	for (i = 0; i < dst->nr_counts; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	dst->clamped += src->clamped;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

/*
 * jr_hist_percentile - the value at or below which pct % of values lie.
 *
 * Like HdrHistogram, the answer is the highest value equivalent to the
 * slot reached, but never above the exact max (nor below the exact min).
 */
uint64_t jr_hist_percentile(const struct jr_hist *h, double pct)
{
	uint64_t want, seen = 0, v;
	int i;

	if (!h->count)
		return 0;
	if (pct >= 100.0)
		return h->max;
	want = (uint64_t)ceil(pct / 100.0 * (double)h->count);
	if (want < 1)
		want = 1;
	for (i = 0; i < h->nr_counts; i++) {
		seen += h->counts[i];
		if (seen >= want)
			break;
	}
	if (i == h->nr_counts)
		return h->max;
	v = jr_hist_highest_equiv(h, jr_value_at(h, i));
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

double jr_hist_mean(const struct jr_hist *h)
{
	return h->count ? (double)(h->sum / h->count) : 0.0;
}

void jr_hist_iter_init(struct jr_hist_iter *it, const struct jr_hist *h)
{
	memset(it, 0, sizeof(*it));
	it->h = h;
	it->idx = -1;
}

bool jr_hist_iter_next(struct jr_hist_iter *it)
{
	const struct jr_hist *h = it->h;

	if (!h->counts)
		return false;
	while (++it->idx < h->nr_counts) {
		if (!h->counts[it->idx])
			continue;
		it->value_lo = jr_value_at(h, it->idx);
		it->value_hi = jr_hist_highest_equiv(h, it->value_lo);
		it->count = h->counts[it->idx];
		it->cumulative += it->count;
		return true;
	}
	return false;
}
