// SPDX-License-Identifier: GPL-2.0
/*
 * jr_survey_out.c - jitread survey's fleet report as text and as JSON
 * (survey_version 1).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_text.h"
#include "core/jr_envelope.h"
#include "core/jr_report.h"
#include "core/jr_survey.h"

/* the figures compared across ranks, by index */
enum { JR_F_AVAIL, JR_F_P99, JR_F_P9999, JR_F_MAX, JR_NR_F };
static const char *const jr_fig_names[JR_NR_F] = { "avail_pct", "p99_ns",
						   "p99.99_ns", "max_ns" };
/* their names in the text, before the unit */
static const char *const jr_fig_text[JR_NR_F] = { "avail_pct", "p99", "p99.99",
						  "max" };

static double jr_fig(const struct jr_srank *r, const struct jr_scold *c, int f)
{
	switch (f) {
	case JR_F_AVAIL:
		return 100.0 * (1.0 - r->noise_share);
	case JR_F_P99:
		return (double)c->p99_ns;
	case JR_F_P9999:
		return (double)c->p9999_ns;
	default:
		return (double)r->max_ns;
	}
}

static int jr_cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * jr_dist - min, median, p90 and max of figure f over the ranks: how many
 * ranks had it, or -EIO
 */
static int jr_dist(const struct jr_survey *s, int f, double *q)
{
	double *v = calloc(s->nr > 0 ? (size_t)s->nr : 1, sizeof(*v));
	struct jr_scold c = { 0 };
	int i, n = 0;

	if (!v)
		return -EIO;
	for (i = 0; i < s->nr; i++) {
		if (!s->r[i].ok)
			continue;
		if ((f == JR_F_P99 || f == JR_F_P9999) &&
		    jr_survey_cold(s, &s->r[i], &c)) {
			free(v);
			return -EIO;
		}
		v[n++] = jr_fig(&s->r[i], &c, f);
	}
	qsort(v, n, sizeof(*v), jr_cmpd);
	if (n) {
		q[0] = v[0];
		q[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		q[2] = v[(9 * n + 9) / 10 - 1];
		q[3] = v[n - 1];
	}
	free(v);
	return n;
}

struct jr_noisy {
	double share;
	int rank;
};

/* jr_noisy_cmp - the noisier first, of two as noisy the lower rank */
static int jr_noisy_cmp(const void *a, const void *b)
{
	const struct jr_noisy *x = a, *y = b;

	if (x->share != y->share)
		return x->share < y->share ? 1 : -1;
	return x->rank - y->rank;
}

/*
 * jr_by_noise - the first want ranks that reported, noisiest first; *n
 * of them
 */
static int *jr_by_noise(const struct jr_survey *s, int want, int *n)
{
	struct jr_noisy *v = calloc(s->nr ? s->nr : 1, sizeof(*v));
	int *o = calloc(want > 0 ? want : 1, sizeof(*o)), i, k = 0;

	*n = 0;
	if (!v || !o) {
		free(v);
		free(o);
		return NULL;
	}
	for (i = 0; i < s->nr; i++)
		if (s->r[i].ok)
			v[k++] = (struct jr_noisy){ s->r[i].noise_share, i };
	qsort(v, k, sizeof(*v), jr_noisy_cmp);
	for (i = 0; i < k && i < want; i++)
		o[(*n)++] = v[i].rank;
	free(v);
	return o;
}

/*
 * jr_common - a source in the top sources of at least half the outliers:
 * how many outliers and how many other ranks have it there
 */
static bool jr_common(const struct jr_survey *s, uint32_t src, int *in_out,
		      int *in_rest)
{
	int i, k, outliers = 0;

	*in_out = *in_rest = 0;
	for (i = 0; i < s->nr; i++) {
		if (!s->r[i].ok)
			continue;
		outliers += s->r[i].outlier;
		for (k = 0; k < JR_SURVEY_TOP_SRC; k++)
			if (s->r[i].top[k] == src) {
				*(s->r[i].outlier ? in_out : in_rest) += 1;
				break;
			}
	}
	return outliers && 2 * *in_out >= outliers;
}

/* jr_first_seen - src is first named by outlier rank i, top slot k */
static bool jr_first_seen(const struct jr_survey *s, int i, int k)
{
	int j, m;

	for (j = 0; j <= i; j++)
		for (m = 0; m < JR_SURVEY_TOP_SRC; m++) {
			if (j == i && m == k)
				return true;
			if (s->r[j].ok && s->r[j].outlier &&
			    s->r[j].top[m] == s->r[i].top[k])
				return false;
		}
	return true;
}

static void jr_text_ranks(FILE *out, const struct jr_survey *s,
			  const struct jr_report_opts *u)
{
	const struct jr_strtab *t = &s->names;
	struct jr_scold c;
	char shown[160];
	int i, k;

	fprintf(out,
		"\n# per rank (%s)\n%-4s %-16s %4s %9s %10s %10s %10s "
		"%6s  %s\n",
		u->unit, "rank", "host", "cpu", "%avail", "p99", "p99.99",
		"max", "z", "top sources");
	for (i = 0; i < s->nr; i++) {
		const struct jr_srank *r = &s->r[i];

		if (!r->ok || jr_survey_cold(s, r, &c)) {
			fprintf(out, "%-4d %-16s  -   missing: ", i,
				r->host ?
					jr_text_safe(jr_strtab_str(t, r->host),
						     shown, sizeof(shown)) :
					"?");
			fprintf(out, "%s\n",
				r->ok ? "its figures could not be read back" :
					jr_text_safe(jr_strtab_str(t, r->why),
						     shown, sizeof(shown)));
			continue;
		}
		fprintf(out, "%-4d %-16s %4d %8.4f%%", i,
			jr_text_safe(jr_strtab_str(t, r->host), shown,
				     sizeof(shown)),
			r->cpu, jr_fig(r, &c, JR_F_AVAIL));
		for (k = JR_F_P99; k <= JR_F_MAX; k++)
			jr_dur_col(out, 10, jr_fig(r, &c, k), u->div);
		fprintf(out, " %6.1f ", r->z);
		for (k = 0; k < JR_SURVEY_TOP_SRC && r->top[k]; k++)
			fprintf(out, "%s%s", k ? ", " : " ",
				jr_text_safe(jr_strtab_str(t, r->top[k]), shown,
					     sizeof(shown)));
		fprintf(out, "%s\n", r->outlier ? "  OUTLIER" : "");
	}
}

/* struct jr_host_sum - a host's ranks, summed for its row */
struct jr_host_sum {
	uint64_t run, noise, max;
	int n;
	bool shown;
};

static void jr_text_hosts(FILE *out, const struct jr_survey *s,
			  const struct jr_report_opts *u)
{
	struct jr_host_sum *h = calloc(s->names.nr, sizeof(*h)), *x;
	char shown[160], head[16];
	int i;

	snprintf(head, sizeof(head), "max (%s)", u->unit);
	fprintf(out, "\n# per host\n%-16s %5s %9s %12s\n", "host", "ranks",
		"%avail", head);
	if (!h) {
		fprintf(out, "# out of memory\n");
		return;
	}
	for (i = 0; i < s->nr; i++) {
		if (!s->r[i].ok)
			continue;
		x = &h[s->r[i].host];
		x->n++;
		x->run += s->r[i].runtime_ns;
		x->noise += s->r[i].noise_ns;
		if (s->r[i].max_ns > x->max)
			x->max = s->r[i].max_ns;
	}
	/* each host with its first rank */
	for (i = 0; i < s->nr; i++) {
		x = &h[s->r[i].host];
		if (!s->r[i].ok || x->shown)
			continue;
		x->shown = true;
		fprintf(out, "%-16s %5d %8.4f%%",
			jr_text_safe(jr_strtab_str(&s->names, s->r[i].host),
				     shown, sizeof(shown)),
			x->n,
			x->run ? 100.0 * (1.0 - (double)x->noise / x->run) :
				 0.0);
		jr_dur_col(out, 12, (double)x->max, u->div);
		fprintf(out, "\n");
	}
	free(h);
}

static void jr_text_fleet(FILE *out, const struct jr_survey *s, int worst,
			  const struct jr_report_opts *u)
{
	int i, k, n, *o = jr_by_noise(s, worst, &n), in_o, in_r;
	const struct jr_hist *g = &s->fleet[JR_H_GAP];
	int d = u->div == 1.0 ? 0 : 3;
	char shown[160], name[24];
	double q[4], div;

	fprintf(out, "\n# over the ranks: min, median, p90, max\n");
	for (i = 0; i < JR_NR_F; i++) {
		if (jr_dist(s, i, q) <= 0)
			continue;
		/* the durations in u's unit, their names saying so */
		div = i == JR_F_AVAIL ? 1.0 : u->div;
		snprintf(name, sizeof(name), "%s%s%s", jr_fig_text[i],
			 i == JR_F_AVAIL ? "" : "_",
			 i == JR_F_AVAIL ? "" : u->unit);
		fprintf(out, "%-10s %14.4f %14.4f %14.4f %14.4f\n", name,
			q[0] / div, q[1] / div, q[2] / div, q[3] / div);
	}
	fprintf(out,
		"\n# all ranks' gaps merged: %" PRIu64
		" (the ranks' counts sum to %" PRIu64
		"), p99 %.*f %s, p99.99 %.*f %s, max %.*f %s\n",
		g->count, s->sum_counts[JR_H_GAP], d,
		jr_hist_percentile(g, 99.0) / u->div, u->unit, d,
		jr_hist_percentile(g, 99.99) / u->div, u->unit, d,
		(g->count ? g->max : 0) / u->div, u->unit);
	fprintf(out, "\n# worst ranks by noise share:");
	for (i = 0; o && i < n && i < worst; i++)
		fprintf(out, " %d (%.4f%%)", o[i],
			100.0 * s->r[o[i]].noise_share);
	fprintf(out,
		"\n# outliers (modified z-score > %.1f):", JR_SURVEY_OUTLIER_Z);
	for (i = 0, k = 0; i < s->nr; i++)
		if (s->r[i].ok && s->r[i].outlier)
			fprintf(out, "%s %d", k++ ? "," : "", i);
	fprintf(out, "%s\n", k ? "" : " none");
	for (i = 0; i < s->nr; i++)
		for (k = 0; s->r[i].ok && s->r[i].outlier &&
			    k < JR_SURVEY_TOP_SRC && s->r[i].top[k];
		     k++)
			if (jr_first_seen(s, i, k) &&
			    jr_common(s, s->r[i].top[k], &in_o, &in_r))
				fprintf(out,
					"# common to the outliers: %s (%d of them, %d other ranks)\n",
					jr_text_safe(
						jr_strtab_str(&s->names,
							      s->r[i].top[k]),
						shown, sizeof(shown)),
					in_o, in_r);
	free(o);
}

/*
 * jr_text_no_clock - the ranks whose clock rank 0 could not compare with
 * its own (no answer in the clock rounds, from them or their host): named,
 * as their timelines are left out of the noise that comes together
 */
static void jr_text_no_clock(FILE *out, const struct jr_survey *s)
{
	int i, n = 0;

	for (i = 0; i < s->nr; i++) {
		if (!s->r[i].ok || s->r[i].clock)
			continue;
		fprintf(out, "%s %d",
			n++ ? "," :
			      "# clocks not compared (no answer in the clock rounds), left out of noise together: rank",
			i);
	}
	if (n)
		fprintf(out, "\n");
}

/*
 * jr_survey_text - the fleet report; worst: how many ranks to name, u:
 * the unit of its durations
 */
void jr_survey_text(FILE *out, const struct jr_survey *s, int worst,
		    const struct jr_report_opts *u)
{
	int i, ok = 0;

	for (i = 0; i < s->nr; i++)
		ok += s->r[i].ok;
	fprintf(out, "# jitread survey: %d ranks, %d reported, mode %s\n",
		s->nr, ok, s->mode);
	jr_text_ranks(out, s, u);
	jr_text_hosts(out, s, u);
	jr_text_fleet(out, s, worst, u);
	jr_text_no_clock(out, s);
	if (s->cooc_bins)
		fprintf(out,
			"# noise together: gaps >= %.*f %s in %" PRIu64
			" 1 ms bins; %" PRIu64
			" bins shared by 2+ ranks, at most %" PRIu64
			" at once; pairs together %.2fx what independent ranks would give\n",
			u->div == 1.0 ? 0 : 3, s->cooc_ns / u->div, u->unit,
			s->cooc_bins, s->cooc_shared, s->cooc_max,
			s->cooc_ratio);
	if (s->bsp_windows)
		fprintf(out,
			"# BSP slowdown (slowest rank / median rank per window of %" PRIu64
			" windows): mean %.3f, p50 %.3f, p99 %.3f, max %.3f; most often slowest: rank %d\n",
			s->bsp_windows, s->bsp_mean, s->bsp_p50, s->bsp_p99,
			s->bsp_max, s->bsp_worst_rank);
}

/* jr_json_spooled - the rank's gap histogram, as spooled; 0 or -EIO */
static int jr_json_spooled(FILE *out, const struct jr_survey *s,
			   const struct jr_scold *r)
{
	char buf[4096];
	uint64_t done, n;

	for (done = 0; done < r->hist_len; done += n) {
		n = r->hist_len - done < sizeof(buf) ? r->hist_len - done :
						       sizeof(buf);
		if (jr_spool_get(&s->spool, r->hist_at + done, buf, n))
			return -EIO;
		fwrite(buf, 1, n, out);
	}
	return 0;
}

/*
 * jr_json_timeline - the rank's first gaps on rank 0's clock, for the
 * heat map: [ts_ns, dur_ns] pairs; 0 or -EIO
 */
static int jr_json_timeline(FILE *out, const struct jr_survey *s,
			    const struct jr_srank *r, const struct jr_scold *c)
{
	uint64_t i, n = c->nr_tl < JR_SURVEY_TL ? c->nr_tl : JR_SURVEY_TL;
	struct jr_sgap g[JR_SURVEY_TL];

	if (jr_spool_get(&s->spool, c->tl_at, g, n * sizeof(*g)))
		return -EIO;
	fprintf(out, ",\"timeline\":[");
	for (i = 0; i < n; i++)
		fprintf(out, "%s[%" PRId64 ",%" PRIu64 "]", i ? "," : "",
			jr_on_rank0(r, c, g[i].ts_ns), g[i].dur_ns);
	fprintf(out, "]");
	return 0;
}

static int jr_json_rank(FILE *out, const struct jr_survey *s, int rank)
{
	const struct jr_srank *r = &s->r[rank];
	const struct jr_strtab *t = &s->names;
	struct jr_scold c;
	int k;

	if (r->ok && jr_survey_cold(s, r, &c))
		return -EIO;
	fprintf(out, "{\"rank\":%d,\"ok\":%s,\"host\":", rank,
		r->ok ? "true" : "false");
	jr_json_str(out, jr_strtab_str(t, r->host));
	fprintf(out,
		",\"cpu\":%d,\"offset_ns\":%" PRId64 ",\"rtt_ns\":%" PRId64
		",\"clock\":%s",
		r->cpu, r->offset_ns, r->rtt_ns, r->clock ? "true" : "false");
	if (!r->ok) {
		fprintf(out, ",\"why\":");
		jr_json_str(out, jr_strtab_str(t, r->why));
		fprintf(out, "}");
		return 0;
	}
	fprintf(out, ",\"backend\":");
	jr_json_str(out, jr_strtab_str(t, r->backend));
	fprintf(out,
		",\"runtime_ns\":%" PRIu64 ",\"noise_ns\":%" PRIu64
		",\"gaps\":%" PRIu64,
		r->runtime_ns, r->noise_ns, c.gaps);
	for (k = 0; k < JR_NR_F; k++)
		fprintf(out, ",\"%s\":%.6f", jr_fig_names[k], jr_fig(r, &c, k));
	fprintf(out, ",\"z\":%.4f,\"outlier\":%s,\"top_sources\":[", r->z,
		r->outlier ? "true" : "false");
	for (k = 0; k < JR_SURVEY_TOP_SRC && r->top[k]; k++) {
		fprintf(out, "%s", k ? "," : "");
		jr_json_str(out, jr_strtab_str(t, r->top[k]));
	}
	fprintf(out, "],\"quantum_ns\":%" PRIu64 ",\"quanta\":%" PRIu64,
		c.quantum_ns, c.quanta);
	fprintf(out, ",\"gap\":");
	if (jr_json_spooled(out, s, &c) || jr_json_timeline(out, s, r, &c))
		return -EIO;
	fprintf(out, "}");
	return 0;
}

/* jr_survey_json - the fleet report as data; 0 or -EIO */
int jr_survey_json(FILE *out, const struct jr_survey *s, int worst)
{
	int i, h, n, got, *o = jr_by_noise(s, worst, &n), ret = 0;
	double q[4];

	fprintf(out, "{\"survey_version\":%d,", JR_SURVEY_VERSION);
	jr_envelope_json(out);
	fprintf(out, ",\"mode\":\"%s\",\"ranks\":[", s->mode);
	for (i = 0; !ret && i < s->nr; i++) {
		fprintf(out, "%s", i ? "," : "");
		ret = jr_json_rank(out, s, i);
	}
	fprintf(out, "],\"fleet\":{");
	for (h = 0; h < JR_H_NR; h++) {
		fprintf(out, "%s\"%s\":{\"sum_of_ranks\":%" PRIu64 ",\"hist\":",
			h ? "," : "", jr_hclass_name(h), s->sum_counts[h]);
		jr_json_hist(out, &s->fleet[h]);
		fprintf(out, "}");
	}
	fprintf(out, "},\"distribution\":{");
	for (i = 0; !ret && i < JR_NR_F; i++) {
		got = jr_dist(s, i, q);
		if (got <= 0)
			q[0] = q[1] = q[2] = q[3] = 0;
		ret = got < 0 ? got : 0;
		fprintf(out,
			"%s\"%s\":{\"min\":%.6f,\"median\":%.6f,\"p90\":%.6f,\"max\":%.6f}",
			i ? "," : "", jr_fig_names[i], q[0], q[1], q[2], q[3]);
	}
	fprintf(out, "},\"worst_ranks\":[");
	for (i = 0; o && i < n && i < worst; i++)
		fprintf(out, "%s%d", i ? "," : "", o[i]);
	fprintf(out,
		"],\"cooc\":{\"gap_ns\":%" PRIu64 ",\"bins\":%" PRIu64
		",\"shared\":%" PRIu64 ",\"max_ranks\":%" PRIu64
		",\"pair_ratio\":%.4f}",
		s->cooc_ns, s->cooc_bins, s->cooc_shared, s->cooc_max,
		s->cooc_ratio);
	fprintf(out,
		",\"bsp\":{\"windows\":%" PRIu64
		",\"mean\":%.4f,\"p50\":%.4f,\"p99\":%.4f,\"max\":%.4f,\"worst_rank\":%d}}\n",
		s->bsp_windows, s->bsp_mean, s->bsp_p50, s->bsp_p99, s->bsp_max,
		s->bsp_worst_rank);
	free(o);
	return ret || ferror(out) ? -EIO : 0;
}
