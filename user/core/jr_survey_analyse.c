// SPDX-License-Identifier: GPL-2.0
/*
 * jr_survey_analyse.c - jitread survey's fleet report on rank 0: the
 * ranks compared once every report was merged (see jr_survey.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/jr_survey.h"

static int jr_dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* jr_quantile - of n sorted values, nearest rank */
static double jr_quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)ceil(q * n);

	return n ? v[i ? i - 1 : 0] : 0;
}

static double jr_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), jr_dbl_cmp);
	if (!n)
		return 0;
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * jr_outliers - the modified z-score of each rank's noise share (Iglewicz
 * and Hoaglin): 0.6745 (x - median) / MAD, an outlier above 3.5.  A MAD
 * of almost nothing (identical ranks) is taken as 1 % of the median.
 */
static int jr_outliers(struct jr_survey *s)
{
	double *v = calloc(s->nr > 0 ? (size_t)s->nr : 1, sizeof(*v)), med, mad;
	int i, n = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->nr; i++)
		if (s->r[i].ok)
			v[n++] = s->r[i].noise_share;
	med = jr_median(v, n);
	for (i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	mad = jr_median(v, n);
	if (mad < med * 0.01)
		mad = med * 0.01;
	if (mad < 1e-9)
		mad = 1e-9;
	for (i = 0; i < s->nr; i++) {
		struct jr_srank *r = &s->r[i];

		if (!r->ok)
			continue;
		r->z = 0.6745 * (r->noise_share - med) / mad;
		r->outlier = r->z > JR_SURVEY_OUTLIER_Z;
	}
	free(v);
	return 0;
}

/* jr_on_rank0 - the time of a gap of r's timeline on rank 0's clock */
int64_t jr_on_rank0(const struct jr_srank *r, const struct jr_scold *c,
		    uint64_t ts_ns)
{
	return (int64_t)(c->t0_ns + ts_ns) - r->offset_ns;
}

/*
 * jr_in_cooc - r's timeline has a place in the noise that comes together;
 * *c: what the spool keeps of it.  false with *err set: it could not be
 * read.
 */
static bool jr_in_cooc(const struct jr_survey *s, const struct jr_srank *r,
		       struct jr_scold *c, int *err)
{
	if (!r->ok || !r->clock)
		return false;
	*err = jr_survey_cold(s, r, c);
	return !*err && c->nr_tl;
}

/*
 * jr_cooc_rank - r's gaps at or above cooc_ns between t0 and t1 (rank 0's
 * clock) into the bins, one a bin at most, read back from the spool; *n:
 * how many bins it marked
 */
static int jr_cooc_rank(struct jr_survey *s, const struct jr_srank *r,
			const struct jr_scold *c, int64_t t0, int64_t t1,
			uint32_t *bins, uint64_t nb, double *n)
{
	struct jr_sgap g[JR_SURVEY_CHUNK];
	uint64_t i, k, b, last = UINT64_MAX, nr;
	int64_t t;

	*n = 0;
	for (i = 0; i < c->nr_tl; i += nr) {
		nr = c->nr_tl - i < JR_SURVEY_CHUNK ? c->nr_tl - i :
						      JR_SURVEY_CHUNK;
		if (jr_spool_get(&s->spool, c->tl_at + i * sizeof(*g), g,
				 nr * sizeof(*g)))
			return -EIO;
		for (k = 0; k < nr; k++) {
			t = jr_on_rank0(r, c, g[k].ts_ns);
			if (t < t0 || t > t1 || g[k].dur_ns < s->cooc_ns)
				continue;
			b = (uint64_t)(t - t0) / JR_SURVEY_BIN_NS;
			if (b >= nb || b == last)
				continue;
			last = b;
			bins[b]++;
			(*n)++;
		}
	}
	return 0;
}

/*
 * jr_cooc - gaps at or above the fleet's 99th percentile, on rank 0's
 * clock, in 1 ms bins over the time every rank's timeline covers: how
 * many bins more than one rank shares, and the pairs of ranks seen in one
 * bin against the pairs expected were the ranks independent.
 */
static int jr_cooc(struct jr_survey *s)
{
	int64_t t0 = INT64_MIN, t1 = INT64_MAX;
	double sum = 0, sum2 = 0, pairs = 0, exp, n;
	struct jr_scold c;
	uint32_t *bins;
	uint64_t nb, b;
	int i, ret = 0;

	s->cooc_ns = jr_hist_percentile(&s->fleet[JR_H_GAP], 99.0);
	for (i = 0; !ret && i < s->nr; i++) {
		const struct jr_srank *r = &s->r[i];

		if (!jr_in_cooc(s, r, &c, &ret))
			continue;
		if (jr_on_rank0(r, &c, c.tl_first) > t0)
			t0 = jr_on_rank0(r, &c, c.tl_first);
		if (jr_on_rank0(r, &c, c.tl_last) < t1)
			t1 = jr_on_rank0(r, &c, c.tl_last);
	}
	if (ret)
		return ret;
	if (t0 == INT64_MIN || t1 <= t0 || !s->cooc_ns)
		return 0;
	nb = (uint64_t)(t1 - t0) / JR_SURVEY_BIN_NS + 1;
	if (nb > JR_SURVEY_MAX_BINS)
		nb = JR_SURVEY_MAX_BINS;
	bins = calloc(nb, sizeof(*bins));
	if (!bins)
		return -ENOMEM;
	for (i = 0; !ret && i < s->nr; i++) {
		if (!jr_in_cooc(s, &s->r[i], &c, &ret))
			continue;
		ret = jr_cooc_rank(s, &s->r[i], &c, t0, t1, bins, nb, &n);
		sum += n;
		sum2 += n * n;
	}
	for (b = 0; !ret && b < nb; b++) {
		pairs += bins[b] * (bins[b] - 1.0) / 2;
		s->cooc_shared += bins[b] > 1;
		if (bins[b] > s->cooc_max)
			s->cooc_max = bins[b];
	}
	if (!ret) {
		s->cooc_bins = nb;
		exp = (sum * sum - sum2) / 2 / nb;
		s->cooc_ratio = exp > 0 ? pairs / exp : 0;
	}
	free(bins);
	return ret;
}

/* struct jr_bsp_rank - a rank the BSP analysis reads the windows of */
struct jr_bsp_rank {
	int rank;
	uint64_t win_at;
};

/*
 * jr_bsp_ranks - the ranks with windows: how many, into who when given,
 * and the fewest windows a rank has, in *nw; negative: a spool error
 */
static int jr_bsp_ranks(const struct jr_survey *s, struct jr_bsp_rank *who,
			size_t *nw)
{
	struct jr_scold c;
	int i, n = 0;

	*nw = SIZE_MAX;
	for (i = 0; i < s->nr; i++) {
		if (!s->r[i].ok)
			continue;
		if (jr_survey_cold(s, &s->r[i], &c))
			return -EIO;
		if (!c.nr_win)
			continue;
		if (who)
			who[n] = (struct jr_bsp_rank){ i, c.win_at };
		n++;
		if (c.nr_win < *nw)
			*nw = c.nr_win;
	}
	return n;
}

/*
 * jr_bsp - fixed-work-quantum mode: per window of quanta between two
 * barriers, the slowest rank's time over the median rank's, the
 * slowdown a bulk-synchronous program would see.
 */
static int jr_bsp(struct jr_survey *s)
{
	size_t w, w0, cw, chunk, nw;
	double *v = NULL, *slow = NULL;
	struct jr_bsp_rank *who = NULL;
	uint64_t *vals = NULL;
	int i, k, n, *worst = NULL, best = 0, ret = -ENOMEM;

	n = jr_bsp_ranks(s, NULL, &nw);
	if (n < 2)
		return n < 0 ? n : 0;
	chunk = JR_SURVEY_BSP_VALUES / n ? JR_SURVEY_BSP_VALUES / n : 1;
	if (chunk > nw)
		chunk = nw;
	v = calloc(n, sizeof(*v));
	who = calloc(n, sizeof(*who));
	vals = calloc((size_t)n * chunk, sizeof(*vals));
	slow = calloc(nw, sizeof(*slow));
	worst = calloc(s->nr, sizeof(*worst));
	if (!v || !who || !vals || !slow || !worst)
		goto out;
	ret = jr_bsp_ranks(s, who, &nw) == n ? 0 : -EIO;
	/* window by window; the ranks' windows read chunk at a time */
	for (w0 = 0; !ret && w0 < nw; w0 += cw) {
		cw = nw - w0 < chunk ? nw - w0 : chunk;
		for (k = 0; !ret && k < n; k++)
			ret = jr_spool_get(&s->spool,
					   who[k].win_at + w0 * sizeof(*vals),
					   vals + (size_t)k * chunk,
					   cw * sizeof(*vals));
		for (w = 0; !ret && w < cw; w++) {
			double max = 0, med;
			int arg = 0;

			for (k = 0; k < n; k++) {
				v[k] = vals[(size_t)k * chunk + w];
				if (v[k] > max) {
					max = v[k];
					arg = who[k].rank;
				}
			}
			med = jr_median(v, n);
			slow[w0 + w] = med > 0 ? max / med : 1;
			worst[arg]++;
			s->bsp_mean += slow[w0 + w] / nw;
		}
	}
	if (ret)
		goto out;
	qsort(slow, nw, sizeof(*slow), jr_dbl_cmp);
	s->bsp_p50 = jr_quantile(slow, nw, 0.5);
	s->bsp_p99 = jr_quantile(slow, nw, 0.99);
	s->bsp_max = slow[nw - 1];
	s->bsp_windows = nw;
	for (i = 0; i < s->nr; i++)
		if (worst[i] > worst[best])
			best = i;
	s->bsp_worst_rank = best;
out:
	free(v);
	free(who);
	free(vals);
	free(slow);
	free(worst);
	return ret;
}

/*
 * jr_host_clocks - the ranks of one host share its clock: each takes the
 * offset of its host's rank with the shortest round trip (rank 0 itself,
 * offset 0, on rank 0's host), not its own noisier estimate: its own when
 * its round trip is as short as any, else the first rank's that has the
 * shortest.  A rank whose host has no rank that answered the clock rounds
 * has no known offset.
 */
static int jr_host_clocks(struct jr_survey *s)
{
	int *least = malloc(s->names.nr * sizeof(*least)), i, b;
	const struct jr_srank *r;
	uint32_t h;

	if (!least)
		return -ENOMEM;
	for (h = 0; h < s->names.nr; h++)
		least[h] = -1;
	for (i = 0; i < s->nr; i++) {
		r = &s->r[i];
		b = least[r->host];
		if (r->ok && r->rtt_ns >= 0 &&
		    (b < 0 || r->rtt_ns < s->r[b].rtt_ns))
			least[r->host] = i;
	}
	for (i = 0; i < s->nr; i++) {
		if (!s->r[i].ok)
			continue;
		b = least[s->r[i].host];
		if (b >= 0 && s->r[i].rtt_ns == s->r[b].rtt_ns)
			b = i;
		s->r[i].clock = b >= 0;
		s->r[i].offset_ns = b >= 0 ? s->r[b].offset_ns : 0;
	}
	free(least);
	return 0;
}

/* jr_survey_analyse - after every rank was added or found missing */
int jr_survey_analyse(struct jr_survey *s)
{
	int ret = jr_host_clocks(s);

	if (!ret)
		ret = jr_outliers(s);
	if (!ret)
		ret = jr_cooc(s);
	if (!ret)
		ret = jr_bsp(s);
	return ret;
}
