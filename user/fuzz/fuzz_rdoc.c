// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_rdoc.c - libFuzzer target: jitread diff's report reader, the
 * comparison and its writers on arbitrary bytes.  A report that parses
 * is compared with itself and with a copy whose runtimes, counts and
 * last slots are changed, so that the rates, the ladder and the sources
 * see unequal runs.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>

#include "core/jr_diff.h"
#include "core/jr_diff_out.h"
#include "core/jr_rdoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void jr_skew(struct jr_rdoc *d)
{
	size_t i, j;

	for (i = 0; i < d->nr_cpu; i++) {
		struct jr_rclass *g = &d->cpu[i].cls[JR_H_GAP];

		d->cpu[i].runtime_ns = d->cpu[i].runtime_ns * 3 / 2;
		if (g->nr_slots) {
			g->count -= g->slots[g->nr_slots - 1].count;
			g->nr_slots--;
		}
		for (j = 0; j < d->cpu[i].nr_src; j += 2)
			d->cpu[i].src[j].count /= 2;
	}
	d->threshold_ns += 500;
}

static void jr_compare(const struct jr_rdoc *a, const struct jr_rdoc *b,
		       FILE *out)
{
	struct jr_diff_view v = { "a", "b", "us", 1e3 };
	struct jr_diff d;

	if (!jr_diff_run(&d, a, b, NULL, 0.1)) {
		jr_diff_text(out, &d, &v);
		jr_diff_json(out, &d, &v);
	}
	jr_diff_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_rdoc a, b;
	struct jr_err e;
	FILE *out;

	if (jr_rdoc_parse(&a, (const char *)data, size, &e) ||
	    jr_rdoc_parse(&b, (const char *)data, size, &e)) {
		jr_rdoc_free(&a);
		return 0;
	}
	a.path = "a";
	b.path = "b";
	out = fopen("/dev/null", "w");
	if (out) {
		jr_compare(&a, &a, out);
		jr_skew(&b);
		jr_compare(&a, &b, out);
		jr_compare(&b, &a, out);
		fclose(out);
	}
	jr_rdoc_free(&a);
	jr_rdoc_free(&b);
	return 0;
}
