// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ureport_cmp.c - the kernel and user sides side by side: per CPU and
 * class, the same percentiles from both; the top sources of each; the
 * difference between the two noise floors, stated in words; and why they
 * differ (jr_ureport_why.c).
 */
#include <inttypes.h>
#include <stdio.h>

#include "usamp/jr_ureport.h"
#include "common/jr_text.h"

#define JR_TOP_SOURCES 3

static const double jr_cmp_pcts[3] = { 50, 99, 99.99 };

static struct jr_cpu *jr_side_cpu(const struct jr_model *m, int cpu)
{
	return cpu < m->nr_cpus && m->cpu[cpu].seen ? &m->cpu[cpu] : NULL;
}

static void jr_cmp_row(FILE *out, const struct jr_report_opts *o, int cpu,
		       int h, const char *side, const struct jr_cpu *c)
{
	static const struct jr_hist empty = { .min = UINT64_MAX };
	const struct jr_hist *hs = c ? &c->hist[h] : &empty;
	char pct[JR_AVAIL_LEN];
	int i;

	fprintf(out, "%-4d %-10s %-6s %10" PRIu64, cpu, jr_hclass_name(h), side,
		hs->count);
	fprintf(out, " %12.*f", o->div == 1.0 ? 0 : 3,
		(hs->count ? hs->min : 0) / o->div);
	for (i = 0; i < 3; i++)
		fprintf(out, " %12.*f", o->div == 1.0 ? 0 : 3,
			jr_hist_percentile(hs, jr_cmp_pcts[i]) / o->div);
	fprintf(out, " %12.*f", o->div == 1.0 ? 0 : 3, hs->max / o->div);
	if (h == JR_H_GAP && c)
		fprintf(out, " %10s", jr_cpu_avail_str(c, pct, sizeof(pct)));
	fprintf(out, "\n");
}

static void jr_cmp_sources(FILE *out, const struct jr_report_opts *o,
			   const char *side, const struct jr_cpu *c)
{
	int i;

	fprintf(out, "     %-6s", side);
	if (!c || !c->nr_src)
		fprintf(out, " (none)");
	for (i = 0; c && i < c->nr_src && i < JR_TOP_SOURCES; i++) {
		char key[4 * sizeof(c->src[i].key)];

		fprintf(out, "%s %s %" PRIu64 "x %.*f %s", i ? "," : "",
			jr_text_safe(c->src[i].key, key, sizeof(key)),
			c->src[i].count, o->div == 1.0 ? 0 : 1,
			c->src[i].total_ns / o->div, o->unit);
	}
	fprintf(out, "\n");
}

static int64_t jr_diff(const struct jr_hist *u, const struct jr_hist *k,
		       double pct)
{
	return (int64_t)jr_hist_percentile(u, pct) -
	       (int64_t)jr_hist_percentile(k, pct);
}

/* jr_signed - "NAME +D UNIT": d ns in o's unit, its sign always shown */
static void jr_signed(FILE *out, const struct jr_report_opts *o,
		      const char *name, int64_t d)
{
	fprintf(out, "%s %+.*f %s", name, o->div == 1.0 ? 0 : 3,
		(double)d / o->div, o->unit);
}

/* jr_cmp_floor - the one sentence per CPU a reader comes for. */
static void jr_cmp_floor(FILE *out, const struct jr_report_opts *o, int cpu,
			 const struct jr_cpu *k, const struct jr_cpu *u)
{
	const struct jr_hist *kh, *uh;
	char kp[JR_AVAIL_LEN], up[JR_AVAIL_LEN];

	if (!k || !u || !k->hist[JR_H_GAP].count || !u->hist[JR_H_GAP].count) {
		fprintf(out,
			"CPU %d: no comparison: the %s side saw no gap over the threshold\n",
			cpu,
			!k || !k->hist[JR_H_GAP].count ? "kernel" : "user");
		return;
	}
	kh = &k->hist[JR_H_GAP];
	uh = &u->hist[JR_H_GAP];
	fprintf(out, "CPU %d: user minus kernel gap: ", cpu);
	jr_signed(out, o, "min", (int64_t)uh->min - (int64_t)kh->min);
	jr_signed(out, o, ", p50", jr_diff(uh, kh, 50));
	jr_signed(out, o, ", p99", jr_diff(uh, kh, 99));
	jr_signed(out, o, ", max", (int64_t)uh->max - (int64_t)kh->max);
	fprintf(out,
		"; CPU available %s (kernel) vs %s (user); gaps per s %.1f vs %.1f\n",
		jr_cpu_avail_str(k, kp, sizeof(kp)),
		jr_cpu_avail_str(u, up, sizeof(up)),
		k->runtime_ns ? kh->count * 1e9 / k->runtime_ns : 0,
		u->runtime_ns ? uh->count * 1e9 / u->runtime_ns : 0);
}

void jr_compare_text(FILE *out, const struct jr_ureport *d)
{
	const struct jr_report_opts *o = &d->ro;
	int cpu, h;

	fprintf(out,
		"\n# kernel vs user on the same CPUs: %" PRIu64
		" round(s) of %g s each, threshold %g %s; times in %s\n",
		d->rounds_done, (double)d->phase_ns / JR_S,
		d->threshold_ns / o->div, o->unit, o->unit);
	fprintf(out, "%-4s %-10s %-6s %10s %12s %12s %12s %12s %12s %10s\n",
		"CPU", "class", "side", "count", "min", "50%", "99%", "99.99%",
		"max", "%avail");
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		struct jr_cpu *k = jr_side_cpu(d->kernel, cpu);
		struct jr_cpu *u = jr_side_cpu(d->user, cpu);

		if (!o->cpu_set[cpu] || (!k && !u))
			continue;
		for (h = 0; h < JR_H_NR; h++) {
			if (!o->with_zeros && !(k && k->hist[h].count) &&
			    !(u && u->hist[h].count))
				continue;
			jr_cmp_row(out, o, cpu, h, "kernel", k);
			jr_cmp_row(out, o, cpu, h, "user", u);
		}
		fprintf(out, "%-4d top sources by total time\n", cpu);
		jr_cmp_sources(out, o, "kernel", k);
		jr_cmp_sources(out, o, "user", u);
	}
	fprintf(out, "\n# noise floors\n");
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
		if (o->cpu_set[cpu])
			jr_cmp_floor(out, o, cpu, jr_side_cpu(d->kernel, cpu),
				     jr_side_cpu(d->user, cpu));
	fprintf(out,
		"\n# why they differ: time lost per second of sampling (%s/s), largest difference first\n"
		"%-4s %-6s %-32s %14s %14s %14s\n",
		o->unit, "CPU", "kind", "what", "kernel", "user",
		"user-kernel");
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		struct jr_cpu *k = jr_side_cpu(d->kernel, cpu);
		struct jr_cpu *u = jr_side_cpu(d->user, cpu);
		struct jr_why w;

		if (!o->cpu_set[cpu] || (!k && !u))
			continue;
		jr_why_of(&w, k, u, jr_user_count(&d->info, cpu));
		jr_why_text(out, o, cpu, &w);
	}
}

static void jr_cmp_json_hist(FILE *out, const struct jr_hist *h)
{
	fprintf(out,
		"{\"count\": %" PRIu64 ", \"min_ns\": %" PRIu64
		", \"p50_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64
		", \"p99.99_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 "}",
		h->count, h->count ? h->min : 0, jr_hist_percentile(h, 50),
		jr_hist_percentile(h, 99), jr_hist_percentile(h, 99.99),
		h->max);
}

static void jr_cmp_json_top(FILE *out, const struct jr_cpu *c)
{
	int i;

	fprintf(out, "[");
	for (i = 0; c && i < c->nr_src && i < JR_TOP_SOURCES; i++) {
		fprintf(out, "%s{\"source\": ", i ? ", " : "");
		jr_json_str(out, c->src[i].key);
		fprintf(out,
			", \"count\": %" PRIu64 ", \"total_ns\": %" PRIu64 "}",
			c->src[i].count, c->src[i].total_ns);
	}
	fprintf(out, "]");
}

/* jr_compare_json - the "compare" member: both sides' figures per CPU. */
int jr_compare_json(FILE *out, const struct jr_ureport *d)
{
	static const struct jr_hist empty = { .min = UINT64_MAX };
	int cpu, h, n = 0;

	fprintf(out,
		",\n  \"compare\": {\"rounds\": %" PRIu64
		", \"phase_s\": %g, \"threshold_ns\": %" PRIu64 ", \"cpus\": [",
		d->rounds_done, (double)d->phase_ns / JR_S, d->threshold_ns);
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		struct jr_cpu *side[2] = { jr_side_cpu(d->kernel, cpu),
					   jr_side_cpu(d->user, cpu) };
		struct jr_why w;
		int s;

		if (!d->ro.cpu_set[cpu] || (!side[0] && !side[1]))
			continue;
		fprintf(out, "%s\n    {\"cpu\": %d, \"avail_pct\": {",
			n++ ? "," : "", cpu);
		for (s = 0; s < 2; s++)
			fprintf(out, "%s\"%s\": %.6f", s ? ", " : "",
				s ? "user" : "kernel",
				side[s] ? jr_cpu_avail_pct(side[s]) : 0.0);
		fprintf(out, "}, \"classes\": {");
		for (h = 0; h < JR_H_NR; h++) {
			fprintf(out, "%s\"%s\": {", h ? ", " : "",
				jr_hclass_name(h));
			for (s = 0; s < 2; s++) {
				fprintf(out, "%s\"%s\": ", s ? ", " : "",
					s ? "user" : "kernel");
				jr_cmp_json_hist(out,
						 side[s] ? &side[s]->hist[h] :
							   &empty);
			}
			fprintf(out, "}");
		}
		fprintf(out, "}, \"top_sources\": {\"kernel\": ");
		jr_cmp_json_top(out, side[0]);
		fprintf(out, ", \"user\": ");
		jr_cmp_json_top(out, side[1]);
		jr_why_of(&w, side[0], side[1], jr_user_count(&d->info, cpu));
		fprintf(out, "}, ");
		jr_why_json(out, &w);
		fprintf(out, "}");
	}
	fprintf(out, "]}");
	return ferror(out) ? -1 : 0;
}
