// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ualign.c - line a user sampler's gaps up with the BPF records while
 * it runs.
 *
 * Clocks.  The sampler logs gaps in TSC cycles; BPF stamps its records
 * with bpf_ktime_get_ns(), which is CLOCK_MONOTONIC.  The sampler reads a
 * TSC/monotonic pair on its own CPU before its loop, every JR_PAIR_MS in
 * it and after it (TSCs need not agree across CPUs; under QEMU's TCG they
 * do not).  The gaps between two pairs map onto CLOCK_MONOTONIC through
 * the line joining them, with an error bound of half the wider window.
 *
 * Classes.  A record belongs to a gap when its arrival falls inside the
 * mapped gap, widened by twice that bound.  Nothing can arrive inside a
 * gap without stealing from it: the sampler read the TSC just before and
 * just after.  A gap's class is the class with the most net time among
 * its records, as in jitmod; a gap without records is hw:unknown, because
 * a user thread cannot read the SMI counter or the steal clock per gap.
 *
 * jitread's own threads.  A thread window of a thread of this process
 * (the reader, or anything -H lets onto the CPU) is not a source: its
 * time is counted in self_ns.  A gap where it has the most net time is
 * jitread's own, counted whole in self_ns and not written; in any other
 * gap its time is taken out of the gap's duration.  So noise + self is
 * what the sampler lost.
 *
 * A detail record carries its window's arrival and was written before the
 * window's record, so the stable sort keeps it just before that record,
 * where the model looks for it (core/jr_detail.c); it adds no time.
 *
 * Streaming.  A record is in the BPF ring once its window closes, which
 * is before the sampler runs again and so before it publishes its next
 * pair.  The reader takes the pair counts first and drains the ring
 * after: then every gap before a pair it took has all its records, and a
 * record that arrived before that pair (less the slack) belongs to no
 * later gap, so it is written out and forgotten.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitmod_abi.h"
#include "common/jr_sys.h"
#include "usamp/jr_ualign.h"
#include "usamp/jr_ubpf.h"

#define JR_UBPF_SELF 0x101 /* cls of a window of jitread's own thread */

void jr_ualign_init(struct jr_ualign *a, struct jr_usamp *u)
{
	memset(a, 0, sizeof(*a));
	a->u = u;
	a->w1 = INT64_MAX;
}

void jr_ualign_free(struct jr_ualign *a)
{
	free(a->q);
	a->q = NULL;
	a->head = a->nr = a->cap = 0;
}

void jr_ualign_snap(const struct jr_ualign *a, struct jr_ualign_snap *s)
{
	/* done first: once it is set, the count holds the last pair */
	s->done = __atomic_load_n(&a->u->done, __ATOMIC_ACQUIRE);
	s->pairs = __atomic_load_n(&a->u->nr_pairs, __ATOMIC_ACQUIRE);
}

/* jr_q_room - room for one more record; false past JR_UQ_MAX or memory. */
static int jr_q_room(struct jr_ualign *a)
{
	struct jr_ubpf_rec *n;
	size_t cap;

	if (a->nr < a->cap)
		return 0;
	if (a->head && a->head >= a->cap / 2) {
		memmove(a->q, a->q + a->head,
			(a->nr - a->head) * sizeof(*a->q));
		a->nr -= a->head;
		a->head = 0;
		return 0;
	}
	cap = a->cap ? a->cap * 2 : 4096;
	n = realloc(a->q, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	a->q = n;
	a->cap = cap;
	return 0;
}

/*
 * jr_ualign_add - queue one record by its arrival.  Nested windows close
 * first, so records come nearly but not quite in arrival order.
 */
int jr_ualign_add(struct jr_ualign *a, const struct jr_ubpf_rec *r)
{
	size_t i;

	if (a->nr - a->head >= JR_UQ_MAX) {
		a->q_dropped++;
		return 0;
	}
	if (jr_q_room(a))
		return -ENOMEM;
	i = a->nr++;
	while (i > a->head && a->q[i - 1].start_ns > r->start_ns) {
		a->q[i] = a->q[i - 1];
		i--;
	}
	a->q[i] = *r;
	if (r->cls == JIT_NOISE_THREAD && jr_own_thread(r->id))
		a->q[i].cls = JR_UBPF_SELF;
	return 0;
}

/* jr_emit_rec - one final record, when it arrived inside the window. */
static int jr_emit_rec(struct jr_ualign *a, const struct jr_ubpf_rec *b,
		       int64_t slack, jr_sink_fn sink, void *ctx)
{
	int64_t t = (int64_t)b->start_ns;
	struct jr_rec r;

	if (t < a->w0 - slack || t - slack > a->w1 || b->cls == JR_UBPF_SELF)
		return 0;
	jr_ubpf_to_rec(b, &r);
	a->records++;
	return sink(ctx, &r);
}

/*
 * jr_emit_gap - one gap, filed under the class with the most net time
 * among the records inside it.  *cur: the first queued record that may
 * be in it; gaps come in order, so it only moves on.
 */
static int jr_emit_gap(struct jr_ualign *a, const struct jr_ugap *gp,
		       size_t *cur, int64_t slack, jr_sink_fn sink, void *ctx)
{
	int64_t g0 = jr_tsc_to_mono(&a->map, gp->tsc) - slack;
	int64_t g1 = jr_tsc_to_mono(&a->map, gp->tsc + gp->cyc) + slack;
	uint64_t net[JIT_NOISE_HW_SMI] = { 0 }, explained = 0, own = 0, ns;
	struct jr_rec r;
	size_t i;
	int c, best = -1;

	while (*cur < a->nr && (int64_t)a->q[*cur].start_ns < g0)
		(*cur)++;
	for (i = *cur; i < a->nr && (int64_t)a->q[i].start_ns <= g1; i++) {
		if (a->q[i].cls == JR_UBPF_SELF)
			own += a->q[i].net_ns;
		if (a->q[i].cls >= JIT_NOISE_HW_SMI)
			continue; /* a detail: its window's record counts */
		net[a->q[i].cls] += a->q[i].net_ns;
		explained += a->q[i].net_ns;
	}
	for (c = 0; c < JIT_NOISE_HW_SMI; c++)
		if (net[c] && (best < 0 || net[c] > net[best]))
			best = c;
	ns = (uint64_t)(gp->cyc * a->map.ns_per_cyc);
	if (own && (best < 0 || own >= net[best])) {
		a->self_ns += ns;
		return 0;
	}
	own = own < ns ? own : ns;
	a->self_ns += own;
	ns -= own;
	memset(&r, 0, sizeof(r));
	r.type = JR_GAP;
	r.cpu = a->u->cpu;
	r.ts_ns = g0 + slack;
	r.v[0] = ns;
	r.v[1] = ns > explained ? ns - explained : 0;
	for (c = 0; c < JIT_NOISE_HW_SMI; c++)
		r.v[3 + c] = net[c];
	r.cls = best < 0 ? JIT_NOISE_HW_UNKNOWN : best;
	a->gaps++;
	a->classified += best >= 0;
	return sink(ctx, &r);
}

/*
 * jr_segment - everything up to the pair seg[1]: the gaps before it, then
 * the records that arrived before it; last: seg[1] is the sampler's last
 * pair, so every record left is final.
 */
static int jr_segment(struct jr_ualign *a, bool last, jr_sink_fn sink,
		      void *ctx)
{
	struct jr_usamp *u = a->u;
	int64_t slack, until;
	size_t cur = a->head;
	uint64_t n, g;
	struct jr_ugap gap;
	int ret;

	jr_tsc_fit(&a->map, &a->seg[0], &a->seg[1]);
	if (a->map.err_ns > a->err_ns)
		a->err_ns = a->map.err_ns;
	slack = (int64_t)(2 * a->map.err_ns) + 1;
	if (last)
		a->w1 = jr_tsc_to_mono(&a->map, u->end_tsc);
	n = __atomic_load_n(&u->nr_gaps, __ATOMIC_ACQUIRE);
	for (g = u->gaps_read; g < n; g++) {
		gap = u->gaps[g % u->cap_gaps];
		if (gap.tsc >= a->seg[1].tsc)
			break;
		__atomic_store_n(&u->gaps_read, g + 1, __ATOMIC_RELEASE);
		ret = jr_emit_gap(a, &gap, &cur, slack, sink, ctx);
		if (ret)
			return ret;
	}
	until = (int64_t)a->seg[1].mono_ns - slack;
	while (a->head < a->nr &&
	       (last || (int64_t)a->q[a->head].start_ns < until)) {
		ret = jr_emit_rec(a, &a->q[a->head], slack, sink, ctx);
		if (ret)
			return ret;
		a->head++;
	}
	if (a->head == a->nr)
		a->head = a->nr = 0;
	return 0;
}

/*
 * jr_ualign_step - take the pairs in s, whose records are all in the queue
 * by now, and write out what they make final.  A reader that fell more
 * than the ring behind maps across the pairs it lost.
 */
int jr_ualign_step(struct jr_ualign *a, const struct jr_ualign_snap *s,
		   jr_sink_fn sink, void *ctx)
{
	struct jr_usamp *u = a->u;
	struct jr_tsc_pair p;
	uint64_t k;
	int ret;

	if (s->pairs - a->pairs >= JR_PAIRS)
		a->pairs = s->pairs - (JR_PAIRS - 1);
	for (k = a->pairs; k < s->pairs; k++) {
		p = u->pairs[k % JR_PAIRS];
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&u->nr_pairs, __ATOMIC_RELAXED) - k >=
		    JR_PAIRS)
			continue; /* overwritten while we read it */
		a->seg[0] = a->seg[1];
		a->seg[1] = p;
		if (!a->first.mono_ns) {
			a->first = p;
			a->w0 = (int64_t)p.mono_ns;
			continue;
		}
		ret = jr_segment(a, s->done && k + 1 == s->pairs, sink, ctx);
		if (ret) {
			a->pairs = k + 1;
			return ret;
		}
	}
	a->pairs = s->pairs;
	return 0;
}

/* jr_ualign_phase_map - the line through the first and last pairs read. */
void jr_ualign_phase_map(const struct jr_ualign *a, struct jr_tsc_map *m)
{
	jr_tsc_fit(m, &a->first, &a->seg[1]);
}
