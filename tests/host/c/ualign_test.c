// SPDX-License-Identifier: GPL-2.0
/*
 * ualign_test.c - the user side's streaming aligner (usamp/jr_ualign.c) on
 * a sampler whose gaps, pairs and BPF records are written by hand: gaps
 * are classified a pair at a time, records out of arrival order still
 * land in their gap, records outside the window are left out, everything
 * is forgotten once final, and the queue is bounded.  Prints one line per
 * failed check and exits 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usamp/jr_ualign.h"
#include "usamp/jr_ubpf.h"
#include "jr_check.h"

#define MONO0 1000000 /* mono ns = TSC + MONO0: one cycle per ns */

static struct jr_rec out[64];
static int nout;

static int sink(void *ctx, const struct jr_rec *r)
{
	(void)ctx;
	if (nout < 64)
		out[nout++] = *r;
	return 0;
}

static void put_pair(struct jr_usamp *u, uint64_t tsc)
{
	struct jr_tsc_pair *p = &u->pairs[u->nr_pairs % JR_PAIRS];

	p->tsc = tsc;
	p->mono_ns = tsc + MONO0;
	p->window_cyc = 0;
	u->nr_pairs++;
}

static void put_gap(struct jr_usamp *u, uint64_t tsc, uint64_t cyc)
{
	u->gaps[u->nr_gaps % u->cap_gaps] =
		(struct jr_ugap){ .tsc = tsc, .cyc = cyc };
	u->nr_gaps++;
}

static void add(struct jr_ualign *a, int cls, uint64_t tsc, uint64_t net)
{
	struct jr_ubpf_rec r = { .start_ns = tsc + MONO0,
				 .net_ns = net,
				 .cpu = 1,
				 .cls = cls,
				 .vec = cls == JIT_NOISE_IRQ ? 0 : 1,
				 .id = 7 };

	snprintf(r.name, sizeof(r.name), "src%d", cls);
	CHECK(!jr_ualign_add(a, &r));
}

static void step(struct jr_ualign *a)
{
	struct jr_ualign_snap s;

	jr_ualign_snap(a, &s);
	CHECK(!jr_ualign_step(a, &s, sink, NULL));
}

static void check_stream(void)
{
	struct jr_ugap gaps[8];
	struct jr_usamp u = { .cpu = 1, .gaps = gaps, .cap_gaps = 8 };
	struct jr_ualign a;

	jr_ualign_init(&a, &u);
	put_pair(&u, 1000);
	put_gap(&u, 2000, 500);
	put_gap(&u, 5000, 300);
	put_pair(&u, 4000);
	add(&a, JIT_NOISE_NMI, 500, 10); /* before the window */
	add(&a, JIT_NOISE_IRQ, 2100, 400); /* in gap 1 */
	add(&a, JIT_NOISE_THREAD, 2050, 50); /* in gap 1, arrived later */
	add(&a, JIT_NOISE_SOFTIRQ, 3000, 20); /* between the gaps */
	step(&a);
	/* gap 1 by the first two pairs; gap 2 lies past the second pair */
	CHECK(u.gaps_read == 1);
	CHECK(a.gaps == 1 && a.classified == 1);
	CHECK(nout == 4);
	CHECK(out[0].type == JR_GAP && out[0].cls == JIT_NOISE_IRQ);
	CHECK(out[0].v[0] == 500 && out[0].v[1] == 50);
	CHECK(out[0].ts_ns == 2000 + MONO0);
	/* then the records before the pair, by arrival, the early one left out */
	CHECK(out[1].type == JR_THREAD && out[1].ts_ns == 2050 + MONO0);
	CHECK(out[2].type == JR_IRQ && !strcmp(out[2].name, "local_timer"));
	CHECK(out[3].type == JR_SOFTIRQ);
	CHECK(a.records == 3);
	CHECK(a.nr == 0 && a.head == 0); /* nothing kept */

	/* the sampler ends at 8000 and reads its last pair at 9000 */
	add(&a, JIT_NOISE_NMI, 5100, 200); /* in gap 2 */
	add(&a, JIT_NOISE_IRQ, 8500, 5); /* after the window */
	u.end_tsc = 8000;
	put_pair(&u, 9000);
	u.done = 1;
	step(&a);
	CHECK(u.gaps_read == 2);
	CHECK(a.gaps == 2 && a.classified == 2);
	CHECK(nout == 6);
	CHECK(out[4].type == JR_GAP && out[4].cls == JIT_NOISE_NMI);
	CHECK(out[5].type == JR_NMI && out[5].ts_ns == 5100 + MONO0);
	CHECK(a.records == 4);
	CHECK(a.nr == 0);
	/* a step with nothing new writes nothing */
	step(&a);
	CHECK(nout == 6);
	jr_ualign_free(&a);
}

static void check_unclassified_and_bounded(void)
{
	struct jr_ugap gaps[4];
	struct jr_usamp u = { .cpu = 1, .gaps = gaps, .cap_gaps = 4 };
	struct jr_ualign a;
	uint32_t i;

	nout = 0;
	jr_ualign_init(&a, &u);
	put_pair(&u, 1000);
	put_gap(&u, 2000, 100);
	for (i = 0; i <= JR_UQ_MAX; i++)
		add(&a, JIT_NOISE_IRQ, 3000 + i, 1);
	CHECK(a.q_dropped == 1);
	CHECK(a.nr - a.head == JR_UQ_MAX);
	put_pair(&u, 3000 + JR_UQ_MAX + 10);
	step(&a);
	CHECK(a.gaps == 1 && a.classified == 0);
	CHECK(out[0].type == JR_GAP && out[0].cls == JIT_NOISE_HW_UNKNOWN);
	CHECK(a.records == JR_UQ_MAX);
	CHECK(a.nr == 0);
	jr_ualign_free(&a);
}

int main(void)
{
	check_stream();
	check_unclassified_and_bounded();
	if (!failed)
		printf("ok\n");
	return failed;
}
