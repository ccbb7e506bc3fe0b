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
				   enum jr_pclass what, bool ev)
{
	switch (what) {
	case JR_PCL_GAPS:
		return JR_PV_N(ev ? c->hist[h].count : c->cls_gaps[h]);
	case JR_PCL_GROSS:
		return JR_PV_NSEC(ev ? (uint64_t)c->hist[h].sum : c->cls_ns[h]);
	case JR_PCL_NET:
		return JR_PV_NSEC(ev ? (uint64_t)c->hist[h].sum : c->net_ns[h]);
	default:
		return JR_PV_NSEC(c->outside_ns[h]);
	}
}

/*
 * per CPU and noise class (not "gap"), as enum jr_pclass says; with ev
 * (attach), the events stand for the gaps: nothing is outside them,
 * unexplained or unseen
 */
static void jr_per_class(struct jr_emit *e, const struct jr_model *m,
			 enum jr_pclass what, bool ev)
{
	struct jr_plabel l[2] = { { "cpu", NULL }, { "class", NULL } };
	int cpu, h, end = what == JR_PCL_OUTSIDE ? JR_H_SMI : JR_H_NR;
	char cpu_s[16];

	if (ev && what == JR_PCL_OUTSIDE)
		return;
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct jr_cpu *c = &m->cpu[cpu];

		if (!c->seen)
			continue;
		snprintf(cpu_s, sizeof(cpu_s), "%d", cpu);
		l[0].value = cpu_s;
		for (h = JR_H_GAP + 1; h < end; h++) {
			l[1].value = jr_hclass_name(h);
			e->ops->sample(e, l, 2, jr_class_val(c, h, what, ev));
		}
		if (ev)
			continue;
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

/* jr_refresh_time - when the metrics were made: a textfile's staleness */
static void jr_refresh_time(struct jr_emit *e, const struct jr_prom *p)
{
	e->ops->family(
		e, "jitread_last_refresh_timestamp_seconds", JR_P_GAUGE,
		"seconds",
		"When these metrics were refreshed, in seconds since the epoch: a textfile that a serve which ended left behind keeps its last refresh.");
	/* to the millisecond: a double holds it whole in either format */
	e->ops->sample(e, NULL, 0,
		       JR_PV_R((double)(p->refreshed_ns / 1000000) / 1e3));
}

/* H - a family's help: the sampler's, or attach's where they differ */
#define H(p, sampled, attach) ((p)->info.events_only ? (attach) : (sampled))

/* the time sampled (or watched) per CPU, and its noise by class */
static void jr_noise_families(struct jr_emit *e, const struct jr_prom *p,
			      const struct jr_model *m)
{
	const struct jr_emit_ops *o = e->ops;
	bool ev = p->info.events_only;

	o->family(e, "jitread_sampled_seconds", JR_P_COUNTER, "seconds",
		  H(p, "Time the sampler ran, per CPU.",
		    "Time a target thread ran or waited to run, per CPU."));
	jr_per_cpu(e, m, JR_PC_SAMPLED);
	o->family(
		e, "jitread_window_warmup_seconds", JR_P_GAUGE, "seconds",
		"Spun after each sleep before a window, not sampled: the wake-up is the duty cycle's cost, not the CPU's noise.");
	o->sample(e, NULL, 0, JR_PV_NSEC(p->info.warmup_ns));
	o->family(
		e, "jitread_noise_seconds", JR_P_COUNTER, "seconds",
		H(p,
		  "Gaps in the sampled time, by the class they were filed under; unseen: the summaries' noise whose gaps were not read.",
		  "Time taken from the target threads, by class, net of what nested inside."));
	jr_per_class(e, m, JR_PCL_GROSS, ev);
	o->family(
		e, "jitread_noise_net_seconds", JR_P_COUNTER, "seconds",
		H(p,
		  "The same noise by what explains it: a class's events' net time inside the gaps, hw gaps whole, unexplained the rest of the gaps with events, unseen as above.",
		  "The same time: with no sampler, each event explains itself."));
	jr_per_class(e, m, JR_PCL_NET, ev);
	o->family(
		e, "jitread_outside_gaps_seconds", JR_P_COUNTER, "seconds",
		H(p,
		  "Net time of events the sources count that no gap over the threshold holds; not noise.",
		  "None with no sampler: every event delayed a target thread."));
	jr_per_class(e, m, JR_PCL_OUTSIDE, ev);
	o->family(
		e, "jitread_gaps", JR_P_COUNTER, NULL,
		H(p,
		  "Gaps above the threshold, by the class they were filed under.",
		  "Events that delayed a target thread, by class."));
	jr_per_class(e, m, JR_PCL_GAPS, ev);
	o->family(
		e, "jitread_available_ratio", JR_P_GAUGE, NULL,
		H(p,
		  "Share of the sampled time the sampler had, since the start.",
		  "Share of the target threads' time on the CPU that was their own, since the start."));
	jr_per_cpu(e, m, JR_PC_AVAIL);
	o->family(e, "jitread_periods", JR_P_COUNTER, NULL,
		  H(p, "Sampling periods summarised.",
		    "Refreshes summarised."));
	jr_per_cpu(e, m, JR_PC_PERIODS);
}

/* who the noise came from, what was lost, and the histograms */
static void jr_source_families(struct jr_emit *e, const struct jr_prom *p,
			       const struct jr_model *m)
{
	const struct jr_emit_ops *o = e->ops;

	o->family(e, "jitread_source_noise_seconds", JR_P_COUNTER, "seconds",
		  "Noise by source: the top sources per CPU, then other.");
	jr_sources(e, p, m, true);
	o->family(e, "jitread_source_events", JR_P_COUNTER, NULL,
		  "Events by source: the top sources per CPU, then other.");
	jr_sources(e, p, m, false);
	o->family(e, "jitread_events_lost", JR_P_COUNTER, NULL,
		  H(p, "Events the ring buffer or the sampler's queue lost.",
		    "Events the BPF ring buffer lost."));
	jr_per_cpu(e, m, JR_PC_LOST);
	o->family(
		e, "jitread_gap_duration_seconds", JR_P_HIST, "seconds",
		H(p,
		  "Every gap above the threshold, gross: the gap row of jitread's percentile table.",
		  "None with no sampler: see jitread_event_duration_seconds."));
	if (!p->info.events_only)
		jr_hists(e, m, true);
	o->family(
		e, "jitread_event_duration_seconds", JR_P_HIST, "seconds",
		"Each class's events, net of what nested inside them, and hw gaps whole: the class rows of jitread's percentile table.");
	jr_hists(e, m, false);
}

/* what a jitread_thread_* family shows of each target thread */
enum jr_pthread {
	JR_PT_RUN,
	JR_PT_WAIT,
	JR_PT_WAITS,
	JR_PT_SLEEP,
	JR_PT_FLT,
	JR_PT_MIGR
};

static const struct {
	const char *name, *unit, *help;
} jr_pthread_fam[] = {
	[JR_PT_RUN] = { "jitread_thread_run_seconds", "seconds",
			"Time each target thread ran on a watched CPU." },
	[JR_PT_WAIT] = { "jitread_thread_wait_seconds", "seconds",
			 "Time each target thread waited to run: switched out runnable until it ran again." },
	[JR_PT_WAITS] = { "jitread_thread_waits", NULL,
			  "Times each target thread was switched out runnable." },
	[JR_PT_SLEEP] = { "jitread_thread_sleep_seconds", "seconds",
			  "Time each target thread slept of its own accord; not noise." },
	[JR_PT_FLT] = { "jitread_thread_page_faults", NULL,
			"Page faults each target thread took." },
	[JR_PT_MIGR] = { "jitread_thread_migrations", NULL,
			 "Times each target thread moved to another CPU." },
};

static struct jr_pval jr_pthread_val(const struct jr_prom_thread *t, int what)
{
	switch (what) {
	case JR_PT_RUN:
		return JR_PV_NSEC(t->run_ns);
	case JR_PT_WAIT:
		return JR_PV_NSEC(t->wait_ns);
	case JR_PT_WAITS:
		return JR_PV_N(t->waits);
	case JR_PT_SLEEP:
		return JR_PV_NSEC(t->sleep_ns);
	case JR_PT_FLT:
		return JR_PV_N(t->faults);
	default:
		return JR_PV_N(t->migrations);
	}
}

/* jr_pthread_labels - tid (or "other") and comm, as exposed */
static void jr_pthread_labels(const struct jr_prom_thread *t, char *tid,
			      size_t len, char *comm)
{
	size_t n;

	if (t->tid)
		snprintf(tid, len, "%d", t->tid);
	else
		snprintf(tid, len, "other");
	for (n = 0; n + 1 < sizeof(t->comm) && t->comm[n]; n++)
		comm[n] = jr_prom_char(t->comm[n]);
	comm[n] = '\0';
}

/* attach: each target thread's noise by class, then its account */
static void jr_thread_families(struct jr_emit *e, const struct jr_prom *p)
{
	struct jr_plabel l[3] = { { "tid", NULL },
				  { "comm", NULL },
				  { "class", NULL } };
	char tid[16], comm[sizeof(p->th->comm)];
	int i, h, f;

	e->ops->family(
		e, "jitread_thread_noise_seconds", JR_P_COUNTER, "seconds",
		"Time taken from each target thread, by class, net of what nested inside.");
	l[0].value = tid;
	l[1].value = comm;
	for (i = 0; i < p->nr_th; i++) {
		jr_pthread_labels(&p->th[i], tid, sizeof(tid), comm);
		for (h = JR_H_IRQ; h <= JR_H_THREAD; h++) {
			l[2].value = jr_hclass_name(h);
			e->ops->sample(
				e, l, 3,
				JR_PV_NSEC(p->th[i].noise_ns[h - JR_H_IRQ]));
		}
	}
	for (f = 0; f < (int)(sizeof(jr_pthread_fam) / sizeof(*jr_pthread_fam));
	     f++) {
		e->ops->family(e, jr_pthread_fam[f].name, JR_P_COUNTER,
			       jr_pthread_fam[f].unit, jr_pthread_fam[f].help);
		for (i = 0; i < p->nr_th; i++) {
			jr_pthread_labels(&p->th[i], tid, sizeof(tid), comm);
			e->ops->sample(e, l, 2, jr_pthread_val(&p->th[i], f));
		}
	}
}

/* jr_prom_write - the whole exposition, after jr_prom_update() */
void jr_prom_write(const struct jr_prom *p, const struct jr_model *m,
		   enum jr_prom_fmt fmt, struct jr_buf *b)
{
	struct jr_emit e = { .ops = fmt == JR_PROM_PROTOBUF ? &jr_emit_pb :
							      &jr_emit_text,
			     .b = b,
			     .om = fmt == JR_PROM_OPENMETRICS };
	int i;

	jr_build_info(&e, p);
	jr_refresh_time(&e, p);
	jr_noise_families(&e, p, m);
	jr_source_families(&e, p, m);
	if (p->info.events_only)
		jr_thread_families(&e, p);
	e.ops->end(&e);
	for (i = 0; i < 4; i++)
		jr_buf_free(&e.lvl[i]);
}
