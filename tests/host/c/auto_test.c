// SPDX-License-Identifier: GPL-2.0
/*
 * auto_test.c - -a's account of a stop (core/jr_auto.c), from records
 * laid out as jitmod emits them: what ran inside a gap before the gap,
 * then the stop.  Prints one line per failed check; exit 1 if any.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jr_auto.h"
#include "jitmod_abi.h"
#include "jr_check.h"

static struct jr_rec recs[16];
static size_t nr;

static struct jr_rec *add(int type, uint32_t cpu, uint64_t ts, uint64_t v0,
			  const char *name)
{
	struct jr_rec *r = &recs[nr++];

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->cpu = cpu;
	r->ts_ns = ts;
	r->v[0] = v0;
	r->id = -1;
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

/* account - the text jr_auto_account writes for stop; its return in *ret */
static char *account(const struct jr_rec *stop, int *ret)
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	*ret = jr_auto_account(f, recs, nr, stop, 1000.0, "us");
	fclose(f);
	return buf;
}

int main(void)
{
	struct jr_rec stop = { .type = JR_STOP, .cpu = 1, .cls = 0 };
	struct jr_rec *g;
	char *t;
	int ret;

	/* a gap of 40 us at 100 us: a timer IRQ and a softirq inside it */
	add(JR_IRQ, 1, 50000, 9000, "too_early");
	add(JR_IRQ, 1, 70000, 30000, "local_timer");
	add(JR_IRQ, 2, 80000, 90000, "other_cpu");
	add(JR_SOFTIRQ, 1, 90000, 5000, "")->cls = 1;
	g = add(JR_GAP, 1, 100000, 40000, "");
	g->id = 0; /* SMIs */
	g->v[1] = 5000;
	g->v[3] = 30000;
	g->v[4] = 5000;
	stop.v[0] = 40000;
	stop.v[1] = 30000;
	t = account(&stop, &ret);
	CHECK(ret == 0);
	CHECK(strstr(t, "a gap of 40.000 us > 30.000 us"));
	CHECK(strstr(t, "irq:local_timer"));
	CHECK(strstr(t, "softirq:TIMER"));
	CHECK(!strstr(t, "too_early"));
	CHECK(!strstr(t, "other_cpu"));
	CHECK(strstr(t, "act on: irq:local_timer, 75.0 % of the gap"));
	CHECK(strstr(t, "hardware 5.000 (steal 0.000, 0 SMI)"));

	/* then a quiet gap: nothing ran, the hardware is to blame */
	g = add(JR_GAP, 1, 200000, 60000, "");
	g->v[1] = 60000;
	g->cls = JIT_NOISE_HW_UNKNOWN;
	stop.v[0] = 60000;
	t = account(&stop, &ret);
	CHECK(ret == 0);
	CHECK(!strstr(t, "local_timer"));
	CHECK(strstr(t, "act on: the hardware or the hypervisor, 100.0 %"));

	/* a gap that was not read */
	stop.v[0] = 123;
	t = account(&stop, &ret);
	CHECK(ret == -ENOENT);
	CHECK(strstr(t, "not among the events read"));

	/* a period's noise: every source since its summary */
	add(JR_SUMMARY, 1, 300000, 0, "");
	add(JR_THREAD, 1, 310000, 70000, "kworker/1:1")->id = 42;
	add(JR_IRQ, 1, 320000, 2000, "local_timer");
	stop.cls = 1;
	stop.v[0] = 72000;
	t = account(&stop, &ret);
	CHECK(ret == 0);
	CHECK(strstr(t, "a period's noise 72.000 us"));
	CHECK(strstr(t, "act on: thread:kworker/1:1[42]"));
	if (failed)
		fputs(t, stdout);
	else
		printf("ok\n");
	return failed;
}
