// SPDX-License-Identifier: GPL-2.0
/*
 * jr_disp.c - the index of dispersion of a CPU's gaps (see jr_disp.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/jr_disp.h"

#define JR_DISP_BIN_NS 1000000000ULL
#define JR_DISP_MIN_BINS 5
#define JR_DISP_MAX_BINS (1U << 20)

struct jr_bins {
	uint64_t t0, width;
	size_t nr;
	double *x, *q; /* per bin: the count or total, and squares */
};

static int jr_bins_init(struct jr_bins *b, const struct jr_rcpu *c)
{
	uint64_t span;

	if (c->nr_tl < 2)
		return -1;
	b->t0 = c->tl[0].ts_ns;
	span = c->tl[c->nr_tl - 1].ts_ns - b->t0;
	b->width = JR_DISP_BIN_NS;
	if (span < JR_DISP_MIN_BINS * JR_DISP_BIN_NS)
		b->width = span / JR_DISP_MIN_BINS;
	if (!b->width)
		return -1;
	b->nr = span / b->width;
	if (b->nr < 2)
		return -1;
	if (b->nr > JR_DISP_MAX_BINS)
		b->nr = JR_DISP_MAX_BINS;
	b->x = calloc(b->nr, sizeof(*b->x));
	b->q = calloc(b->nr, sizeof(*b->q));
	if (!b->x || !b->q) {
		free(b->x);
		free(b->q);
		return -1;
	}
	return 0;
}

/* jr_bins_of - the bin of a gap at ts, or -1 past the last full bin. */
static long jr_bins_of(const struct jr_bins *b, uint64_t ts)
{
	uint64_t k = (ts - b->t0) / b->width;

	return k < b->nr ? (long)k : -1;
}

/* jr_bins_index - variance of x over the mean of q (use_q false: of x). */
static struct jr_disp jr_bins_index(struct jr_bins *b, bool use_q)
{
	struct jr_disp d = { 1, 0 };
	double mx = 0, mq = 0, var = 0;
	size_t k;

	for (k = 0; k < b->nr; k++) {
		mx += b->x[k];
		mq += use_q ? b->q[k] : b->x[k];
	}
	mx /= (double)b->nr;
	mq /= (double)b->nr;
	for (k = 0; k < b->nr; k++)
		var += (b->x[k] - mx) * (b->x[k] - mx);
	var /= (double)(b->nr - 1);
	free(b->x);
	free(b->q);
	if (mq > 0 && var / mq > 1) {
		d.phi = var / mq;
		d.dof = (int)b->nr - 1;
	}
	return d;
}

/*
 * jr_disp_of - the index of the gaps at or above min_ns, of class hcls (0:
 * any), per bin counted (total false) or summed in seconds (total true,
 * whose bins also sum the squares).
 */
static struct jr_disp jr_disp_of(const struct jr_rcpu *c, uint64_t min_ns,
				 int hcls, bool total)
{
	struct jr_disp none = { 1, 0 };
	struct jr_bins b;
	size_t i;

	if (jr_bins_init(&b, c))
		return none;
	for (i = 0; i < c->nr_tl; i++) {
		const struct jr_rgap *g = &c->tl[i];
		long k = jr_bins_of(&b, g->ts_ns);
		double s = total ? (double)g->dur_ns / 1e9 : 1;

		if (k < 0 || g->dur_ns < min_ns || (hcls && g->hcls != hcls))
			continue;
		b.x[k] += s;
		b.q[k] += s * s;
	}
	return jr_bins_index(&b, total);
}

/* jr_disp_count - of the gaps above level_ns, of class hcls (0: any). */
struct jr_disp jr_disp_count(const struct jr_rcpu *c, uint64_t level_ns,
			     int hcls)
{
	if (level_ns == UINT64_MAX)
		return (struct jr_disp){ 1, 0 };
	return jr_disp_of(c, level_ns + 1, hcls, false);
}

/* jr_disp_total - of the noise total of the gaps at or above floor_ns. */
struct jr_disp jr_disp_total(const struct jr_rcpu *c, uint64_t floor_ns)
{
	return jr_disp_of(c, floor_ns, 0, true);
}
