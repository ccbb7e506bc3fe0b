// SPDX-License-Identifier: GPL-2.0
/*
 * jr_report_out.c - machine-readable outputs: versioned JSON, CSV tables and
 * HdrHistogram .hgrm percentile distributions.  All values in ns unless a
 * field name says otherwise.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/jr_safe.h"
#include "common/jr_text.h"
#include "core/jr_envelope.h"
#include "core/jr_report.h"

/*
 * jr_json_str - a JSON string literal: valid UTF-8 as it is, control
 * characters as \u00XX, and each byte that is not valid UTF-8 as U+FFFD.
 */
void jr_json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		int n = jr_utf8_len(p);

		if (n > 1) {
			fwrite(p, 1, n, out);
			p += n;
			continue;
		}
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (n < 0)
			fputs("\\ufffd", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
		p++;
	}
	fputc('"', out);
}

/* jr_json_hist - one histogram: exact figures, percentiles and every slot. */
void jr_json_hist(FILE *out, const struct jr_hist *h)
{
	struct jr_hist_iter it;
	int i, n = 0;

	fprintf(out,
		"{\"count\": %" PRIu64 ", \"min_ns\": %" PRIu64
		", \"mean_ns\": %.3f, \"max_ns\": %" PRIu64
		", \"clamped\": %" PRIu64 ", \"percentiles_ns\": {",
		h->count, h->count ? h->min : 0, jr_hist_mean(h), h->max,
		h->clamped);
	for (i = 0; i < JR_NR_PCTS; i++)
		fprintf(out, "%s\"%g\": %" PRIu64, i ? ", " : "", jr_pcts[i],
			jr_hist_percentile(h, jr_pcts[i]));
	fprintf(out, "}, \"slots\": [");
	jr_hist_iter_init(&it, h);
	while (jr_hist_iter_next(&it))
		fprintf(out, "%s[%" PRIu64 ", %" PRIu64 "]", n++ ? ", " : "",
			it.value_hi, it.count);
	fprintf(out, "]}");
}

static void jr_json_timeline(FILE *out, const struct jr_cpu *c, uint64_t t0)
{
	uint32_t i;

	fprintf(out,
		",\n     \"timeline\": {\"origin_ns\": %" PRIu64
		", \"dropped\": %" PRIu64 ", \"gaps\": [",
		t0, c->tl_dropped);
	for (i = 0; i < c->nr_tl; i++)
		fprintf(out, "%s[%" PRIu64 ", %" PRIu64 ", \"%s\"]",
			i ? ", " : "", c->tl[i].ts_ns - t0, c->tl[i].dur_ns,
			jr_hclass_name(c->tl[i].cls));
	fprintf(out, "]}");
}

/*
 * jr_json_source_more - a source's rate, dominant period and what ran
 * inside it, then its closing brace.
 */
static void jr_json_source_more(FILE *out, const struct jr_source *s,
				uint64_t runtime_ns)
{
	uint64_t period;
	double share = jr_ia_period(s->ia, &period);
	int i;

	fprintf(out,
		", \"rate_hz\": %.6f, \"period_ns\": %" PRIu64
		", \"period_share\": %.4f, \"detail\": [",
		runtime_ns ? s->count / (runtime_ns / 1e9) : 0.0, period,
		share);
	for (i = 0; s->det && i < s->det->nr; i++) {
		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		jr_json_str(out, s->det->row[i].name);
		fprintf(out,
			", \"count\": %" PRIu64 ", \"total_ns\": %" PRIu64 "}",
			s->det->row[i].count, s->det->row[i].total_ns);
	}
	fprintf(out, "]}");
}

static void jr_json_cpu(FILE *out, const struct jr_cpu *c, int cpu, uint64_t t0)
{
	double avail = jr_cpu_avail_pct(c);
	char kinds[JR_ANOM_LEN];
	int h, i;

	fprintf(out,
		"    {\"cpu\": %d, \"summary\": {\"periods\": %" PRIu64
		", \"runtime_ns\": %" PRIu64 ", \"noise_ns\": %" PRIu64
		", \"avail_pct\": %.6f, \"max_single_ns\": %" PRIu64
		", \"resolution_ps\": %" PRIu64 ", \"lost_events\": %" PRIu64
		", \"stops\": %" PRIu64 ", \"events\": %" PRIu64
		", \"self_ns\": %" PRIu64 ", \"anomalies\": %" PRIu64
		", \"anomaly_kinds\": \"%s\"},\n",
		cpu, c->periods, c->runtime_ns, c->noise_ns, avail,
		c->max_gap_ns, c->resolution_ps, c->lost, c->stops, c->events,
		c->self_ns, c->anomalies,
		jr_anomaly_kinds(c->anomaly_mask, kinds, sizeof(kinds)));
	fprintf(out, "     \"classes\": {");
	for (h = 0; h < JR_H_NR; h++) {
		fprintf(out, "%s\n       \"%s\": ", h ? "," : "",
			jr_hclass_name(h));
		jr_json_hist(out, &c->hist[h]);
	}
	fprintf(out, "},\n     \"sources_folded\": %" PRIu64 ", \"sources\": [",
		c->src_folded);
	for (i = 0; i < c->nr_src; i++) {
		const struct jr_source *s = &c->src[i];

		fprintf(out, "%s\n       {\"source\": ", i ? "," : "");
		jr_json_str(out, s->key);
		fprintf(out,
			", \"class\": \"%s\", \"count\": %" PRIu64
			", \"total_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64
			", \"max_ns\": %" PRIu64 ", \"avg_ns\": %.3f",
			jr_hclass_name(s->hcls), s->count, s->total_ns,
			s->min_ns, s->max_ns, (double)s->total_ns / s->count);
		jr_json_source_more(out, s, c->runtime_ns);
	}
	fprintf(out, "],\n     \"detail_orphans\": %" PRIu64,
		c->pend ? c->pend->orphans : 0);
	jr_json_timeline(out, c, t0);
	fprintf(out, "}");
}

/* jr_json_side - one side's members: events, per-CPU and all-CPU data. */
int jr_json_side(FILE *out, const struct jr_model *m, const char *side,
		 const struct jr_report_opts *o)
{
	int cpu, h, n = 0;

	fprintf(out,
		"\"side\": \"%s\", \"events\": %" PRIu64 ", \"stops\": %" PRIu64
		",\n  \"cpus\": [\n",
		side, m->events, m->stops);
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		if (n++)
			fprintf(out, ",\n");
		jr_json_cpu(out, &m->cpu[cpu], cpu, m->t0_ns);
	}
	fprintf(out, "\n  ],\n  \"all_cpus\": {");
	for (h = 0; h < JR_H_NR; h++) {
		struct jr_hist all;

		if (jr_merge_cpus(m, o, h, &all)) {
			jr_hist_free(&all);
			return -ENOMEM;
		}
		fprintf(out, "%s\n    \"%s\": ", h ? "," : "",
			jr_hclass_name(h));
		jr_json_hist(out, &all);
		jr_hist_free(&all);
	}
	fprintf(out, "}");
	return 0;
}

/*
 * jr_report_json_doc - the whole report.  The primary side's members sit
 * at the top level (as in file_version 1); extra() adds the user side,
 * the sampler, the pipeline and the comparison.
 */
int jr_report_json_doc(FILE *out, const char *mode, const struct jr_model *m,
		       const char *side, const struct jr_sysinfo *sys,
		       const struct jr_report_opts *o,
		       int (*extra)(FILE *out, void *ctx), void *ctx)
{
	char det[sizeof(sys->params)];

	fprintf(out, "{\n  \"file_version\": %d, \"mode\": \"%s\",\n  ",
		JR_JSON_VERSION, mode);
	jr_envelope_json(out);
	fprintf(out, ",\n");
	fprintf(out, "  \"system\": {\"kernel\": ");
	jr_json_str(out, sys->kernel);
	fprintf(out, ", \"cmdline\": ");
	jr_json_str(out, sys->cmdline);
	fprintf(out, ", \"cpu_model\": ");
	jr_json_str(out, sys->cpu_model);
	fprintf(out, ", \"tsc_khz\": %" PRIu64 ", \"module_params\": ",
		sys->tsc_khz);
	jr_json_str(out, sys->params);
	fprintf(out, ", \"details\": ");
	jr_json_str(out, jr_report_details(sys, o, det, sizeof(det)));
	fprintf(out, ", \"jitread_argv\": ");
	jr_json_str(out, sys->argv);
	fprintf(out, "},\n  \"precision\": %d, ", m->precision);
	if (jr_json_side(out, m, side, o))
		return -ENOMEM;
	if (extra && extra(out, ctx))
		return -ENOMEM;
	fprintf(out, "\n}\n");
	return ferror(out) ? -EIO : 0;
}

int jr_report_json(FILE *out, const struct jr_model *m,
		   const struct jr_sysinfo *sys, const struct jr_report_opts *o)
{
	return jr_report_json_doc(out, "kernel", m, "kernel", sys, o, NULL,
				  NULL);
}

/* jr_open_in - name in the trusted directory dfd, through jr_safe. */
static FILE *jr_open_in(const struct jr_out_dir *d, const char *name,
			struct jr_err *e)
{
	int fd = jr_safe_file_at(d->fd, d->path, name, e);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		jr_fail(e, -errno, "%s/%s: %s", d->path, name, strerror(errno));
		close(fd);
	}
	return f;
}

/* jr_csv_str - an RFC 4180 field: quoted, inner quotes doubled. */
static void jr_csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int jr_report_csv(const struct jr_out_dir *d, const struct jr_model *m,
		  const struct jr_report_opts *o, struct jr_err *e)
{
	FILE *p = jr_open_in(d, "percentiles.csv", e);
	FILE *s = p ? jr_open_in(d, "sources.csv", e) : NULL;
	FILE *u = s ? jr_open_in(d, "summary.csv", e) : NULL;
	int cpu, h, i, ret = 0;

	if (!p || !s || !u) {
		ret = -EIO;
		goto out;
	}
	fprintf(p, "cpu,class,count,mean_ns,min_ns");
	for (i = 0; i < JR_NR_PCTS; i++)
		fprintf(p, ",p%g_ns", jr_pcts[i]);
	fprintf(p, ",max_ns\n");
	fprintf(s, "cpu,source,class,count,total_ns,min_ns,max_ns,avg_ns,"
		   "rate_hz,period_ns,period_share\n");
	fprintf(u,
		"cpu,periods,runtime_ns,noise_ns,max_single_ns,resolution_ps,lost_"
		"events,stops,self_ns,anomalies\n");
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];

		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		for (h = 0; h < JR_H_NR; h++) {
			const struct jr_hist *hs = &c->hist[h];

			fprintf(p, "%d,%s,%" PRIu64 ",%.3f,%" PRIu64, cpu,
				jr_hclass_name(h), hs->count, jr_hist_mean(hs),
				hs->count ? hs->min : 0);
			for (i = 0; i < JR_NR_PCTS; i++)
				fprintf(p, ",%" PRIu64,
					jr_hist_percentile(hs, jr_pcts[i]));
			fprintf(p, ",%" PRIu64 "\n", hs->max);
		}
		for (i = 0; i < c->nr_src; i++) {
			const struct jr_source *x = &c->src[i];
			uint64_t period;
			double share;

			fprintf(s, "%d,", cpu);
			jr_csv_str(s, x->key);
			share = jr_ia_period(x->ia, &period);
			fprintf(s,
				",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%.3f,%.6f,%" PRIu64 ",%.4f\n",
				jr_hclass_name(x->hcls), x->count, x->total_ns,
				x->min_ns, x->max_ns,
				(double)x->total_ns / x->count,
				c->runtime_ns ?
					x->count / (c->runtime_ns / 1e9) :
					0.0,
				period, share);
		}
		fprintf(u,
			"%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 "\n",
			cpu, c->periods, c->runtime_ns, c->noise_ns,
			c->max_gap_ns, c->resolution_ps, c->lost, c->stops,
			c->self_ns, c->anomalies);
	}
	if (ferror(p) || ferror(s) || ferror(u))
		ret = jr_fail(e, -EIO, "%s: write failed", d->path);
out:
	if (p && fclose(p) && !ret)
		ret = jr_fail(e, -EIO, "%s: write failed", d->path);
	if (s && fclose(s) && !ret)
		ret = jr_fail(e, -EIO, "%s: write failed", d->path);
	if (u && fclose(u) && !ret)
		ret = jr_fail(e, -EIO, "%s: write failed", d->path);
	return ret;
}

/*
 * jr_write_hgrm - one histogram in HdrHistogram's percentile-distribution
 * text format, a row per recorded slot: the slot's highest value (never
 * above the true max), the fraction of values at or below it, the count
 * so far and 1/(1-fraction).
 */
static int jr_write_hgrm(FILE *f, const struct jr_hist *h,
			 const struct jr_report_opts *o)
{
	struct jr_hist_iter it;
	long double var = 0;

	fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile",
		"TotalCount", "1/(1-Percentile)");
	jr_hist_iter_init(&it, h);
	while (jr_hist_iter_next(&it)) {
		double frac = (double)it.cumulative / h->count;
		uint64_t v = it.value_hi > h->max ? h->max : it.value_hi;
		double mid = (it.value_lo + v) / 2.0 - jr_hist_mean(h);

		var += (long double)mid * mid * it.count;
		if (it.cumulative == h->count)
			fprintf(f, "%12.3f %2.12f %10" PRIu64 " %14s\n",
				v / o->div, 1.0, it.cumulative, "inf");
		else
			fprintf(f, "%12.3f %2.12f %10" PRIu64 " %14.2f\n",
				v / o->div, frac, it.cumulative,
				1.0 / (1.0 - frac));
	}
	fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n",
		jr_hist_mean(h) / o->div,
		h->count ? (double)sqrtl(var / h->count) / o->div : 0.0);
	fprintf(f, "#[Max     = %12.3f, Total count    = %12" PRIu64 "]\n",
		h->max / o->div, h->count);
	fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n",
		JR_HIST_MAX_LOG2 - h->sub_mag + 1, 1 << h->sub_mag);
	return ferror(f) ? -EIO : 0;
}

int jr_report_hgrm(const struct jr_out_dir *d, const struct jr_model *m,
		   const struct jr_report_opts *o, struct jr_err *e)
{
	char name[64];
	int cpu, h, ret;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		for (h = 0; h < JR_H_NR; h++) {
			const struct jr_hist *hs = &m->cpu[cpu].hist[h];
			FILE *f;
			int i;

			if (!hs->count)
				continue;
			snprintf(name, sizeof(name), "cpu%d-%s.hgrm", cpu,
				 jr_hclass_name(h));
			for (i = 0; name[i]; i++)
				if (name[i] == ':')
					name[i] = '-';
			f = jr_open_in(d, name, e);
			if (!f)
				return -EIO;
			ret = jr_write_hgrm(f, hs, o);
			if (fclose(f) && !ret)
				ret = -EIO;
			if (ret)
				return jr_fail(e, ret, "%s/%s: write failed",
					       d->path, name);
		}
	}
	return 0;
}
