// SPDX-License-Identifier: GPL-2.0
/*
 * jr_diff_out_why.c - two comparisons' "why" side by side: per CPU, each
 * class's and top source's user-minus-kernel time per second in A and B
 * and its change, then the user thread's own counts in each.  Shown, not
 * judged: the rows are differences of two phases each, whose sampling
 * noise diff's verdict does not model.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_text.h"
#include "core/jr_diff_out.h"
#include "core/jr_report.h"

/* struct jr_wpair - one row of either comparison */
struct jr_wpair {
	const char *name;
	bool source;
	double d[2]; /* user - kernel, ns/s: A, B */
};

struct jr_wpairs {
	struct jr_wpair p[2 * JR_RWHY_ROWS];
	int nr;
};

static void jr_wpairs_add(struct jr_wpairs *w, const struct jr_rwhy *y, int ab)
{
	size_t i;
	int k;

	for (i = 0; i < y->nr; i++) {
		const struct jr_rwhy_row *r = &y->row[i];

		for (k = 0; k < w->nr; k++)
			if (w->p[k].source == r->source &&
			    !strcmp(w->p[k].name, r->name))
				break;
		if (k == w->nr) {
			w->p[k].name = r->name;
			w->p[k].source = r->source;
			w->nr++;
		}
		w->p[k].d[ab] = r->ns_per_s[1] - r->ns_per_s[0];
	}
}

static int jr_wpair_cmp(const void *x, const void *y)
{
	const struct jr_wpair *a = x, *b = y;
	double ca = fabs(a->d[1] - a->d[0]), cb = fabs(b->d[1] - b->d[0]);

	if (a->source != b->source)
		return a->source - b->source; /* the classes first */
	return ca < cb ? 1 : ca > cb ? -1 : strcmp(a->name, b->name);
}

static void jr_wpairs_of(struct jr_wpairs *w, const struct jr_dcpu *c)
{
	memset(w, 0, sizeof(*w));
	jr_wpairs_add(w, c->a->why, 0);
	jr_wpairs_add(w, c->b->why, 1);
	qsort(w->p, w->nr, sizeof(w->p[0]), jr_wpair_cmp);
}

static void jr_text_count(FILE *out, int64_t v)
{
	if (v < 0)
		fprintf(out, "-");
	else
		fprintf(out, "%" PRId64, v);
}

/* jr_diff_why_text - the rows of a CPU both comparisons explained */
void jr_diff_why_text(FILE *out, const struct jr_dcpu *c,
		      const struct jr_diff_view *v)
{
	const struct jr_rwhy *y[2];
	struct jr_wpairs w;
	char name[4 * JR_RWHY_NAME];
	int i, k;

	if (!c->a->why || !c->b->why)
		return;
	y[0] = c->a->why;
	y[1] = c->b->why;
	jr_wpairs_of(&w, c);
	fprintf(out, "  why the floors differ: user minus kernel, %s/s\n",
		v->unit);
	fprintf(out, "  %-6s %-32s %14s %14s %14s\n", "kind", "what", "A", "B",
		"change");
	fprintf(out, "  %-6s %-32s %+14.3f %+14.3f %+14.3f\n", "noise", "all",
		(y[0]->noise_ns_per_s[1] - y[0]->noise_ns_per_s[0]) / v->div,
		(y[1]->noise_ns_per_s[1] - y[1]->noise_ns_per_s[0]) / v->div,
		(y[1]->noise_ns_per_s[1] - y[1]->noise_ns_per_s[0] -
		 y[0]->noise_ns_per_s[1] + y[0]->noise_ns_per_s[0]) /
			v->div);
	for (i = 0; i < w.nr; i++)
		fprintf(out, "  %-6s %-32s %+14.3f %+14.3f %+14.3f\n",
			w.p[i].source ? "source" : "class",
			jr_text_safe(w.p[i].name, name, sizeof(name)),
			w.p[i].d[0] / v->div, w.p[i].d[1] / v->div,
			(w.p[i].d[1] - w.p[i].d[0]) / v->div);
	if (!y[0]->has_counts && !y[1]->has_counts)
		return;
	fprintf(out, "  the user thread's own, A -> B:");
	for (k = 0; k < JR_RW_NR; k++) {
		fprintf(out, "%s %s ", k ? "," : "", jr_rwhy_count_names[k]);
		jr_text_count(out, y[0]->has_counts ? y[0]->count[k] : -1);
		fprintf(out, " -> ");
		jr_text_count(out, y[1]->has_counts ? y[1]->count[k] : -1);
	}
	fprintf(out, "\n");
}

static void jr_json_counts(FILE *out, const struct jr_rwhy *y)
{
	if (y->has_counts)
		jr_rwhy_counts_json(out, y->count);
	else
		fprintf(out, "null");
}

/* jr_diff_why_json - the "user_minus_kernel" member, or nothing */
void jr_diff_why_json(FILE *out, const struct jr_dcpu *c)
{
	struct jr_wpairs w;
	int i;

	if (!c->a->why || !c->b->why)
		return;
	jr_wpairs_of(&w, c);
	fprintf(out, ",\n     \"user_minus_kernel\": {\"rows\": [");
	for (i = 0; i < w.nr; i++) {
		fprintf(out, "%s{\"kind\": \"%s\", \"name\": ", i ? ", " : "",
			w.p[i].source ? "source" : "class");
		jr_json_str(out, w.p[i].name);
		fprintf(out, ", \"ns_per_s\": [%.3f, %.3f]}", w.p[i].d[0],
			w.p[i].d[1]);
	}
	fprintf(out, "], \"user_only\": [");
	jr_json_counts(out, c->a->why);
	fprintf(out, ", ");
	jr_json_counts(out, c->b->why);
	fprintf(out, "]}");
}
