// SPDX-License-Identifier: GPL-2.0
/*
 * jr_uphase.c - a userspace sampling phase and the alignment of its gaps with
 * the BPF records.
 *
 * Alignment.  The sampler logs gaps in TSC cycles; BPF stamps its records
 * with bpf_ktime_get_ns(), which is CLOCK_MONOTONIC.  Each sampler thread
 * reads a TSC/monotonic pair on its own CPU just before its loop and just
 * after (jr_tsc.c), since TSCs need not agree across CPUs (under QEMU's
 * TCG they do not), and the line through the two maps each gap's start
 * and end onto CLOCK_MONOTONIC, with an error bound of half the wider pair window.
 * A record belongs to a gap when its arrival falls inside the mapped gap,
 * widened by twice that bound.  Nothing can arrive inside a gap without
 * stealing from it: the sampler read the TSC just before and just after.
 *
 * A gap's class is then the class with the most net time among its
 * records, as in jitmod; a gap without records is hw:unknown, because a
 * user thread cannot read the SMI counter or the steal clock per gap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "jitmod_abi.h"
#include "common/jr_ksym.h"
#include "common/jr_sys.h"
#include "usamp/jr_uphase.h"

#define JR_POLL_MS 50

void jr_user_info_init(struct jr_user_info *in, enum jr_work work)
{
	memset(in, 0, sizeof(*in));
	in->work = work;
	in->log_resident_pct = 100;
	jr_hist_init(&in->work_hist, 3);
}

static int jr_rec_cmp(const void *a, const void *b)
{
	const struct jr_ubpf_rec *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* jr_bpf_to_rec - a BPF record as the kernel side would have emitted it. */
static void jr_bpf_to_rec(const struct jr_ubpf_rec *b, struct jr_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = b->start_ns;
	r->cpu = b->cpu;
	r->v[0] = b->net_ns;
	r->id = b->id;
	r->id2 = -1;
	switch (b->cls) {
	case JIT_NOISE_IRQ:
		r->type = JR_IRQ;
		if (b->vec != JR_UBPF_NO_VEC && b->vec < JIT_VEC_NR) {
			r->id2 = b->vec;
			snprintf(r->name, sizeof(r->name), "%s",
				 jr_ubpf_vectors[b->vec]);
		} else {
			snprintf(r->name, sizeof(r->name), "%.*s",
				 JR_UBPF_NAME_LEN, b->name);
		}
		break;
	case JIT_NOISE_SOFTIRQ:
		r->type = JR_SOFTIRQ;
		r->cls = b->vec;
		break;
	case JIT_NOISE_NMI:
		r->type = JR_NMI;
		jr_ksym(b->addr, r->name, sizeof(r->name));
		break;
	default:
		r->type = JR_THREAD;
		snprintf(r->name, sizeof(r->name), "%.*s", 16, b->name);
		break;
	}
}

/*
 * jr_user_align - emit one CPU's gaps, classified, and the BPF records that
 * fell inside its sampling window.  recs must be sorted (jr_rec_cmp).
 */
int jr_user_align(const struct jr_usamp *u, const struct jr_tsc_map *map,
		  const struct jr_ubpf_rec *recs, size_t nr, jr_sink_fn sink,
		  void *ctx, struct jr_user_info *in)
{
	int64_t w0 = jr_tsc_to_mono(map, u->start_tsc);
	int64_t w1 = jr_tsc_to_mono(map, u->end_tsc);
	int64_t slack = (int64_t)(2 * map->err_ns) + 1;
	size_t lo = 0, i;
	uint64_t g;
	struct jr_rec r;
	int ret;

	while (lo < nr && recs[lo].cpu < (uint32_t)u->cpu)
		lo++;
	for (i = lo; i < nr && recs[i].cpu == (uint32_t)u->cpu; i++) {
		if ((int64_t)recs[i].start_ns < w0 - slack ||
		    (int64_t)recs[i].start_ns > w1 + slack)
			continue;
		jr_bpf_to_rec(&recs[i], &r);
		ret = sink(ctx, &r);
		if (ret)
			return ret;
		in->bpf_records++;
	}
	for (g = 0; g < u->nr_gaps; g++) {
		const struct jr_ugap *gp = &u->gaps[g];
		int64_t g0 = jr_tsc_to_mono(map, gp->tsc) - slack;
		int64_t g1 = jr_tsc_to_mono(map, gp->tsc + gp->cyc) + slack;
		uint64_t net[JIT_NOISE_HW_SMI] = { 0 }, explained = 0, ns;
		int c, best = -1;

		while (lo < nr && recs[lo].cpu == (uint32_t)u->cpu &&
		       (int64_t)recs[lo].start_ns < g0)
			lo++;
		for (i = lo; i < nr && recs[i].cpu == (uint32_t)u->cpu &&
			     (int64_t)recs[i].start_ns <= g1;
		     i++) {
			net[recs[i].cls & 3] += recs[i].net_ns;
			explained += recs[i].net_ns;
		}
		for (c = 0; c < JIT_NOISE_HW_SMI; c++)
			if (net[c] && (best < 0 || net[c] > net[best]))
				best = c;
		ns = (uint64_t)(gp->cyc * map->ns_per_cyc);
		memset(&r, 0, sizeof(r));
		r.type = JR_GAP;
		r.cpu = u->cpu;
		r.ts_ns = g0 + slack;
		r.v[0] = ns;
		r.v[1] = ns > explained ? ns - explained : 0;
		r.cls = best < 0 ? JIT_NOISE_HW_UNKNOWN : best;
		in->gaps++;
		in->classified += best >= 0;
		ret = sink(ctx, &r);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * jr_user_summary - the phase's summary and loss for one CPU; the summary
 * also feeds the sampler's totals in the report.
 */
static int jr_user_summary(const struct jr_usamp *u,
			   const struct jr_tsc_map *map, uint64_t bpf_drops,
			   jr_sink_fn sink, void *ctx, struct jr_user_info *in)
{
	uint64_t ts = jr_tsc_to_mono(map, u->end_tsc);
	struct jr_rec r = { .type = JR_SUMMARY, .cpu = u->cpu, .ts_ns = ts };
	int ret;

	r.v[0] = (u->end_tsc - u->start_tsc) * map->ns_per_cyc;
	r.v[1] = u->noise_cyc * map->ns_per_cyc;
	r.v[2] = u->max_cyc * map->ns_per_cyc;
	r.v[3] = u->iters;
	r.v[4] = u->min_cyc * map->ns_per_cyc * 1000;
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

static int jr_user_collect(const struct jr_user_cfg *cfg, struct jr_ubpf *b,
			   struct jr_usamp *u, int n, jr_sink_fn sink,
			   void *ctx, struct jr_user_info *in)
{
	uint64_t drops = jr_ubpf_drops(b);
	struct jr_tsc_map map;
	int i, ret = 0;

	qsort(b->recs, b->nr, sizeof(*b->recs), jr_rec_cmp);
	in->bpf_seen += b->nr;
	for (i = 0; !ret && i < n; i++) {
		/* per CPU: a TSC need not agree across CPUs (it does not in TCG) */
		jr_tsc_fit(&map, &u[i].pair[0], &u[i].pair[1]);
		if (map.err_ns > in->align_err_ns)
			in->align_err_ns = map.err_ns;
		in->ns_per_cyc = map.ns_per_cyc;
		ret = jr_user_align(&u[i], &map, b->recs, b->nr, sink, ctx, in);
		if (!ret)
			ret = jr_user_summary(&u[i], &map, i ? 0 : drops, sink,
					      ctx, in);
		if (!ret && cfg->work != JR_WORK_NONE &&
		    jr_hist_merge(&in->work_hist, &u[i].work_hist))
			ret = -ENOMEM;
	}
	in->bpf_drops += drops;
	return ret;
}

/*
 * jr_user_phase - sample every CPU in cfg->cpus for duration_ns (or until
 * *cfg->stop), classify, and feed the result to sink.
 */
int jr_user_phase(const struct jr_user_cfg *cfg, struct jr_ubpf *b,
		  uint64_t duration_ns, jr_sink_fn sink, void *ctx,
		  struct jr_user_info *in, struct jr_err *e)
{
	struct jr_usamp *u;
	uint64_t end;
	bool joined = false;
	int cpu, n = 0, i, ret = 0, pret;

	e->msg[0] = '\0';
	u = calloc(JR_MAX_CPUS, sizeof(*u));
	if (!u)
		return jr_fail(e, -ENOMEM, "out of memory");
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		struct jr_usamp *s = &u[n];

		if (!cfg->cpus[cpu])
			continue;
		s->cpu = cpu;
		s->fifo_prio = cfg->fifo_prio;
		s->work = cfg->work;
		s->thr_cyc = jr_ns_to_cyc(cfg->threshold_ns, cfg->tsc_khz);
		s->run_cyc = jr_ns_to_cyc(duration_ns, cfg->tsc_khz);
		s->stop = cfg->stop;
		s->cap_gaps = cfg->gaps_cap;
		s->ns_per_cyc = 1e6 / cfg->tsc_khz;
		n++;
		ret = jr_usamp_start(s);
		if (!ret && s->resident_pct < in->log_resident_pct)
			in->log_resident_pct = s->resident_pct;
		if (ret) {
			jr_fail(e, -EINVAL, "sampler on CPU %d: %s", cpu,
				strerror(-ret));
			n--;
			goto out;
		}
		ret = jr_ubpf_watch(b, cpu, s->tid);
		if (ret) {
			jr_fail(e, -EINVAL, "BPF watch CPU %d: %s", cpu,
				strerror(-ret));
			goto out;
		}
	}
	jr_ubpf_reset(b);
	for (i = 0; i < n; i++)
		jr_usamp_go(&u[i]);
	jr_ready(cfg->ready_file);
	end = jr_mono_ns() + duration_ns + 1000000000ULL;
	for (i = 0; i < n;) {
		/* drain the ring while the samplers run; join as they end */
		pret = jr_ubpf_poll(b, JR_POLL_MS);
		if (pret && !ret) {
			ret = pret; /* the first failure is the one to report */
			jr_fail(e, -EINVAL, "BPF ring: %s", strerror(-ret));
			*cfg->stop = 1;
		}
		if (u[i].end_tsc || u[i].err || *cfg->stop ||
		    jr_mono_ns() > end) {
			jr_usamp_join(&u[i]);
			jr_ubpf_watch(b, u[i].cpu, 0);
			i++;
		}
	}
	jr_ubpf_poll(b, 0);
	in->tsc_khz = cfg->tsc_khz;
	in->phases++;
	if (!ret)
		ret = jr_user_collect(cfg, b, u, n, sink, ctx, in);
	if (ret && !e->msg[0])
		jr_fail(e, -EINVAL, "%s", strerror(-ret));
	joined = true;
out:
	for (i = 0; i < n; i++) {
		if (!joined) {
			*cfg->stop = 1;
			jr_usamp_go(&u[i]);
			jr_usamp_join(&u[i]);
			jr_ubpf_watch(b, u[i].cpu, 0);
		}
		jr_usamp_free(&u[i]);
	}
	free(u);
	return ret;
}
