// SPDX-License-Identifier: GPL-2.0
/*
 * jr_report.c - the text report: percentile tables in the LMAX
 * perf-workshop layout, an rtla-style bucket table, the per-CPU noise
 * sources and the per-CPU summary.  Values are kept in ns and divided by
 * the unit only here.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/jr_parse.h"
#include "common/jr_text.h"
#include "core/jr_report.h"

const double jr_pcts[JR_NR_PCTS] = { 50, 90, 99, 99.9, 99.99, 99.999, 99.9999 };

bool jr_cpu_wanted(const struct jr_model *m, const struct jr_report_opts *o,
		   int cpu)
{
	if (cpu >= m->nr_cpus || !m->cpu[cpu].seen)
		return false;
	return !o->cpu_set || (cpu < JR_MAX_CPUS && o->cpu_set[cpu]);
}

/* jr_merge_cpus - one class's histogram over every reported CPU. */
int jr_merge_cpus(const struct jr_model *m, const struct jr_report_opts *o,
		  int h, struct jr_hist *all)
{
	int cpu, ret;

	jr_hist_init(all, m->precision);
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		ret = jr_hist_merge(all, &m->cpu[cpu].hist[h]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * jr_dur_col - ns in the unit of div ns, right-aligned in width after a
 * space: whole ns, or to the ns in us and ms
 */
void jr_dur_col(FILE *out, int width, double ns, double div)
{
	fprintf(out, " %*.*f", width, div == 1.0 ? 0 : 3, ns / div);
}

static void jr_val(FILE *out, const struct jr_report_opts *o, double ns)
{
	jr_dur_col(out, 10, ns, o->div);
}

/* jr_pct_header - the percentile table's column heads. */
void jr_pct_header(FILE *out, const char *c1, const char *c2, int w2)
{
	char head[16];
	int i;

	fprintf(out, "%-4s %-*s %10s %10s", c1, w2, c2, "mean", "min");
	for (i = 0; i < JR_NR_PCTS; i++) {
		snprintf(head, sizeof(head), "%g%%", jr_pcts[i]);
		fprintf(out, " %10s", head);
	}
	fprintf(out, " %10s %10s\n", "max", "count");
}

/* jr_pct_row - one line of the percentile table. */
void jr_pct_row(FILE *out, const struct jr_report_opts *o, const char *label,
		const char *name, int w2, const struct jr_hist *hs)
{
	int i;

	fprintf(out, "%-4s %-*s", label, w2, name);
	jr_val(out, o, jr_hist_mean(hs));
	jr_val(out, o, hs->count ? (double)hs->min : 0);
	for (i = 0; i < JR_NR_PCTS; i++)
		jr_val(out, o, jr_hist_percentile(hs, jr_pcts[i]));
	jr_val(out, o, (double)hs->max);
	fprintf(out, " %10" PRIu64 "\n", hs->count);
}

static void jr_pct_table(FILE *out, const struct jr_model *m,
			 const struct jr_report_opts *o)
{
	char label[16];
	int cpu, h;

	fprintf(out, "\n# percentiles per CPU and class (%s)\n", o->unit);
	jr_pct_header(out, "CPU", "class", 10);
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		for (h = 0; h < JR_H_NR; h++) {
			const struct jr_hist *hs = &m->cpu[cpu].hist[h];

			if (!hs->count && !o->with_zeros)
				continue;
			snprintf(label, sizeof(label), "%d", cpu);
			jr_pct_row(out, o, label, jr_hclass_name(h), 10, hs);
		}
	}
	for (h = 0; h < JR_H_NR; h++) {
		struct jr_hist all;

		if (jr_merge_cpus(m, o, h, &all) ||
		    (!all.count && !o->with_zeros)) {
			jr_hist_free(&all);
			continue;
		}
		jr_pct_row(out, o, "all", jr_hclass_name(h), 10, &all);
		jr_hist_free(&all);
	}
}

/* jr_bucket_summary - the bucket table's last rows: over, count, min... */
static void jr_bucket_summary(FILE *out, const struct jr_model *m,
			      const struct jr_report_opts *o)
{
	int cpu;

	fprintf(out, "%-10s", "over:");
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const uint64_t *l = m->cpu[cpu].lin[JR_H_GAP];

		if (jr_cpu_wanted(m, o, cpu))
			fprintf(out, " %10" PRIu64, l ? l[m->entries] : 0);
	}
	fprintf(out, "\n%-10s", "count:");
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (jr_cpu_wanted(m, o, cpu))
			fprintf(out, " %10" PRIu64,
				m->cpu[cpu].hist[JR_H_GAP].count);
	fprintf(out, "\n%-10s", "min:");
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (jr_cpu_wanted(m, o, cpu)) {
			const struct jr_hist *hs = &m->cpu[cpu].hist[JR_H_GAP];

			jr_val(out, o, hs->count ? (double)hs->min : 0);
		}
	fprintf(out, "\n%-10s", "avg:");
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (jr_cpu_wanted(m, o, cpu))
			jr_val(out, o,
			       jr_hist_mean(&m->cpu[cpu].hist[JR_H_GAP]));
	fprintf(out, "\n%-10s", "max:");
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (jr_cpu_wanted(m, o, cpu))
			jr_val(out, o, (double)m->cpu[cpu].hist[JR_H_GAP].max);
	fprintf(out, "\n");
}

/* jr_bucket_table - gap counts per linear bucket, one column per CPU. */
static void jr_bucket_table(FILE *out, const struct jr_model *m,
			    const struct jr_report_opts *o)
{
	/* whole units where the bucket is, as 1 us is in us */
	int dec = fmod((double)m->bucket_ns, o->div) == 0 ? 0 : 3;
	int cpu, b;

	fprintf(out, "\n# gap histogram: bucket %.3f %s, %d entries\n",
		m->bucket_ns / o->div, o->unit, m->entries);
	if (!o->no_index)
		fprintf(out, "%-10s", "Index");
	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (jr_cpu_wanted(m, o, cpu))
			fprintf(out, "    CPU-%03d", cpu);
	fprintf(out, "\n");
	for (b = 0; b < m->entries; b++) {
		bool any = false;

		for (cpu = 0; cpu < m->nr_cpus; cpu++)
			if (jr_cpu_wanted(m, o, cpu) &&
			    m->cpu[cpu].lin[JR_H_GAP] &&
			    m->cpu[cpu].lin[JR_H_GAP][b])
				any = true;
		if (!any && !o->with_zeros)
			continue;
		if (!o->no_index)
			fprintf(out, "%-10.*f", dec, b * m->bucket_ns / o->div);
		for (cpu = 0; cpu < m->nr_cpus; cpu++) {
			const uint64_t *l = m->cpu[cpu].lin[JR_H_GAP];

			if (jr_cpu_wanted(m, o, cpu))
				fprintf(out, " %10" PRIu64, l ? l[b] : 0);
		}
		fprintf(out, "\n");
	}
	if (!o->no_summary)
		jr_bucket_summary(out, m, o);
}

/* jr_noise_base - what "% of noise" is a share of. */
static uint64_t jr_noise_base(const struct jr_cpu *c)
{
	uint64_t sum = 0;
	int i;

	if (c->noise_ns)
		return c->noise_ns;
	for (i = 0; i < c->nr_src; i++)
		sum += c->src[i].total_ns;
	return sum;
}

/* jr_period_str - "4.00ms 92%", the dominant period and its share. */
static const char *jr_period_str(const struct jr_source *s, char *buf,
				 size_t len)
{
	uint64_t p;
	double share = jr_ia_period(s->ia, &p);

	if (!p)
		return "-";
	jr_text_dur(p, buf, len);
	snprintf(buf + strlen(buf), len - strlen(buf), " %.0f%%",
		 100.0 * share);
	return buf;
}

/* jr_source_detail - the rows of what ran inside s, indented under it. */
static void jr_source_detail(FILE *out, const struct jr_source *s,
			     const struct jr_report_opts *o)
{
	int i;

	for (i = 0; s->det && i < s->det->nr; i++) {
		const struct jr_detail_row *d = &s->det->row[i];
		char name[4 * sizeof(d->name)];

		fprintf(out, "  %-30s %10" PRIu64 " %12.*f %32s %6.2f%%\n",
			jr_text_safe(d->name, name, sizeof(name)), d->count,
			o->div == 1.0 ? 0 : 3, d->total_ns / o->div, "",
			s->total_ns ? 100.0 * d->total_ns / s->total_ns : 0.0);
	}
}

static void jr_sources(FILE *out, const struct jr_model *m,
		       const struct jr_report_opts *o)
{
	int cpu, i;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];
		double secs;
		uint64_t base;

		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		base = jr_noise_base(c);
		secs = c->runtime_ns / 1e9;
		fprintf(out, "\n# CPU %d noise sources, by total (%s)\n", cpu,
			o->unit);
		if (c->src_folded)
			fprintf(out,
				"# %" PRIu64
				" events past %d sources are filed "
				"by name (thread:comm[*]) or past %d as "
				"CLASS:other[*]\n",
				c->src_folded, JR_MAX_SOURCES,
				JR_MAX_SOURCES_NAMED);
		fprintf(out,
			"# indented: what ran inside (%%: of the source)\n");
		fprintf(out, "%-32s %10s %12s %10s %10s %10s %7s %9s %s\n",
			"source", "count", "total", "min", "max", "avg",
			"%noise", "rate/s", "period");
		for (i = 0; i < c->nr_src; i++) {
			const struct jr_source *s = &c->src[i];
			char key[4 * sizeof(s->key)], per[32];

			fprintf(out, "%-32s %10" PRIu64 " %12.*f",
				jr_text_safe(s->key, key, sizeof(key)),
				s->count, o->div == 1.0 ? 0 : 3,
				s->total_ns / o->div);
			jr_val(out, o, (double)s->min_ns);
			jr_val(out, o, (double)s->max_ns);
			jr_val(out, o, (double)s->total_ns / s->count);
			fprintf(out, " %6.2f%% %9.1f %s\n",
				base ? 100.0 * s->total_ns / base : 0.0,
				secs > 0 ? s->count / secs : 0.0,
				jr_period_str(s, per, sizeof(per)));
			jr_source_detail(out, s, o);
		}
	}
}

static void jr_summary(FILE *out, const struct jr_model *m,
		       const struct jr_report_opts *o)
{
	int cpu;

	fprintf(out, "\n# per-CPU summary (%s)\n", o->unit);
	fprintf(out, "%-4s %8s %14s %12s %9s %12s %10s %8s %6s %12s %9s\n",
		"CPU", "periods", "runtime", "noise", "%avail", "max-single",
		"res-ps", "lost", "stops", "self", "anomalies");
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];
		char pct[JR_AVAIL_LEN];

		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		fprintf(out, "%-4d %8" PRIu64 " %14.*f %12.*f %9s ", cpu,
			c->periods, o->div == 1.0 ? 0 : 3,
			c->runtime_ns / o->div, o->div == 1.0 ? 0 : 3,
			c->noise_ns / o->div,
			jr_cpu_avail_str(c, pct, sizeof(pct)));
		fprintf(out,
			"%12.*f %10" PRIu64 " %8" PRIu64 " %6" PRIu64
			" %12.*f %9" PRIu64 "\n",
			o->div == 1.0 ? 0 : 3, c->max_gap_ns / o->div,
			c->resolution_ps, c->lost, c->stops,
			o->div == 1.0 ? 0 : 3, c->self_ns / o->div,
			c->anomalies);
	}
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];
		char kinds[JR_ANOM_LEN];

		if (jr_cpu_wanted(m, o, cpu) && c->anomalies)
			fprintf(out,
				"# CPU %d: jitmod counted %" PRIu64
				" measurement anomalies (%s): gaps near them may be misfiled\n",
				cpu, c->anomalies,
				jr_anomaly_kinds(c->anomaly_mask, kinds,
						 sizeof(kinds)));
	}
}

/*
 * jr_sys_details - the details jitmod named in this run, from its
 * "details" parameter ("work,timer,hrtimer,tick"); "" when it names none
 * (a jitmod without jitmod:detail, or a kernel without the tracepoints).
 */
static const char *jr_sys_details(const struct jr_sysinfo *sys, char *buf,
				  size_t len)
{
	if (!jr_param_value(sys->params, "details", buf, len))
		buf[0] = '\0';
	return buf;
}

/* jr_has_word - whether the comma-separated list has word. */
static bool jr_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/*
 * jr_report_details - the details a report's side named: the BPF
 * classifier's for the user side (o->details), else jitmod's.
 */
const char *jr_report_details(const struct jr_sysinfo *sys,
			      const struct jr_report_opts *o, char *buf,
			      size_t len)
{
	if (!o->details)
		return jr_sys_details(sys, buf, len);
	snprintf(buf, len, "%s", o->details);
	return buf;
}

void jr_report_text(FILE *out, const struct jr_model *m,
		    const struct jr_sysinfo *sys,
		    const struct jr_report_opts *o)
{
	uint64_t lost = 0;
	int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		if (jr_cpu_wanted(m, o, cpu))
			lost += m->cpu[cpu].lost;
	if (!o->no_header) {
		char kernel[4 * sizeof(sys->kernel)];
		char params[4 * sizeof(sys->params)];
		char det[sizeof(sys->params)];

		fprintf(out, "# jitread report; times in %s\n", o->unit);
		if (o->title)
			fprintf(out, "# %s\n", o->title);
		/* a recording's header may come from anywhere */
		fprintf(out, "# kernel %s, ",
			jr_text_safe(sys->kernel, kernel, sizeof(kernel)));
		/* attach reads no TSC, nor does a report of its run */
		if (sys->tsc_khz)
			fprintf(out, "TSC %" PRIu64 " kHz", sys->tsc_khz);
		else
			fprintf(out, "TSC not read");
		fprintf(out, ", jitmod %s\n",
			sys->params[0] ? jr_text_safe(sys->params, params,
						      sizeof(params)) :
					 "not loaded");
		jr_report_details(sys, o, det, sizeof(det));
		fprintf(out, "# details named: %s%s\n",
			det[0] ? jr_text_safe(det, params, sizeof(params)) :
				 "none",
			jr_has_word(det, "ipi") ?
				"" :
				"; IPI senders are not named");
		fprintf(out, "# events %" PRIu64 ", lost %" PRIu64 "%s\n",
			m->events, lost,
			lost ? " (the ring buffer overflowed: raise its size)" :
			       "");
	}
	jr_pct_table(out, m, o);
	if (!o->no_gaps)
		jr_bucket_table(out, m, o);
	jr_sources(out, m, o);
	if (!o->no_summary)
		jr_summary(out, m, o);
}
