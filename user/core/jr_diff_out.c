// SPDX-License-Identifier: GPL-2.0
/*
 * jr_diff_out.c - jitread diff's text and JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "common/jr_text.h"
#include "core/jr_diff.h"
#include "core/jr_diff_out.h"
#include "core/jr_envelope.h"
#include "core/jr_report.h"

#define JR_DIFF_TEXT_SOURCES 20 /* source rows per CPU in the text */

/* jr_change - b against a in %, or a word when a is 0. */
static const char *jr_change(double a, double b, char *buf, size_t len)
{
	if (a > 0)
		snprintf(buf, len, "%+.1f%%", (b - a) / a * 100);
	else
		snprintf(buf, len, "%s", b > 0 ? "new" : "-");
	return buf;
}

static void jr_text_measures(FILE *out, const struct jr_dcpu *c,
			     const struct jr_diff_view *v)
{
	char what[48], ch[24];
	int i;

	fprintf(out, "  %-24s %14s %14s %9s %6s %8s  %s\n", "measure", "A", "B",
		"change", "disp", "z", "verdict");
	for (i = 0; i < c->nr_m; i++) {
		const struct jr_dmeasure *m = &c->m[i];
		double disp = m->disp_a > m->disp_b ? m->disp_a : m->disp_b;

		jr_change(m->a, m->b, ch, sizeof(ch));
		if (!m->level_ns) {
			fprintf(out,
				"  %-24s %13.6f%% %13.6f%% %9s %6.1f %8.1f  %s\n",
				"noise (of runtime)", m->a * 100, m->b * 100,
				ch, disp, m->z, jr_dverdict_name(m->verdict));
			continue;
		}
		snprintf(what, sizeof(what), "gaps/s above %g %s",
			 (double)m->level_ns / v->div, v->unit);
		fprintf(out, "  %-24s %14.3f %14.3f %9s %6.1f %8.1f  %s\n",
			what, m->a, m->b, ch, disp, m->z,
			jr_dverdict_name(m->verdict));
	}
}

static void jr_text_classes(FILE *out, const struct jr_dcpu *c,
			    const struct jr_diff_view *v)
{
	static const double show[] = { 50, 99, 99.99, 100 };
	int h;
	size_t k;

	fprintf(out, "  %-11s %10s %10s", "class", "gaps A", "gaps B");
	for (k = 0; k < 4; k++) {
		char p[16];

		if (k < 3)
			snprintf(p, sizeof(p), "p%g", show[k]);
		else
			snprintf(p, sizeof(p), "max");
		fprintf(out, " %9s A %9s B", p, p);
	}
	fprintf(out, " (%s)\n", v->unit);
	for (h = 0; h < JR_H_NR; h++) {
		const struct jr_rclass *a = &c->a->cls[h], *b = &c->b->cls[h];

		if (!a->count && !b->count)
			continue;
		fprintf(out, "  %-11s %10" PRIu64 " %10" PRIu64,
			jr_hclass_name(h), a->count, b->count);
		for (k = 0; k < 4; k++)
			fprintf(out, " %11.3f %11.3f",
				(double)jr_rclass_percentile(a, show[k]) /
					v->div,
				(double)jr_rclass_percentile(b, show[k]) /
					v->div);
		fprintf(out, "\n");
	}
}

static void jr_text_sources(FILE *out, const struct jr_dcpu *c,
			    const struct jr_diff_view *v)
{
	char name[64], ch[24], ta[24], tb[24];
	size_t i;

	snprintf(ta, sizeof(ta), "%s/s A", v->unit);
	snprintf(tb, sizeof(tb), "%s/s B", v->unit);
	fprintf(out, "  %-32s %-10s %10s %10s %12s %12s %8s  %s\n", "source",
		"class", "/s A", "/s B", ta, tb, "change", "verdict");
	for (i = 0; i < c->nr_src && i < JR_DIFF_TEXT_SOURCES; i++) {
		const struct jr_dsource *s = &c->src[i];
		const char *mark = jr_dverdict_name(s->verdict);

		if (s->verdict == JR_DV_BETTER && !s->count_b)
			mark = "gone";
		else if (s->verdict == JR_DV_WORSE && !s->count_a)
			mark = "new";
		jr_text_safe(s->name, name, sizeof(name));
		fprintf(out,
			"  %-32s %-10s %10.3f %10.3f %12.3f %12.3f %8s  %s\n",
			name, jr_hclass_name(s->hcls),
			jr_rate(s->count_a, c->a->runtime_ns),
			jr_rate(s->count_b, c->b->runtime_ns),
			s->time_a / v->div, s->time_b / v->div,
			jr_change(s->time_a, s->time_b, ch, sizeof(ch)), mark);
	}
	if (c->nr_src > JR_DIFF_TEXT_SOURCES)
		fprintf(out, "  (%zu more sources in --json)\n",
			c->nr_src - JR_DIFF_TEXT_SOURCES);
}

static void jr_text_cpu(FILE *out, const struct jr_dcpu *c,
			const struct jr_diff_view *v)
{
	fprintf(out, "\nCPU %d: %s", c->cpu, jr_dverdict_name(c->verdict));
	if (c->unjudged)
		fprintf(out, " (%s)", c->unjudged);
	fprintf(out, "; runtime A %.3f s, B %.3f s\n",
		(double)c->a->runtime_ns / 1e9, (double)c->b->runtime_ns / 1e9);
	if (c->nr_m)
		jr_text_measures(out, c, v);
	jr_text_classes(out, c, v);
	if (c->nr_src)
		jr_text_sources(out, c, v);
	jr_diff_why_text(out, c, v);
}

static void jr_text_only(FILE *out, const char *which, const int *cpu, int nr)
{
	int i;

	if (!nr)
		return;
	fprintf(out, "CPUs only in %s, not compared:", which);
	for (i = 0; i < nr && i < 16; i++)
		fprintf(out, " %d", cpu[i]);
	fprintf(out, "%s\n", nr > 16 ? " ..." : "");
}

/* jr_diff_text - the comparison for people. */
int jr_diff_text(FILE *out, const struct jr_diff *d,
		 const struct jr_diff_view *v)
{
	char ka[128], kb[128];
	int k;

	jr_text_safe(d->a->kernel, ka, sizeof(ka));
	jr_text_safe(d->b->kernel, kb, sizeof(kb));
	fprintf(out, "A: %s (%s)\nB: %s (%s)\n", v->label_a, ka, v->label_b,
		kb);
	fprintf(out,
		"rule: a change counts at %.0f standard errors (more for a dispersion from few seconds) and %g%% of A; levels from %g %s\n",
		JR_DIFF_Z, d->min_change * 100, (double)d->floor_ns / v->div,
		v->unit);
	if (d->noise_from_slots)
		fprintf(out,
			"noise: from the gaps at or above %g %s (the thresholds differ or are not known)\n",
			(double)d->floor_ns / v->div, v->unit);
	jr_text_only(out, "A", d->only_a, d->nr_only_a);
	jr_text_only(out, "B", d->only_b, d->nr_only_b);
	for (k = 0; k < d->nr_cpu; k++)
		jr_text_cpu(out, &d->cpu[k], v);
	fprintf(out, "\nverdict: %s\n", jr_dverdict_name(d->verdict));
	return ferror(out) ? -EIO : 0;
}

static void jr_json_pair(FILE *out, const char *name, double a, double b)
{
	fprintf(out, "\"%s\": [%.9g, %.9g]", name, a, b);
}

static void jr_json_classes(FILE *out, const struct jr_dcpu *c)
{
	size_t k;
	int h, n = 0;

	fprintf(out, ",\n     \"classes\": {");
	for (h = 0; h < JR_H_NR; h++) {
		const struct jr_rclass *a = &c->a->cls[h], *b = &c->b->cls[h];

		if (!a->count && !b->count)
			continue;
		fprintf(out, "%s\n       \"%s\": {", n++ ? "," : "",
			jr_hclass_name(h));
		jr_json_pair(out, "count", (double)a->count, (double)b->count);
		fprintf(out, ", ");
		jr_json_pair(out, "max_ns", (double)a->max_ns,
			     (double)b->max_ns);
		fprintf(out, ", \"percentiles_ns\": {");
		for (k = 0; k < JR_NR_PCTS; k++) {
			char name[16];

			snprintf(name, sizeof(name), "%g", jr_pcts[k]);
			fprintf(out, "%s", k ? ", " : "");
			jr_json_pair(
				out, name,
				(double)jr_rclass_percentile(a, jr_pcts[k]),
				(double)jr_rclass_percentile(b, jr_pcts[k]));
		}
		fprintf(out, "}}");
	}
	fprintf(out, "}");
}

static void jr_json_sources(FILE *out, const struct jr_dcpu *c)
{
	size_t i;

	fprintf(out, ",\n     \"sources\": [");
	for (i = 0; i < c->nr_src; i++) {
		const struct jr_dsource *s = &c->src[i];

		fprintf(out, "%s\n       {\"source\": ", i ? "," : "");
		jr_json_str(out, s->name);
		fprintf(out, ", \"class\": \"%s\", ", jr_hclass_name(s->hcls));
		jr_json_pair(out, "count", (double)s->count_a,
			     (double)s->count_b);
		fprintf(out, ", ");
		jr_json_pair(out, "per_s",
			     jr_rate(s->count_a, c->a->runtime_ns),
			     jr_rate(s->count_b, c->b->runtime_ns));
		fprintf(out, ", ");
		jr_json_pair(out, "ns_per_s", s->time_a, s->time_b);
		fprintf(out, ", \"z\": %.3f, \"verdict\": \"%s\"}",
			isfinite(s->z) ? s->z : 0,
			jr_dverdict_name(s->verdict));
	}
	fprintf(out, "]");
}

static void jr_json_cpu(FILE *out, const struct jr_dcpu *c)
{
	int i;

	fprintf(out, "    {\"cpu\": %d, \"verdict\": \"%s\", \"why\": ", c->cpu,
		jr_dverdict_name(c->verdict));
	jr_json_str(out, c->unjudged ? c->unjudged : "");
	fprintf(out, ", ");
	jr_json_pair(out, "runtime_ns", (double)c->a->runtime_ns,
		     (double)c->b->runtime_ns);
	fprintf(out, ",\n     \"measures\": [");
	for (i = 0; i < c->nr_m; i++) {
		const struct jr_dmeasure *m = &c->m[i];

		fprintf(out,
			"%s\n       {\"measure\": \"%s\", \"level_ns\": %" PRIu64
			", ",
			i ? "," : "",
			m->level_ns ? "gaps_per_s_above" : "noise_share",
			m->level_ns);
		jr_json_pair(out, "value", m->a, m->b);
		fprintf(out, ", ");
		jr_json_pair(out, "dispersion", m->disp_a, m->disp_b);
		fprintf(out,
			", \"z\": %.3f, \"critical_z\": %.3f, \"verdict\": \"%s\"}",
			m->z, m->crit, jr_dverdict_name(m->verdict));
	}
	fprintf(out, "]");
	jr_json_classes(out, c);
	jr_json_sources(out, c);
	jr_diff_why_json(out, c);
	fprintf(out, "}");
}

static void jr_json_ints(FILE *out, const int *v, int nr)
{
	int i;

	fprintf(out, "[");
	for (i = 0; i < nr && i < 16; i++)
		fprintf(out, "%s%d", i ? ", " : "", v[i]);
	fprintf(out, "]");
}

/* jr_diff_json - the comparison as data (diff_version 1). */
int jr_diff_json(FILE *out, const struct jr_diff *d,
		 const struct jr_diff_view *v)
{
	int k;

	fprintf(out, "{\n  \"diff_version\": 1,\n  ");
	jr_envelope_json(out);
	fprintf(out, ",\n  \"a\": ");
	jr_json_str(out, v->label_a);
	fprintf(out, ", \"b\": ");
	jr_json_str(out, v->label_b);
	fprintf(out,
		", \"side\": \"%s\",\n  \"rule\": {\"z\": %.1f, \"min_change\": %.4f, \"floor_ns\": %" PRIu64
		", \"noise_from\": \"%s\"},\n  \"verdict\": \"%s\", \"only_a\": ",
		d->a->side, JR_DIFF_Z, d->min_change, d->floor_ns,
		d->noise_from_slots ? "gaps" : "summary",
		jr_dverdict_name(d->verdict));
	jr_json_ints(out, d->only_a, d->nr_only_a);
	fprintf(out, ", \"only_b\": ");
	jr_json_ints(out, d->only_b, d->nr_only_b);
	fprintf(out, ",\n  \"cpus\": [\n");
	for (k = 0; k < d->nr_cpu; k++) {
		fprintf(out, "%s", k ? ",\n" : "");
		jr_json_cpu(out, &d->cpu[k]);
	}
	fprintf(out, "\n  ]\n}\n");
	return ferror(out) ? -EIO : 0;
}
