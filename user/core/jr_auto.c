// SPDX-License-Identifier: GPL-2.0
/*
 * jr_auto.c - rtla's auto analysis (-a), from jitmod's events: when
 * jitmod stops on a gap, what ran inside that gap, net of nesting, and
 * the source to act on; when it stops on a period's noise, what made up
 * that period.
 *
 * jitmod emits an interference's event when it ends, then the gap that
 * held it, then the stop; so what ran inside a gap comes before it, after
 * the gap before it on that CPU, and within its span.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_text.h"
#include "core/jr_auto.h"
#include "core/jr_model.h"

#define JR_AUTO_ROWS 16 /* sources listed */
#define JR_AUTO_SLACK_NS 1000 /* the stamp before a gap's first event */

struct jr_auto_src {
	char key[64];
	uint64_t ns;
	uint64_t count;
};

/* jr_auto_add - r into the sources, by key; the smallest row gives way */
static void jr_auto_add(struct jr_auto_src *s, int *nr, const struct jr_rec *r)
{
	char key[64];
	int h, i, least = 0;

	if (jr_source_key(r, key, sizeof(key), &h) < 0)
		return;
	for (i = 0; i < *nr; i++) {
		if (!strcmp(s[i].key, key)) {
			s[i].ns += r->v[0];
			s[i].count++;
			return;
		}
		if (s[i].ns < s[least].ns)
			least = i;
	}
	if (*nr < JR_AUTO_ROWS)
		least = (*nr)++;
	else if (s[least].ns >= r->v[0])
		return;
	snprintf(s[least].key, sizeof(s[least].key), "%s", key);
	s[least].ns = r->v[0];
	s[least].count = 1;
}

static int jr_auto_cmp(const void *a, const void *b)
{
	const struct jr_auto_src *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->key, y->key);
}

/* jr_auto_rows - the sources, largest first; the largest, or NULL */
static const struct jr_auto_src *jr_auto_rows(FILE *out, struct jr_auto_src *s,
					      int nr, double div,
					      const char *unit)
{
	char shown[4 * sizeof(s->key)];
	int i;

	qsort(s, nr, sizeof(*s), jr_auto_cmp);
	for (i = 0; i < nr; i++)
		fprintf(out, "    %-36s %12.3f %s  (%" PRIu64 " event%s)\n",
			jr_text_safe(s[i].key, shown, sizeof(shown)),
			s[i].ns / div, unit, s[i].count,
			s[i].count == 1 ? "" : "s");
	return nr ? &s[0] : NULL;
}

/* jr_auto_find - the last record of type on cpu before index end, or -1 */
static long jr_auto_find(const struct jr_rec *recs, long end, int type,
			 uint32_t cpu)
{
	long i;

	for (i = end - 1; i >= 0; i--)
		if (recs[i].type == type && recs[i].cpu == cpu)
			return i;
	return -1;
}

static bool jr_auto_inside(const struct jr_rec *r, uint32_t cpu)
{
	return r->cpu == cpu && (r->type == JR_IRQ || r->type == JR_SOFTIRQ ||
				 r->type == JR_NMI || r->type == JR_THREAD);
}

/* jr_auto_gap - the gap at g: its parts, and what to act on */
static void jr_auto_gap(FILE *out, const struct jr_rec *recs, long g,
			double div, const char *unit)
{
	const struct jr_rec *gap = &recs[g];
	struct jr_auto_src s[JR_AUTO_ROWS];
	const struct jr_auto_src *top;
	uint64_t from = gap->ts_ns > gap->v[0] + JR_AUTO_SLACK_NS ?
				gap->ts_ns - gap->v[0] - JR_AUTO_SLACK_NS :
				0;
	long i = jr_auto_find(recs, g, JR_GAP, gap->cpu) + 1;
	int nr = 0;

	fprintf(out, "  the gap: %.3f %s on CPU %u, filed as %s\n",
		gap->v[0] / div, unit, gap->cpu, jr_hclass_name(1 + gap->cls));
	fprintf(out,
		"  inside it, net of nesting: irq %.3f, softirq %.3f, nmi %.3f, thread %.3f; hardware %.3f (steal %.3f, %d SMI) %s\n",
		gap->v[3] / div, gap->v[4] / div, gap->v[5] / div,
		gap->v[6] / div, gap->v[1] / div, gap->v[2] / div, gap->id,
		unit);
	for (; i < g; i++)
		if (jr_auto_inside(&recs[i], gap->cpu) && recs[i].ts_ns >= from)
			jr_auto_add(s, &nr, &recs[i]);
	top = jr_auto_rows(out, s, nr, div, unit);
	if (top && top->ns >= gap->v[1])
		fprintf(out, "  act on: %s, %.1f %% of the gap\n", top->key,
			100.0 * top->ns / (double)(gap->v[0] ? gap->v[0] : 1));
	else
		fprintf(out,
			"  act on: the hardware or the hypervisor, %.1f %% of the gap: no code on this CPU ran in it (see jitread advise)\n",
			100.0 * gap->v[1] /
				(double)(gap->v[0] ? gap->v[0] : 1));
}

/* jr_auto_period - a stop on a period's noise: its sources since the
 * period began */
static void jr_auto_period(FILE *out, const struct jr_rec *recs, long end,
			   uint32_t cpu, double div, const char *unit)
{
	struct jr_auto_src s[JR_AUTO_ROWS];
	const struct jr_auto_src *top;
	long i = jr_auto_find(recs, end, JR_SUMMARY, cpu) + 1;
	uint64_t hw = 0;
	int nr = 0;

	for (; i < end; i++) {
		if (jr_auto_inside(&recs[i], cpu))
			jr_auto_add(s, &nr, &recs[i]);
		if (recs[i].type == JR_GAP && recs[i].cpu == cpu)
			hw += recs[i].v[1];
	}
	fprintf(out, "  the period's sources on CPU %u, net of nesting:\n",
		cpu);
	top = jr_auto_rows(out, s, nr, div, unit);
	fprintf(out, "    %-36s %12.3f %s\n", "hardware (no code ran)",
		hw / div, unit);
	if (top && top->ns >= hw)
		fprintf(out, "  act on: %s\n", top->key);
	else
		fprintf(out,
			"  act on: the hardware or the hypervisor (see jitread advise)\n");
}

int jr_auto_account(FILE *out, const struct jr_rec *recs, size_t nr,
		    const struct jr_rec *stop, double div, const char *unit)
{
	long end = (long)nr, g;

	fprintf(out,
		"## auto analysis: jitmod stopped on CPU %u, %s %.3f %s > %.3f %s\n",
		stop->cpu,
		stop->cls == JIT_STOP_SINGLE ? "a gap of" : "a period's noise",
		stop->v[0] / div, unit, stop->v[1] / div, unit);
	if (stop->cls != JIT_STOP_SINGLE) {
		jr_auto_period(out, recs, end, stop->cpu, div, unit);
		return 0;
	}
	for (g = end - 1; g >= 0; g--)
		if (recs[g].type == JR_GAP && recs[g].cpu == stop->cpu &&
		    recs[g].v[0] == stop->v[0])
			break;
	if (g < 0) {
		fprintf(out,
			"  the gap is not among the events read (lost by the ring buffer?)\n");
		return -ENOENT;
	}
	jr_auto_gap(out, recs, g, div, unit);
	return 0;
}
