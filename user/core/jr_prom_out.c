// SPDX-License-Identifier: GPL-2.0
/*
 * jr_prom_out.c - write the metrics, in the text format 0.0.4 or in
 * OpenMetrics 1.0 (which names counter families without "_total", gives
 * units and ends with "# EOF").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/jr_prom.h"

const uint64_t jr_prom_le_ns[JR_PROM_NR_LE] = {
	100,	 250,	   500,	     1000,     2500,	  5000,	   10000,
	25000,	 50000,	   100000,   250000,   500000,	  1000000, 2500000,
	5000000, 10000000, 25000000, 50000000, 100000000,
};

/* the same bounds as le="..." values, in seconds */
static const char *const jr_prom_le[JR_PROM_NR_LE] = {
	"1e-07",   "2.5e-07", "5e-07",	"1e-06",   "2.5e-06", "5e-06", "1e-05",
	"2.5e-05", "5e-05",   "0.0001", "0.00025", "0.0005",  "0.001", "0.0025",
	"0.005",   "0.01",    "0.025",	"0.05",	   "0.1",
};

enum jr_ptype { JR_P_COUNTER, JR_P_GAUGE, JR_P_HIST, JR_P_INFO };

/*
 * jr_prom_family - a family's HELP and TYPE (and UNIT in OpenMetrics);
 * name is the family's, without "_total" or "_info".
 */
static void jr_prom_family(struct jr_buf *b, bool om, const char *name,
			   enum jr_ptype t, const char *unit, const char *help)
{
	static const char *const types[] = { "counter", "gauge", "histogram",
					     "info" };
	const char *sfx = "", *type = types[t];

	if (!om && t == JR_P_COUNTER)
		sfx = "_total";
	if (!om && t == JR_P_INFO) {
		sfx = "_info";
		type = "gauge";
	}
	jr_buf_printf(b, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help,
		      name, sfx, type);
	if (om && unit)
		jr_buf_printf(b, "# UNIT %s %s\n", name, unit);
}

/*
 * jr_prom_value - a label value, escaped as both formats want; bytes
 * outside printable ASCII become '?', so the text stays valid UTF-8.
 */
static void jr_prom_value(struct jr_buf *b, const char *s)
{
	char c;

	for (; *s; s++) {
		c = *s;
		if (c == '\\' || c == '"')
			jr_buf_put(b, "\\", 1);
		if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e)
			c = '?';
		jr_buf_put(b, &c, 1);
	}
}

static void jr_prom_secs(struct jr_buf *b, const char *name, int cpu,
			 const char *cls, long double ns)
{
	jr_buf_printf(b, "%s{cpu=\"%d\"", name, cpu);
	if (cls)
		jr_buf_printf(b, ",class=\"%s\"", cls);
	jr_buf_printf(b, "} %.9Lf\n", ns / 1e9L);
}

static void jr_prom_count(struct jr_buf *b, const char *name, int cpu,
			  const char *cls, uint64_t n)
{
	jr_buf_printf(b, "%s{cpu=\"%d\"", name, cpu);
	if (cls)
		jr_buf_printf(b, ",class=\"%s\"", cls);
	jr_buf_printf(b, "} %" PRIu64 "\n", n);
}

/* jr_prom_hist - one classic histogram; a slot counts where it begins */
static void jr_prom_hist(struct jr_buf *b, int cpu, const char *cls,
			 const struct jr_hist *h)
{
	const char *n = "jitread_gap_duration_seconds";
	struct jr_hist_iter it;
	uint64_t below = 0;
	bool more;
	int i;

	jr_hist_iter_init(&it, h);
	more = h->counts && jr_hist_iter_next(&it);
	for (i = 0; i < JR_PROM_NR_LE; i++) {
		while (more && it.value_lo <= jr_prom_le_ns[i]) {
			below = it.cumulative;
			more = jr_hist_iter_next(&it);
		}
		jr_buf_printf(
			b,
			"%s_bucket{cpu=\"%d\",class=\"%s\",le=\"%s\"} %" PRIu64
			"\n",
			n, cpu, cls, jr_prom_le[i], below);
	}
	jr_buf_printf(b,
		      "%s_bucket{cpu=\"%d\",class=\"%s\",le=\"+Inf\"} %" PRIu64
		      "\n",
		      n, cpu, cls, h->count);
	jr_buf_printf(b, "%s_sum{cpu=\"%d\",class=\"%s\"} %.9Lf\n", n, cpu, cls,
		      h->sum / 1e9L);
	jr_buf_printf(b, "%s_count{cpu=\"%d\",class=\"%s\"} %" PRIu64 "\n", n,
		      cpu, cls, h->count);
}

static void jr_prom_source(struct jr_buf *b, const char *name, int cpu,
			   const char *kind, const char *src, bool secs,
			   uint64_t v)
{
	jr_buf_printf(b, "%s{cpu=\"%d\",kind=\"", name, cpu);
	jr_prom_value(b, kind);
	jr_buf_printf(b, "\",source=\"");
	jr_prom_value(b, src);
	if (secs)
		jr_buf_printf(b, "\"} %.9f\n", v / 1e9);
	else
		jr_buf_printf(b, "\"} %" PRIu64 "\n", v);
}

static void jr_prom_sources(struct jr_buf *b, const struct jr_prom *p,
			    const struct jr_model *m, bool secs)
{
	const char *name = secs ? "jitread_source_noise_seconds_total" :
				  "jitread_source_events_total";
	int cpu, i;

	for (cpu = 0; cpu < m->nr_cpus && cpu < p->nr_cpus; cpu++) {
		const struct jr_prom_cpu *pc = &p->cpu[cpu];

		if (!m->cpu[cpu].seen)
			continue;
		for (i = 0; i < pc->nr_top; i++) {
			const struct jr_prom_series *s = &pc->top[i];

			jr_prom_source(b, name, cpu, s->l.kind, s->l.name, secs,
				       secs ? s->l.ns - s->base_ns :
					      s->l.n - s->base_n);
		}
		jr_prom_source(b, name, cpu, "other", "other", secs,
			       secs ? pc->other_ns : pc->other_n);
	}
}

/* jr_prom_per_cpu - a counter or gauge family with one value per CPU */
static void jr_prom_per_cpu(struct jr_buf *b, const struct jr_model *m,
			    const char *name, int what)
{
	int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];

		if (!c->seen)
			continue;
		if (what == 0)
			jr_prom_secs(b, name, cpu, NULL, c->runtime_ns);
		else if (what == 1)
			jr_prom_count(b, name, cpu, NULL, c->lost);
		else if (what == 2)
			jr_prom_count(b, name, cpu, NULL, c->periods);
		else if (c->runtime_ns)
			jr_buf_printf(b, "%s{cpu=\"%d\"} %.9f\n", name, cpu,
				      jr_cpu_avail_pct(c) / 100.0);
	}
}

/* jr_prom_per_class - per CPU and noise class (not "gap") */
static void jr_prom_per_class(struct jr_buf *b, const struct jr_model *m,
			      const char *name, bool secs)
{
	int cpu, h;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];

		if (!c->seen)
			continue;
		for (h = JR_H_GAP + 1; h < JR_H_NR; h++) {
			if (secs)
				jr_prom_secs(b, name, cpu, jr_hclass_name(h),
					     c->cls_ns[h]);
			else
				jr_prom_count(b, name, cpu, jr_hclass_name(h),
					      c->cls_gaps[h]);
		}
		if (secs)
			jr_prom_secs(b, name, cpu, "unseen", c->unseen_ns);
	}
}

static void jr_prom_hists(struct jr_buf *b, const struct jr_model *m)
{
	int cpu, h;

	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		for (h = 0; m->cpu[cpu].seen && h < JR_H_NR; h++)
			jr_prom_hist(b, cpu, jr_hclass_name(h),
				     &m->cpu[cpu].hist[h]);
}

/* jr_prom_write - the whole exposition, after jr_prom_update() */
void jr_prom_write(const struct jr_prom *p, const struct jr_model *m, bool om,
		   struct jr_buf *b)
{
	jr_prom_family(b, om, "jitread_build", JR_P_INFO, NULL,
		       "jitread's version, its sampler and the kernel.");
	jr_buf_printf(b, "jitread_build_info{version=\"");
	jr_prom_value(b, p->info.version);
	jr_buf_printf(b, "\",backend=\"");
	jr_prom_value(b, p->info.backend);
	jr_buf_printf(b, "\",kernel=\"");
	jr_prom_value(b, p->info.kernel);
	jr_buf_printf(b, "\"} 1\n");
	jr_prom_family(b, om, "jitread_sampled_seconds", JR_P_COUNTER,
		       "seconds", "Time the sampler ran, per CPU.");
	jr_prom_per_cpu(b, m, "jitread_sampled_seconds_total", 0);
	jr_prom_family(
		b, om, "jitread_noise_seconds", JR_P_COUNTER, "seconds",
		"Gaps in the sampled time, by the class they were filed under; unseen: the summaries' noise whose gaps were not read.");
	jr_prom_per_class(b, m, "jitread_noise_seconds_total", true);
	jr_prom_family(
		b, om, "jitread_gaps", JR_P_COUNTER, NULL,
		"Gaps above the threshold, by the class they were filed under.");
	jr_prom_per_class(b, m, "jitread_gaps_total", false);
	jr_prom_family(
		b, om, "jitread_available_ratio", JR_P_GAUGE, NULL,
		"Share of the sampled time the sampler had, since the start.");
	jr_prom_per_cpu(b, m, "jitread_available_ratio", 3);
	jr_prom_family(b, om, "jitread_periods", JR_P_COUNTER, NULL,
		       "Sampling periods summarised.");
	jr_prom_per_cpu(b, m, "jitread_periods_total", 2);
	jr_prom_family(b, om, "jitread_source_noise_seconds", JR_P_COUNTER,
		       "seconds",
		       "Noise by source: the top sources per CPU, then other.");
	jr_prom_sources(b, p, m, true);
	jr_prom_family(
		b, om, "jitread_source_events", JR_P_COUNTER, NULL,
		"Events by source: the top sources per CPU, then other.");
	jr_prom_sources(b, p, m, false);
	jr_prom_family(b, om, "jitread_events_lost", JR_P_COUNTER, NULL,
		       "Events the ring buffer or the sampler's queue lost.");
	jr_prom_per_cpu(b, m, "jitread_events_lost_total", 1);
	jr_prom_family(
		b, om, "jitread_gap_duration_seconds", JR_P_HIST, "seconds",
		"Durations as jitread's percentile table gives them: gap is every gap, a class its own events, net.");
	jr_prom_hists(b, m);
	if (om)
		jr_buf_printf(b, "# EOF\n");
}
