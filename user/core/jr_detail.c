// SPDX-License-Identifier: GPL-2.0
/*
 * jr_detail.c - give each jitmod:detail to its window, and find a
 * source's rate and dominant period.
 *
 * jitmod writes a detail when a callback returns inside an open window,
 * so the detail comes before that window's own event on its CPU.  A
 * detail waits here until the next event of its window's class claims
 * it: a thread event of the same pid for work items, a softirq event of
 * the vector the callback runs in, a local_timer irq event for hard
 * hrtimers and the tick's dependencies, and a call_function(_single) irq
 * event for IPIs.  A window whose net
 * time came to nothing writes no event; its details are dropped at the
 * period's summary, or when a later window of the class makes them stale,
 * and counted as orphans.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitmod_abi.h"
#include "core/jr_detail.h"

static const char *const jr_detail_kinds[JIT_DETAIL_NR] =
	JIT_DETAILS(JIT_X_NAME2);
static const char *const jr_tick_deps[JIT_TICK_DEP_NR] =
	JIT_TICK_DEPS(JIT_X_NAME);

/*
 * jr_detail_name - "work:fn", "timer:fn", "hrtimer:fn", "tick:A+B" or
 * "ipi:fn from CPU n" (n: the CPU that asked, when it was seen).
 */
static int jr_detail_name(const struct jr_rec *r, char *buf, size_t len)
{
	size_t n;
	int b;

	if (r->cls < 0 || r->cls >= JIT_DETAIL_NR)
		return snprintf(buf, len, "detail:%d", r->cls);
	if (r->cls == JIT_DETAIL_IPI && r->id >= 0)
		return snprintf(buf, len, "ipi:%s from CPU %d", r->name, r->id);
	if (r->cls != JIT_DETAIL_TICK)
		return snprintf(buf, len, "%s:%s", jr_detail_kinds[r->cls],
				r->name);
	n = snprintf(buf, len, "tick:");
	for (b = 0; b < 32 && n < len; b++) {
		if (!((uint32_t)r->id & (1u << b)))
			continue;
		if (b < JIT_TICK_DEP_NR)
			n += snprintf(buf + n, len - n, "%s%s",
				      buf[n - 1] == ':' ? "" : "+",
				      jr_tick_deps[b]);
		else
			n += snprintf(buf + n, len - n, "%sbit%d",
				      buf[n - 1] == ':' ? "" : "+", b);
	}
	return (int)n;
}

/* jr_pend_add - keep a detail until its window's event; oldest go first. */
void jr_pend_add(struct jr_pend *p, const struct jr_rec *r)
{
	if (p->nr == JR_PEND_MAX) {
		memmove(p->r, p->r + 1, (JR_PEND_MAX - 1) * sizeof(p->r[0]));
		p->nr--;
		p->orphans++;
	}
	p->r[p->nr++] = *r;
}

/* jr_pend_flush - the period ended: what waits has no window left. */
void jr_pend_flush(struct jr_pend *p)
{
	p->orphans += p->nr;
	p->nr = 0;
}

/*
 * jr_irq_claims - jr_claims() for an irq event: the local_timer vector
 * claims hard hrtimers and the tick, the call_function vectors claim
 * IPIs.  A tick waits through other interrupts for its local_timer.
 */
static int jr_irq_claims(const struct jr_rec *w, const struct jr_rec *d)
{
	bool vec = w->id < 0, local = vec && !strcmp(w->name, "local_timer");
	bool csd = vec && (!strcmp(w->name, "call_function") ||
			   !strcmp(w->name, "call_function_single"));

	switch (d->cls) {
	case JIT_DETAIL_TICK:
		return local ? 1 : 0;
	case JIT_DETAIL_IPI:
		return csd ? 1 : -1;
	default:
		return local ? 1 : -1;
	}
}

/*
 * jr_claims - whether window event w claims detail d (1), leaves it
 * waiting (0), or makes it stale (-1): a later window of d's class that
 * could have held it has closed without it.
 */
static int jr_claims(const struct jr_rec *w, const struct jr_rec *d)
{
	switch (w->type) {
	case JR_THREAD:
		if (d->id2 != JIT_NOISE_THREAD)
			return 0;
		return (int64_t)d->v[1] == w->id;
	case JR_SOFTIRQ:
		if (d->id2 != JIT_NOISE_SOFTIRQ)
			return 0;
		if (d->cls == JIT_DETAIL_TIMER)
			return w->cls == JIT_SOFTIRQ_TIMER ? 1 : 0;
		return w->cls == JIT_SOFTIRQ_HRTIMER ? 1 : 0;
	case JR_IRQ:
		if (d->id2 != JIT_NOISE_IRQ)
			return 0;
		return jr_irq_claims(w, d);
	default:
		return 0;
	}
}

/* jr_det_row - the row called name in *det, made if new; NULL: no memory */
static struct jr_detail_row *jr_det_row(struct jr_src_detail **det,
					const char *name)
{
	struct jr_src_detail *d = *det;
	int i;

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return NULL;
		*det = d;
	}
	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->row[i].name, name))
			return &d->row[i];
	if (d->nr == JR_MAX_DETAIL) {
		snprintf(d->row[d->nr].name, sizeof(d->row[0].name), "other");
		d->nr++;
	}
	if (d->nr > JR_MAX_DETAIL)
		return &d->row[JR_MAX_DETAIL];
	snprintf(d->row[d->nr].name, sizeof(d->row[0].name), "%s", name);
	return &d->row[d->nr++];
}

/*
 * jr_pend_claim - give window event w the details that wait for it, into
 * *det: a callback gets the share of w's net time that its own time has
 * among the callbacks in w; a tick dependency gets all of it.  0, or
 * -ENOMEM.
 */
int jr_pend_claim(struct jr_pend *p, const struct jr_rec *w,
		  struct jr_src_detail **det)
{
	int take[JR_PEND_MAX], i, k = 0, ran = 0;
	uint64_t wall = 0;

	for (i = 0; i < p->nr; i++) {
		take[i] = jr_claims(w, &p->r[i]);
		if (take[i] > 0 && p->r[i].cls != JIT_DETAIL_TICK) {
			wall += p->r[i].v[0];
			ran++;
		}
	}
	for (i = 0; i < p->nr; i++) {
		const struct jr_rec *d = &p->r[i];
		struct jr_detail_row *row;
		char name[sizeof(row->name)];
		double share;

		if (!take[i]) {
			p->r[k++] = *d;
			continue;
		}
		if (take[i] < 0) {
			p->orphans++;
			continue;
		}
		jr_detail_name(d, name, sizeof(name));
		row = jr_det_row(det, name);
		if (!row) {
			p->nr = 0;
			return -ENOMEM;
		}
		if (d->cls == JIT_DETAIL_TICK)
			share = 1.0;
		else if (wall)
			share = (double)d->v[0] / wall;
		else
			share = 1.0 / ran;
		row->count++;
		row->total_ns += (uint64_t)llround(share * w->v[0]);
	}
	p->nr = k;
	return 0;
}

/* jr_ia_bin - the log bin of an interval. */
static int jr_ia_bin(uint64_t ns)
{
	int oct, sub;

	if (ns < 2)
		return 0;
	oct = 63 - __builtin_clzll(ns);
	sub = oct >= 2 ? (int)((ns >> (oct - 2)) & 3) : 0;
	return oct * JR_IA_PER_OCT + sub < JR_IA_BINS ?
		       oct * JR_IA_PER_OCT + sub :
		       JR_IA_BINS - 1;
}

/*
 * jr_ia_add - one arrival at ts_ns of a source last seen at *last_ns
 * (0: never).  The bins are made at the second arrival.  0, or -ENOMEM.
 */
int jr_ia_add(struct jr_ia **ia, uint64_t *last_ns, uint64_t ts_ns)
{
	uint64_t prev = *last_ns, d;
	int b;

	*last_ns = ts_ns;
	if (!prev || ts_ns <= prev)
		return 0;
	if (!*ia) {
		*ia = calloc(1, sizeof(**ia));
		if (!*ia)
			return -ENOMEM;
	}
	d = ts_ns - prev;
	b = jr_ia_bin(d);
	(*ia)->bin[b]++;
	(*ia)->sum[b] += d;
	(*ia)->n++;
	return 0;
}

/*
 * jr_ia_period - the dominant inter-arrival time: the mean of the three
 * adjacent bins (about +-20 %) that hold the most intervals.  Returns the
 * share of all intervals they hold (0 when there are fewer than two).
 */
double jr_ia_period(const struct jr_ia *ia, uint64_t *period_ns)
{
	uint64_t best = 0, n, sum;
	int b, i, at = -1;

	*period_ns = 0;
	if (!ia || ia->n < 2)
		return 0.0;
	for (b = 0; b < JR_IA_BINS; b++) {
		n = 0;
		for (i = b - 1; i <= b + 1; i++)
			if (i >= 0 && i < JR_IA_BINS)
				n += ia->bin[i];
		if (n > best) {
			best = n;
			at = b;
		}
	}
	sum = 0;
	for (i = at - 1; i <= at + 1; i++)
		if (i >= 0 && i < JR_IA_BINS)
			sum += ia->sum[i];
	*period_ns = sum / best;
	return (double)best / ia->n;
}
