// SPDX-License-Identifier: GPL-2.0
/*
 * jr_survey.c - jitread survey's fleet report on rank 0: the ranks'
 * reports read, merged and compared (see jr_survey.h).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/jr_survey.h"

#define JR_MAX_BINS 20000000ULL

int jr_survey_init(struct jr_survey *s, int nr, const char *mode, int precision)
{
	int h, i;

	memset(s, 0, sizeof(*s));
	snprintf(s->mode, sizeof(s->mode), "%s", mode);
	s->precision = precision;
	s->r = calloc(nr, sizeof(*s->r));
	if (!s->r)
		return -ENOMEM;
	s->nr = nr;
	for (i = 0; i < nr; i++) {
		s->r[i].rank = i;
		s->r[i].cpu = -1;
		s->r[i].rtt_ns = -1;
		snprintf(s->r[i].why, sizeof(s->r[i].why), "no report came");
		jr_hist_init(&s->r[i].gap, precision);
	}
	for (h = 0; h < JR_H_NR; h++)
		jr_hist_init(&s->fleet[h], precision);
	s->bsp_worst_rank = -1;
	return 0;
}

void jr_survey_free(struct jr_survey *s)
{
	int i, h;

	for (i = 0; i < s->nr; i++) {
		if (s->r[i].ok)
			jr_rdoc_free(&s->r[i].doc);
		jr_hist_free(&s->r[i].gap);
		free(s->r[i].win_ns);
	}
	for (h = 0; h < JR_H_NR; h++)
		jr_hist_free(&s->fleet[h]);
	free(s->r);
	s->r = NULL;
}

void jr_survey_missing(struct jr_survey *s, int rank, const char *why)
{
	snprintf(s->r[rank].why, sizeof(s->r[rank].why), "%s", why);
}

/* jr_add_slots - a report's class into h, slot for slot */
static int jr_add_slots(struct jr_hist *h, const struct jr_rclass *c)
{
	size_t i;
	int ret;

	for (i = 0; i < c->nr_slots; i++) {
		ret = jr_hist_record_n(h, c->slots[i].value, c->slots[i].count);
		if (ret)
			return ret;
	}
	if (c->count && c->min_ns < h->min)
		h->min = c->min_ns;
	return 0;
}

struct jr_named {
	char name[64];
	uint64_t total_ns;
};

static int jr_named_cmp(const void *a, const void *b)
{
	const struct jr_named *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * jr_top_sources - the CPU's largest sources by total, a thread by its
 * comm: its pids summed, as a fleet compares them
 */
static int jr_top_sources(struct jr_srank *r, const struct jr_rcpu *c)
{
	struct jr_named *v = calloc(c->nr_src ? c->nr_src : 1, sizeof(*v));
	size_t i, j, n = 0;
	char *b;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->nr_src; i++) {
		snprintf(v[n].name, sizeof(v[n].name), "%s", c->src[i].name);
		b = strrchr(v[n].name, '[');
		if (!strncmp(v[n].name, "thread:", 7) && b)
			*b = '\0';
		for (j = 0; j < n && strcmp(v[j].name, v[n].name); j++)
			;
		v[j].total_ns += c->src[i].total_ns;
		n += j == n;
	}
	qsort(v, n, sizeof(*v), jr_named_cmp);
	for (i = 0; i < n && i < JR_SURVEY_TOP_SRC; i++)
		snprintf(r->top[i], sizeof(r->top[i]), "%s", v[i].name);
	free(v);
	return 0;
}

/* jr_sv_u64 - the survey member's field as a non-negative integer */
static int jr_sv_u64(json_t *sv, const char *name, uint64_t *v,
		     struct jr_err *e)
{
	json_t *x = json_object_get(sv, name);

	if (!x) {
		*v = 0;
		return 0;
	}
	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return jr_fail(e, -EINVAL, "survey: %s: not a count", name);
	*v = (uint64_t)json_integer_value(x);
	return 0;
}

/*
 * jr_survey_meta - the report's "survey" member: who sent it, and each
 * number the merge will index or loop by, within what a rank writes.
 */
static int jr_survey_meta(struct jr_srank *r, const char *json, size_t len,
			  struct jr_err *e)
{
	json_t *root = json_loadb(json, len, 0, NULL), *sv, *w, *x;
	uint64_t cpu;
	const char *host;
	size_t i, nw;
	int ret = -EINVAL;

	sv = root ? json_object_get(root, "survey") : NULL;
	host = json_string_value(json_object_get(sv, "host"));
	if (!sv || !host || !json_object_get(sv, "cpu")) {
		jr_fail(e, -EINVAL, "no survey member naming host and cpu");
		goto out;
	}
	if (jr_sv_u64(sv, "cpu", &cpu, e) ||
	    jr_sv_u64(sv, "t0_ns", &r->t0_ns, e) ||
	    jr_sv_u64(sv, "quantum_ns", &r->quantum_ns, e) ||
	    jr_sv_u64(sv, "quanta", &r->quanta, e))
		goto out;
	if (cpu >= JR_MAX_CPUS) {
		jr_fail(e, -EINVAL, "survey: cpu: not a CPU number below %d",
			JR_MAX_CPUS);
		goto out;
	}
	snprintf(r->host, sizeof(r->host), "%s", host);
	snprintf(r->backend, sizeof(r->backend), "%s",
		 json_string_value(json_object_get(sv, "backend")) ?: "user");
	r->cpu = (int)cpu;
	w = json_object_get(sv, "windows_ns");
	nw = json_array_size(w);
	if (nw > JR_SURVEY_MAX_QUANTA) {
		jr_fail(e, -EINVAL,
			"survey: windows_ns: more windows than quanta a rank times");
		goto out;
	}
	if (nw) {
		r->win_ns = calloc(nw, sizeof(*r->win_ns));
		if (!r->win_ns) {
			ret = jr_fail(e, -ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < nw; i++) {
			x = json_array_get(w, i);
			if (!json_is_integer(x) || json_integer_value(x) < 0) {
				jr_fail(e, -EINVAL,
					"survey: windows_ns: not durations");
				goto out;
			}
			r->win_ns[i] = (uint64_t)json_integer_value(x);
		}
		r->nr_win = nw;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

/* jr_survey_add - rank's report, read and merged into the fleet's */
int jr_survey_add(struct jr_survey *s, int rank, const char *json, size_t len,
		  struct jr_err *e)
{
	struct jr_srank *r = &s->r[rank];
	const struct jr_rcpu *c;
	int h, ret;

	ret = jr_rdoc_parse(&r->doc, json, len, e);
	if (!ret)
		ret = jr_survey_meta(r, json, len, e);
	if (!ret && r->doc.precision != s->precision)
		ret = jr_fail(e, -EINVAL, "precision %d, not the survey's %d",
			      r->doc.precision, s->precision);
	c = ret ? NULL : jr_rdoc_cpu(&r->doc, r->cpu);
	if (!ret && !c)
		ret = jr_fail(e, -EINVAL, "no report of its CPU %d", r->cpu);
	if (ret) {
		jr_rdoc_free(&r->doc);
		return ret;
	}
	r->ok = true;
	r->runtime_ns = c->runtime_ns;
	r->noise_ns = c->noise_ns;
	r->noise_share = c->runtime_ns ? (double)c->noise_ns / c->runtime_ns :
					 0;
	ret = jr_top_sources(r, c);
	if (!ret)
		ret = jr_add_slots(&r->gap, &c->cls[JR_H_GAP]);
	for (h = 0; !ret && h < JR_H_NR; h++) {
		ret = jr_add_slots(&s->fleet[h], &c->cls[h]);
		s->sum_counts[h] += c->cls[h].count;
	}
	return ret ? jr_fail(e, ret, "out of memory") : 0;
}

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

/* jr_on_rank0 - a gap's time on rank 0's clock */
int64_t jr_on_rank0(const struct jr_srank *r, const struct jr_rgap *g)
{
	return (int64_t)(r->t0_ns + g->ts_ns) - r->offset_ns;
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
	double sum = 0, sum2 = 0, pairs = 0, exp;
	uint16_t *bins;
	uint64_t nb, b, last;
	size_t k;
	int i;

	s->cooc_ns = jr_hist_percentile(&s->fleet[JR_H_GAP], 99.0);
	for (i = 0; i < s->nr; i++) {
		const struct jr_rcpu *c =
			s->r[i].ok && s->r[i].clock ?
				jr_rdoc_cpu(&s->r[i].doc, s->r[i].cpu) :
				NULL;

		if (!c || !c->nr_tl)
			continue;
		if (jr_on_rank0(&s->r[i], &c->tl[0]) > t0)
			t0 = jr_on_rank0(&s->r[i], &c->tl[0]);
		if (jr_on_rank0(&s->r[i], &c->tl[c->nr_tl - 1]) < t1)
			t1 = jr_on_rank0(&s->r[i], &c->tl[c->nr_tl - 1]);
	}
	if (t0 == INT64_MIN || t1 <= t0 || !s->cooc_ns)
		return 0;
	nb = (uint64_t)(t1 - t0) / JR_SURVEY_BIN_NS + 1;
	if (nb > JR_MAX_BINS)
		nb = JR_MAX_BINS;
	bins = calloc(nb, sizeof(*bins));
	if (!bins)
		return -ENOMEM;
	for (i = 0; i < s->nr; i++) {
		const struct jr_rcpu *c =
			s->r[i].ok && s->r[i].clock ?
				jr_rdoc_cpu(&s->r[i].doc, s->r[i].cpu) :
				NULL;
		double n = 0;

		for (k = 0, last = UINT64_MAX; c && k < c->nr_tl; k++) {
			int64_t t = jr_on_rank0(&s->r[i], &c->tl[k]);

			if (t < t0 || t > t1 || c->tl[k].dur_ns < s->cooc_ns)
				continue;
			b = (uint64_t)(t - t0) / JR_SURVEY_BIN_NS;
			if (b >= nb || b == last)
				continue;
			last = b;
			bins[b]++;
			n++;
		}
		sum += n;
		sum2 += n * n;
	}
	for (b = 0; b < nb; b++) {
		pairs += bins[b] * (bins[b] - 1.0) / 2;
		s->cooc_shared += bins[b] > 1;
		if (bins[b] > s->cooc_max)
			s->cooc_max = bins[b];
	}
	s->cooc_bins = nb;
	exp = (sum * sum - sum2) / 2 / nb;
	s->cooc_ratio = exp > 0 ? pairs / exp : 0;
	free(bins);
	return 0;
}

/*
 * jr_bsp - fixed-work-quantum mode: per window of quanta between two
 * barriers, the slowest rank's time over the median rank's, the
 * slowdown a bulk-synchronous program would see.
 */
static int jr_bsp(struct jr_survey *s)
{
	size_t w, nw = SIZE_MAX;
	double *v, *slow;
	int i, n = 0, *worst, best = 0;

	for (i = 0; i < s->nr; i++)
		if (s->r[i].ok && s->r[i].nr_win) {
			n++;
			if (s->r[i].nr_win < nw)
				nw = s->r[i].nr_win;
		}
	if (n < 2 || nw == SIZE_MAX)
		return 0;
	v = calloc(n, sizeof(*v));
	slow = calloc(nw, sizeof(*slow));
	worst = calloc(s->nr, sizeof(*worst));
	if (!v || !slow || !worst) {
		free(v);
		free(slow);
		free(worst);
		return -ENOMEM;
	}
	for (w = 0; w < nw; w++) {
		double max = 0, med;
		int k = 0, arg = 0;

		for (i = 0; i < s->nr; i++) {
			if (!s->r[i].ok || !s->r[i].nr_win)
				continue;
			v[k++] = s->r[i].win_ns[w];
			if (s->r[i].win_ns[w] > max) {
				max = s->r[i].win_ns[w];
				arg = i;
			}
		}
		med = jr_median(v, k);
		slow[w] = med > 0 ? max / med : 1;
		worst[arg]++;
		s->bsp_mean += slow[w] / nw;
	}
	qsort(slow, nw, sizeof(*slow), jr_dbl_cmp);
	s->bsp_p50 = jr_quantile(slow, nw, 0.5);
	s->bsp_p99 = jr_quantile(slow, nw, 0.99);
	s->bsp_max = slow[nw - 1];
	s->bsp_windows = nw;
	for (i = 0; i < s->nr; i++)
		if (worst[i] > worst[best])
			best = i;
	s->bsp_worst_rank = best;
	free(v);
	free(slow);
	free(worst);
	return 0;
}

/*
 * jr_host_clocks - the ranks of one host share its clock: each takes the
 * offset of its host's rank with the shortest round trip (rank 0 itself,
 * offset 0, on rank 0's host), not its own noisier estimate.  A rank whose
 * host has no rank that answered the clock rounds has no known offset.
 */
static void jr_host_clocks(struct jr_survey *s)
{
	int i, j, best;

	for (i = 0; i < s->nr; i++) {
		if (!s->r[i].ok)
			continue;
		best = i;
		for (j = 0; j < s->nr; j++)
			if (s->r[j].ok && s->r[j].rtt_ns >= 0 &&
			    !strcmp(s->r[j].host, s->r[i].host) &&
			    (s->r[best].rtt_ns < 0 ||
			     s->r[j].rtt_ns < s->r[best].rtt_ns))
				best = j;
		s->r[i].clock = s->r[best].rtt_ns >= 0;
		s->r[i].offset_ns = s->r[i].clock ? s->r[best].offset_ns : 0;
	}
}

/* jr_survey_analyse - after every rank was added or found missing */
int jr_survey_analyse(struct jr_survey *s)
{
	int ret;

	jr_host_clocks(s);
	ret = jr_outliers(s);

	if (!ret)
		ret = jr_cooc(s);
	if (!ret)
		ret = jr_bsp(s);
	return ret;
}
