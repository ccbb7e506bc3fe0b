// SPDX-License-Identifier: GPL-2.0
/*
 * jr_prom_out.c - the metrics of a model, family by family, said through
 * an emitter (core/jr_prom_emit.h) that writes the format asked for.
 */
#include <stdio.h>

#include "core/jr_prom.h"
#include "core/jr_prom_emit.h"

/* per-CPU values: one family, one sample per CPU seen */
enum jr_pcpu { JR_PC_SAMPLED, JR_PC_LOST, JR_PC_PERIODS, JR_PC_AVAIL };

static void jr_per_cpu(struct jr_emit *e, const struct jr_model *m,
		       enum jr_pcpu what)
{
	struct jr_plabel l[1] = { { "cpu", NULL } };
	char cpu_s[16];
	int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];

		if (!c->seen || (what == JR_PC_AVAIL && !c->runtime_ns))
			continue;
		snprintf(cpu_s, sizeof(cpu_s), "%d", cpu);
		l[0].value = cpu_s;
		if (what == JR_PC_SAMPLED)
			e->ops->sample(e, l, 1, JR_PV_NSEC(c->runtime_ns));
		else if (what == JR_PC_LOST)
			e->ops->sample(e, l, 1, JR_PV_N(c->lost));
		else if (what == JR_PC_PERIODS)
			e->ops->sample(e, l, 1, JR_PV_N(c->periods));
		else
			e->ops->sample(e, l, 1,
				       JR_PV_R(jr_cpu_avail_pct(c) / 100.0));
	}
}

/*
 * What a per-class family holds: the gaps' count or gross time by the
 * class they were filed under (the time adds class="unseen"), the same
 * time split by what explains it (adds "unexplained" and "unseen"), or
 * the events' time outside any gap (irq to thread only).
 */
enum jr_pclass { JR_PCL_GAPS, JR_PCL_GROSS, JR_PCL_NET, JR_PCL_OUTSIDE };

static struct jr_pval jr_class_val(const struct jr_cpu *c, int h,
				   enum jr_pclass what)
{
	switch (what) {
	case JR_PCL_GAPS:
		return JR_PV_N(c->cls_gaps[h]);
	case JR_PCL_GROSS:
		return JR_PV_NSEC(c->cls_ns[h]);
	case JR_PCL_NET:
		return JR_PV_NSEC(c->net_ns[h]);
	default:
		return JR_PV_NSEC(c->outside_ns[h]);
	}
}

/* per CPU and noise class (not "gap"), as enum jr_pclass says */
static void jr_per_class(struct jr_emit *e, const struct jr_model *m,
			 enum jr_pclass what)
{
	struct jr_plabel l[2] = { { "cpu", NULL }, { "class", NULL } };
	int cpu, h, end = what == JR_PCL_OUTSIDE ? JR_H_SMI : JR_H_NR;
	char cpu_s[16];

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];

		if (!c->seen)
			continue;
		snprintf(cpu_s, sizeof(cpu_s), "%d", cpu);
		l[0].value = cpu_s;
		for (h = JR_H_GAP + 1; h < end; h++) {
			l[1].value = jr_hclass_name(h);
			e->ops->sample(e, l, 2, jr_class_val(c, h, what));
		}
		if (what == JR_PCL_NET) {
			l[1].value = "unexplained";
			e->ops->sample(e, l, 2,
				       JR_PV_NSEC(c->net_ns[JR_H_GAP]));
		}
		l[1].value = "unseen";
		if (what == JR_PCL_GROSS || what == JR_PCL_NET)
			e->ops->sample(e, l, 2, JR_PV_NSEC(c->unseen_ns));
	}
}

static void jr_sources(struct jr_emit *e, const struct jr_prom *p,
		       const struct jr_model *m, bool secs)
{
	struct jr_plabel l[3] = { { "cpu", NULL },
				  { "class", NULL },
				  { "source", NULL } };
	char cpu_s[16];
	int cpu, i;

	for (cpu = 0; cpu < m->nr_cpus && cpu < p->nr_cpus; cpu++) {
		const struct jr_prom_cpu *pc = &p->cpu[cpu];

		if (!m->cpu[cpu].seen)
			continue;
		snprintf(cpu_s, sizeof(cpu_s), "%d", cpu);
		l[0].value = cpu_s;
		for (i = 0; i < pc->nr_top; i++) {
			const struct jr_prom_series *s = &pc->top[i];

			l[1].value = s->l.cls;
			l[2].value = s->l.name;
			e->ops->sample(e, l, 3,
				       secs ? JR_PV_NSEC(s->l.ns - s->base_ns) :
					      JR_PV_N(s->l.n - s->base_n));
		}
		l[1].value = "other";
		l[2].value = "other";
		e->ops->sample(e, l, 3,
			       secs ? JR_PV_NSEC(pc->other_ns) :
				      JR_PV_N(pc->other_n));
	}
}

/*
 * jr_hists - per CPU, the gaps' histogram (gaps: every gap, gross, in one
 * series), or each class's events' (net; a hw gap whole), one a class
 */
static void jr_hists(struct jr_emit *e, const struct jr_model *m, bool gaps)
{
	struct jr_plabel l[2] = { { "cpu", NULL }, { "class", NULL } };
	char cpu_s[16];
	int cpu, h;

	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!m->cpu[cpu].seen)
			continue;
		snprintf(cpu_s, sizeof(cpu_s), "%d", cpu);
		l[0].value = cpu_s;
		if (gaps) {
			e->ops->hist(e, l, 1, &m->cpu[cpu].hist[JR_H_GAP]);
			continue;
		}
		for (h = JR_H_GAP + 1; h < JR_H_NR; h++) {
			l[1].value = jr_hclass_name(h);
			e->ops->hist(e, l, 2, &m->cpu[cpu].hist[h]);
		}
	}
}

static void jr_build_info(struct jr_emit *e, const struct jr_prom *p)
{
	const struct jr_plabel l[3] = { { "version", p->info.version },
					{ "backend", p->info.backend },
					{ "kernel", p->info.kernel } };

	e->ops->family(e, "jitread_build", JR_P_INFO, NULL,
		       "jitread's version, its sampler and the kernel.");
	e->ops->sample(e, l, 3, JR_PV_N(1));
}

/* jr_prom_write - the whole exposition, after jr_prom_update() */
void jr_prom_write(const struct jr_prom *p, const struct jr_model *m,
		   enum jr_prom_fmt fmt, struct jr_buf *b)
{
	struct jr_emit e = { .ops = fmt == JR_PROM_PROTOBUF ? &jr_emit_pb :
							      &jr_emit_text,
			     .b = b,
			     .om = fmt == JR_PROM_OPENMETRICS };
	const struct jr_emit_ops *o = e.ops;
	int i;

	jr_build_info(&e, p);
	o->family(&e, "jitread_sampled_seconds", JR_P_COUNTER, "seconds",
		  "Time the sampler ran, per CPU.");
	jr_per_cpu(&e, m, JR_PC_SAMPLED);
	o->family(
		&e, "jitread_window_warmup_seconds", JR_P_GAUGE, "seconds",
		"Spun after each sleep before a window, not sampled: the wake-up is the duty cycle's cost, not the CPU's noise.");
	o->sample(&e, NULL, 0, JR_PV_NSEC(p->info.warmup_ns));
	o->family(
		&e, "jitread_noise_seconds", JR_P_COUNTER, "seconds",
		"Gaps in the sampled time, by the class they were filed under; unseen: the summaries' noise whose gaps were not read.");
	jr_per_class(&e, m, JR_PCL_GROSS);
	o->family(
		&e, "jitread_noise_net_seconds", JR_P_COUNTER, "seconds",
		"The same noise by what explains it: a class's events' net time inside the gaps, hw gaps whole, unexplained the rest of the gaps with events, unseen as above.");
	jr_per_class(&e, m, JR_PCL_NET);
	o->family(
		&e, "jitread_outside_gaps_seconds", JR_P_COUNTER, "seconds",
		"Net time of events the sources count that no gap over the threshold holds; not noise.");
	jr_per_class(&e, m, JR_PCL_OUTSIDE);
	o->family(
		&e, "jitread_gaps", JR_P_COUNTER, NULL,
		"Gaps above the threshold, by the class they were filed under.");
	jr_per_class(&e, m, JR_PCL_GAPS);
	o->family(
		&e, "jitread_available_ratio", JR_P_GAUGE, NULL,
		"Share of the sampled time the sampler had, since the start.");
	jr_per_cpu(&e, m, JR_PC_AVAIL);
	o->family(&e, "jitread_periods", JR_P_COUNTER, NULL,
		  "Sampling periods summarised.");
	jr_per_cpu(&e, m, JR_PC_PERIODS);
	o->family(&e, "jitread_source_noise_seconds", JR_P_COUNTER, "seconds",
		  "Noise by source: the top sources per CPU, then other.");
	jr_sources(&e, p, m, true);
	o->family(&e, "jitread_source_events", JR_P_COUNTER, NULL,
		  "Events by source: the top sources per CPU, then other.");
	jr_sources(&e, p, m, false);
	o->family(&e, "jitread_events_lost", JR_P_COUNTER, NULL,
		  "Events the ring buffer or the sampler's queue lost.");
	jr_per_cpu(&e, m, JR_PC_LOST);
	o->family(
		&e, "jitread_gap_duration_seconds", JR_P_HIST, "seconds",
		"Every gap above the threshold, gross: the gap row of jitread's percentile table.");
	jr_hists(&e, m, true);
	o->family(
		&e, "jitread_event_duration_seconds", JR_P_HIST, "seconds",
		"Each class's events, net of what nested inside them, and hw gaps whole: the class rows of jitread's percentile table.");
	jr_hists(&e, m, false);
	o->end(&e);
	for (i = 0; i < 4; i++)
		jr_buf_free(&e.lvl[i]);
}
