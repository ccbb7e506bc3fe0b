// SPDX-License-Identifier: GPL-2.0
/*
 * jr_uphase.c - a userspace sampling phase: start the samplers, feed the
 * BPF records and their gaps to the aligners (jr_ualign.c) while they run,
 * and sum each CPU up at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "jitmod_abi.h"
#include "common/jr_sys.h"
#include "usamp/jr_ualign.h"
#include "usamp/jr_uphase.h"

#define JR_POLL_MS 50

void jr_user_info_init(struct jr_user_info *in, enum jr_work work)
{
	memset(in, 0, sizeof(*in));
	in->work = work;
	in->log_resident_pct = 100;
	jr_hist_init(&in->work_hist, 3);
}

/*
 * jr_user_count - what befell CPU cpu's sampler thread over the phases,
 * or NULL if nothing was counted
 */
const struct jr_ucount *jr_user_count(const struct jr_user_info *in, int cpu)
{
	const struct jr_ucount *c;

	if (!in->count || cpu < 0 || cpu >= JR_MAX_CPUS)
		return NULL;
	c = &in->count[cpu];
	return c->ok || c->migr_ok ? c : NULL;
}

/*
 * jr_user_summary - the phase's summary and loss for one CPU; the summary
 * also feeds the sampler's totals in the report.  The time of jitread's
 * own threads is self, not noise (jr_ualign.c).
 */
static int jr_user_summary(const struct jr_usamp *u,
			   const struct jr_tsc_map *map, uint64_t self_ns,
			   uint64_t bpf_drops, jr_sink_fn sink, void *ctx,
			   struct jr_user_info *in)
{
	uint64_t ts = jr_tsc_to_mono(map, u->end_tsc);
	struct jr_rec r = { .type = JR_SUMMARY, .cpu = u->cpu, .ts_ns = ts };
	int ret;

	r.v[0] = (u->end_tsc - u->start_tsc) * map->ns_per_cyc;
	r.v[1] = u->noise_cyc * map->ns_per_cyc;
	r.v[1] -= self_ns < r.v[1] ? self_ns : r.v[1];
	r.v[2] = u->max_cyc * map->ns_per_cyc;
	r.v[3] = u->iters;
	r.v[4] = u->min_cyc * map->ns_per_cyc * 1000;
	r.v[5] = self_ns;
	in->runtime_ns += r.v[0];
	in->iterations += r.v[3];
	if (!in->min_iter_ps || r.v[4] < in->min_iter_ps)
		in->min_iter_ps = r.v[4];
	in->gaps_dropped += u->dropped;
	ret = sink(ctx, &r);
	if (ret || !(u->dropped + bpf_drops))
		return ret;
	memset(&r, 0, sizeof(r));
	r.type = JR_LOST;
	r.cpu = u->cpu;
	r.ts_ns = ts;
	r.v[0] = u->dropped + bpf_drops;
	return sink(ctx, &r);
}

/*
 * jr_user_sum - after the last pair: the CPU's summary, its loss and its
 * share of the work histogram.
 */
static int jr_user_sum(const struct jr_user_cfg *cfg, struct jr_ualign *a,
		       uint64_t bpf_drops, jr_sink_fn sink, void *ctx,
		       struct jr_user_info *in)
{
	struct jr_tsc_map map;
	int ret;

	if (a->err_ns > in->align_err_ns)
		in->align_err_ns = a->err_ns;
	jr_ualign_phase_map(a, &map);
	in->ns_per_cyc = map.ns_per_cyc;
	in->blind_ns += (uint64_t)(a->u->blind_cyc * map.ns_per_cyc);
	in->bpf_drops += a->q_dropped;
	in->gaps += a->gaps;
	in->classified += a->classified;
	in->bpf_records += a->records;
	if (!in->count)
		in->count = calloc(JR_MAX_CPUS, sizeof(*in->count));
	if (!in->count)
		return -ENOMEM;
	jr_ucount_add(&in->count[a->u->cpu], &a->u->count);
	ret = jr_user_summary(a->u, &map, a->self_ns, bpf_drops + a->q_dropped,
			      sink, ctx, in);
	if (!ret && cfg->work != JR_WORK_NONE &&
	    jr_hist_merge(&in->work_hist, &a->u->work_hist))
		ret = -ENOMEM;
	return ret;
}

/* jr_user_feed - the BPF records read so far, each to its CPU's queue. */
static int jr_user_feed(struct jr_ubpf *b, struct jr_ualign *a, const int *slot,
			struct jr_user_info *in)
{
	size_t i;
	int ret = 0;

	in->bpf_seen += b->nr;
	for (i = 0; !ret && i < b->nr; i++)
		if (b->recs[i].cpu < JR_MAX_CPUS && slot[b->recs[i].cpu] >= 0)
			ret = jr_ualign_add(&a[slot[b->recs[i].cpu]],
					    &b->recs[i]);
	b->nr = 0;
	return ret;
}

/* struct jr_uphase - one phase's samplers and their aligners. */
struct jr_uphase {
	struct jr_usamp *u;
	struct jr_ualign *a;
	struct jr_ualign_snap *snap;
	bool *joined;
	int *slot; /* CPU -> index, or -1 */
	int n;
};

static int jr_uphase_alloc(struct jr_uphase *p)
{
	int cpu;

	memset(p, 0, sizeof(*p));
	p->u = calloc(JR_MAX_CPUS, sizeof(*p->u));
	p->a = calloc(JR_MAX_CPUS, sizeof(*p->a));
	p->snap = calloc(JR_MAX_CPUS, sizeof(*p->snap));
	p->joined = calloc(JR_MAX_CPUS, sizeof(*p->joined));
	p->slot = malloc(JR_MAX_CPUS * sizeof(*p->slot));
	if (!p->u || !p->a || !p->snap || !p->joined || !p->slot)
		return -ENOMEM;
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
		p->slot[cpu] = -1;
	return 0;
}

static void jr_uphase_free(struct jr_uphase *p)
{
	int i;

	for (i = 0; p->a && i < p->n; i++) {
		jr_ualign_free(&p->a[i]);
		jr_usamp_free(&p->u[i]);
	}
	free(p->u);
	free(p->a);
	free(p->snap);
	free(p->joined);
	free(p->slot);
}

static void jr_uphase_halt(struct jr_uphase *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		p->u[i].halt = 1;
}

/*
 * jr_user_run - poll until every sampler has ended and its last pair is
 * read: snapshot the pair counts, drain the ring, then step each aligner.
 * A failure stops the samplers, which are still joined.
 */
static int jr_user_run(struct jr_ubpf *b, struct jr_uphase *p, uint64_t end,
		       jr_sink_fn sink, void *ctx, struct jr_user_info *in,
		       struct jr_err *e)
{
	int i, left = p->n, ret = 0, r;

	while (left) {
		for (i = 0; i < p->n; i++)
			jr_ualign_snap(&p->a[i], &p->snap[i]);
		r = jr_ubpf_poll(b, JR_POLL_MS);
		if (!r)
			r = jr_user_feed(b, p->a, p->slot, in);
		if (r && !ret) {
			ret = jr_fail(e, r, "BPF ring: %s", strerror(-r));
			jr_uphase_halt(p);
		}
		if (jr_mono_ns() > end)
			jr_uphase_halt(p);
		for (i = 0; i < p->n; i++) {
			if (p->joined[i])
				continue;
			if (!ret) {
				r = jr_ualign_step(&p->a[i], &p->snap[i], sink,
						   ctx);
				if (r) {
					ret = jr_fail(e, r, "%s", strerror(-r));
					jr_uphase_halt(p);
				}
			}
			if (!p->snap[i].done)
				continue;
			jr_usamp_join(&p->u[i]);
			jr_ubpf_watch(b, p->u[i].cpu, 0);
			p->joined[i] = true;
			left--;
		}
	}
	return ret;
}

/* jr_user_start - a pinned, watched sampler per CPU of cfg, not yet going. */
static int jr_user_start(const struct jr_user_cfg *cfg, struct jr_ubpf *b,
			 struct jr_uphase *p, uint64_t duration_ns,
			 struct jr_user_info *in, struct jr_err *e)
{
	struct jr_usamp *s;
	int cpu, ret;

	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		if (!cfg->cpus[cpu])
			continue;
		s = &p->u[p->n];
		s->cpu = cpu;
		s->fifo_prio = cfg->fifo_prio;
		s->work = cfg->work;
		s->thr_cyc = jr_ns_to_cyc(cfg->threshold_ns, cfg->tsc_khz);
		s->run_cyc = jr_ns_to_cyc(duration_ns, cfg->tsc_khz);
		s->warm_cyc = jr_ns_to_cyc(cfg->warmup_ns, cfg->tsc_khz);
		s->stop = cfg->stop;
		s->cap_gaps = cfg->gaps_cap;
		s->ns_per_cyc = 1e6 / cfg->tsc_khz;
		jr_ualign_init(&p->a[p->n], s);
		p->slot[cpu] = p->n++;
		ret = jr_usamp_start(s);
		if (!ret && s->resident_pct < in->log_resident_pct)
			in->log_resident_pct = s->resident_pct;
		if (ret)
			return jr_fail(e, -EINVAL, "sampler on CPU %d: %s", cpu,
				       strerror(-ret));
		ret = jr_ubpf_watch(b, cpu, s->tid);
		if (ret)
			return jr_fail(e, -EINVAL, "BPF watch CPU %d: %s", cpu,
				       strerror(-ret));
	}
	return 0;
}

/*
 * jr_user_phase - sample every CPU in cfg->cpus for duration_ns (or until
 * *cfg->stop), classify, and feed the result to sink.
 */
int jr_user_phase(const struct jr_user_cfg *cfg, struct jr_ubpf *b,
		  uint64_t duration_ns, jr_sink_fn sink, void *ctx,
		  struct jr_user_info *in, struct jr_err *e)
{
	struct jr_uphase p;
	uint64_t drops;
	int i, ret;

	e->msg[0] = '\0';
	ret = jr_uphase_alloc(&p);
	if (ret) {
		jr_fail(e, ret, "out of memory");
		goto out;
	}
	ret = jr_user_start(cfg, b, &p, duration_ns, in, e);
	if (ret)
		goto stop;
	jr_ubpf_reset(b);
	for (i = 0; i < p.n; i++)
		jr_usamp_go(&p.u[i]);
	jr_ready(cfg->ready_file);
	ret = jr_user_run(b, &p, jr_mono_ns() + duration_ns + 1000000000ULL,
			  sink, ctx, in, e);
	in->tsc_khz = cfg->tsc_khz;
	in->warmup_ns = cfg->warmup_ns;
	in->phases++;
	drops = jr_ubpf_drops(b);
	in->bpf_drops += drops;
	for (i = 0; !ret && i < p.n; i++)
		ret = jr_user_sum(cfg, &p.a[i], i ? 0 : drops, sink, ctx, in);
	if (ret && !e->msg[0])
		jr_fail(e, ret, "%s", strerror(-ret));
	goto out;
stop:
	jr_uphase_halt(&p);
	for (i = 0; i < p.n; i++) {
		if (p.u[i].tid)
			jr_usamp_join(&p.u[i]);
		jr_ubpf_watch(b, p.u[i].cpu, 0);
	}
out:
	jr_uphase_free(&p);
	return ret;
}
