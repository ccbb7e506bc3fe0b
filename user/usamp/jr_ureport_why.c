// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ureport_why.c - why the two floors differ: per CPU, the time each
 * side lost per second of sampling to each class and to the top sources
 * of either side, the difference ranked, and a sentence naming the
 * largest.  A class's time is the net time its events took inside the
 * gaps (hw:* gaps whole; "unexplained" for the rest; "unseen" for the
 * noise of gaps that were not read), so the classes of a side add up to
 * its noise.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usamp/jr_ureport.h"
#include "common/jr_text.h"

/* jr_why_rate - ns per second of runtime */
static double jr_why_rate(uint64_t ns, const struct jr_cpu *c)
{
	return c && c->runtime_ns ? ns * 1e9 / c->runtime_ns : 0;
}

static struct jr_why_row *jr_why_find(struct jr_why *w, const char *key)
{
	int i;

	for (i = 0; i < w->nr; i++)
		if (w->row[i].source && !strcmp(w->row[i].what, key))
			return &w->row[i];
	if (w->nr == JR_WHY_ROWS)
		return NULL;
	snprintf(w->row[w->nr].what, sizeof(w->row[0].what), "%s", key);
	w->row[w->nr].source = true;
	return &w->row[w->nr++];
}

/* jr_why_sources - the top sources of side s (0 kernel, 1 user) */
static void jr_why_sources(struct jr_why *w, const struct jr_cpu *c, int s)
{
	struct jr_why_row *r;
	int i;

	for (i = 0; c && i < c->nr_src && i < JR_WHY_SOURCES; i++) {
		r = jr_why_find(w, c->src[i].key);
		if (r)
			r->ns_per_s[s] = jr_why_rate(c->src[i].total_ns, c);
	}
}

/* the other side's time of a source that is in one side's top only */
static void jr_why_other(struct jr_why *w, const struct jr_cpu *c, int s)
{
	int i, j;

	for (i = 0; i < w->nr; i++) {
		if (!w->row[i].source || w->row[i].ns_per_s[s] || !c)
			continue;
		for (j = 0; j < c->nr_src; j++)
			if (!strcmp(c->src[j].key, w->row[i].what))
				w->row[i].ns_per_s[s] =
					jr_why_rate(c->src[j].total_ns, c);
	}
}

static int jr_why_cmp(const void *a, const void *b)
{
	const struct jr_why_row *x = a, *y = b;
	double dx = fabs(x->ns_per_s[1] - x->ns_per_s[0]);
	double dy = fabs(y->ns_per_s[1] - y->ns_per_s[0]);

	if (x->source != y->source)
		return x->source - y->source; /* the classes first */
	return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->what, y->what);
}

/*
 * jr_why_of - w for one CPU's kernel side k and user side u (either may
 * be NULL): the classes that either side lost time to, then the top
 * sources of both, each group ranked by the size of its difference.
 */
void jr_why_of(struct jr_why *w, const struct jr_cpu *k, const struct jr_cpu *u,
	       const struct jr_ucount *uc)
{
	const struct jr_cpu *side[2] = { k, u };
	int h, s;

	memset(w, 0, sizeof(*w));
	for (s = 0; s < 2; s++)
		w->noise_ns_per_s[s] =
			side[s] ? jr_why_rate(side[s]->noise_ns, side[s]) : 0;
	for (h = 0; h < JR_H_NR; h++) {
		struct jr_why_row *r = &w->row[w->nr];

		for (s = 0; s < 2; s++)
			r->ns_per_s[s] = side[s] ?
						 jr_why_rate(side[s]->net_ns[h],
							     side[s]) :
						 0;
		if (!r->ns_per_s[0] && !r->ns_per_s[1])
			continue;
		snprintf(r->what, sizeof(r->what), "%s",
			 h == JR_H_GAP ? "unexplained" : jr_hclass_name(h));
		w->nr++;
	}
	/* noise the summaries counted in gaps that were not read */
	for (s = 0; s < 2; s++)
		w->row[w->nr].ns_per_s[s] =
			side[s] ? jr_why_rate(side[s]->unseen_ns, side[s]) : 0;
	if (w->row[w->nr].ns_per_s[0] || w->row[w->nr].ns_per_s[1])
		snprintf(w->row[w->nr++].what, sizeof(w->row[0].what),
			 "unseen");
	for (s = 0; s < 2; s++)
		jr_why_sources(w, side[s], s);
	for (s = 0; s < 2; s++)
		jr_why_other(w, side[s], s);
	qsort(w->row, w->nr, sizeof(w->row[0]), jr_why_cmp);
	w->uc = uc;
}

/* jr_why_gloss - what a class's time is, in words, or "" */
static const char *jr_why_gloss(const struct jr_why_row *r)
{
	static const struct {
		const char *what, *gloss;
	} g[] = {
		{ "irq", " (interrupt handlers)" },
		{ "softirq", " (softirqs)" },
		{ "nmi", " (NMIs)" },
		{ "thread", " (other tasks that took the CPU)" },
		{ "hw:smi", " (SMIs: firmware)" },
		{ "hw:steal", " (the hypervisor ran another guest)" },
		{ "hw:unknown",
		  " (no kernel code ran: the hardware, or a hypervisor)" },
		{ "unexplained", " (gap time no event explains)" },
		{ "unseen", " (gaps whose events were not read)" },
	};
	size_t i;

	for (i = 0; !r->source && i < sizeof(g) / sizeof(g[0]); i++)
		if (!strcmp(r->what, g[i].what))
			return g[i].gloss;
	return "";
}

/* jr_why_text - the table of one CPU, then its sentence */
void jr_why_text(FILE *out, const struct jr_report_opts *o, int cpu,
		 const struct jr_why *w)
{
	const struct jr_why_row *top[2] = { NULL, NULL };
	double d = w->noise_ns_per_s[1] - w->noise_ns_per_s[0];
	char what[4 * sizeof(w->row[0].what)];
	int i, dec = o->div == 1.0 ? 0 : 3;

	for (i = 0; i < w->nr; i++) {
		const struct jr_why_row *r = &w->row[i];

		if (!top[r->source] && r->ns_per_s[1] != r->ns_per_s[0])
			top[r->source] = r;
		fprintf(out, "%-4d %-6s %-32s %14.*f %14.*f %+14.*f\n", cpu,
			r->source ? "source" : "class",
			jr_text_safe(r->what, what, sizeof(what)), dec,
			r->ns_per_s[0] / o->div, dec, r->ns_per_s[1] / o->div,
			dec, (r->ns_per_s[1] - r->ns_per_s[0]) / o->div);
	}
	fprintf(out,
		"CPU %d: the user thread lost %.*f %s/s %s than jitmod's kthread (%.*f against %.*f)",
		cpu, dec, fabs(d) / o->div, o->unit, d < 0 ? "less" : "more",
		dec, w->noise_ns_per_s[1] / o->div, dec,
		w->noise_ns_per_s[0] / o->div);
	/* a source named as its class (hw:unknown) is said once */
	if (top[0] && top[1] && !strcmp(top[0]->what, top[1]->what))
		top[1] = NULL;
	for (i = 0; i < 2; i++)
		if (top[i])
			fprintf(out,
				"; the largest difference %s is %s%s, %+.*f %s/s",
				i ? "of a source" : "of a class",
				jr_text_safe(top[i]->what, what, sizeof(what)),
				jr_why_gloss(top[i]), dec,
				(top[i]->ns_per_s[1] - top[i]->ns_per_s[0]) /
					o->div,
				o->unit);
	fprintf(out, "\n");
	if (w->uc) {
		fprintf(out,
			"CPU %d: what only the user thread can suffer: ", cpu);
		jr_ucount_text(out, w->uc);
		fprintf(out, "\n");
	}
}

/* jr_why_json - the "why" member of a compared CPU */
void jr_why_json(FILE *out, const struct jr_why *w)
{
	int i;

	fprintf(out,
		"\"why\": {\"noise_ns_per_s\": {\"kernel\": %.3f, \"user\": %.3f}, \"rows\": [",
		w->noise_ns_per_s[0], w->noise_ns_per_s[1]);
	for (i = 0; i < w->nr; i++) {
		const struct jr_why_row *r = &w->row[i];

		fprintf(out, "%s{\"kind\": \"%s\", \"name\": ", i ? ", " : "",
			r->source ? "source" : "class");
		jr_json_str(out, r->what);
		fprintf(out,
			", \"kernel_ns_per_s\": %.3f, \"user_ns_per_s\": %.3f, \"diff_ns_per_s\": %.3f}",
			r->ns_per_s[0], r->ns_per_s[1],
			r->ns_per_s[1] - r->ns_per_s[0]);
	}
	fprintf(out, "], \"user_only\": ");
	if (w->uc)
		jr_ucount_json(out, w->uc);
	else
		fprintf(out, "null");
	fprintf(out, "}");
}
