// SPDX-License-Identifier: GPL-2.0
/*
 * jr_advise_out.c - the advice for people, ranked, and as JSON.
 */
#include <errno.h>
#include <inttypes.h>

#include "common/jr_text.h"
#include "core/jr_envelope.h"
#include "core/jr_report.h"
#include "tune/jr_advise.h"

/* jr_needs_list - the names of the needs in bits, comma-separated */
static void jr_needs_list(unsigned int bits, char *buf, size_t len)
{
	size_t n = 0;
	int b;

	buf[0] = '\0';
	for (b = 0; b <= JR_KF_NR && n < len; b++)
		if (bits & (1U << b))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      jr_adv_need_name(b));
}

/* jr_text_needs - what the kernel lacks for the rule's fix, or may */
static void jr_text_needs(FILE *out, const struct jr_advice *x)
{
	char names[256];

	if (x->lacks) {
		jr_needs_list(x->lacks, names, sizeof(names));
		fprintf(out,
			"   kernel:   lacks %s, which the usual fix needs: %s\n",
			names,
			x->feasible ?
				"the fix above is what to change instead" :
				"no fix is printed");
	}
	if (x->unknown) {
		jr_needs_list(x->unknown, names, sizeof(names));
		fprintf(out,
			"   kernel:   needs %s; the audit does not say whether this kernel "
			"has it\n",
			names);
	}
}

static void jr_text_advice(FILE *out, int rank, const struct jr_advice *x)
{
	char safe[4 * sizeof(x->ev[0].name)], dur[32];
	int i;

	fprintf(out, "\n%d. [%s%s] CPU %d: %s\n", rank, x->rule->id,
		x->rule->outside ? ", outside" : "", x->cpu,
		jr_text_safe(x->what, safe, sizeof(safe)));
	fprintf(out,
		"   gain:     %.2f%% of CPU %d's noise, %.1f ppm of its time\n",
		100.0 * x->share, x->cpu, x->ppm);
	for (i = 0; i < x->nr_ev; i++)
		fprintf(out, "   %s %s x%" PRIu64 ", %s\n",
			i ? "         " : "evidence:",
			jr_text_safe(x->ev[i].name, safe, sizeof(safe)),
			x->ev[i].count,
			jr_text_dur(x->ev[i].total_ns, dur, sizeof(dur)));
	if (x->nr_rows > x->nr_ev)
		fprintf(out, "             and %d more rows\n",
			x->nr_rows - x->nr_ev);
	if (x->cmds.why[0])
		fprintf(out, "   fix:      no command printed: %s\n",
			jr_text_safe(x->cmds.why, safe, sizeof(safe)));
	else
		fprintf(out, "   fix:      %s\n",
			x->fix[0] ? jr_text_safe(x->fix, safe, sizeof(safe)) :
				    "none that this kernel can take");
	jr_text_needs(out, x);
	fprintf(out, "   caveat:   %s\n",
		jr_text_safe(x->caveat, safe, sizeof(safe)));
	if (x->verify[0])
		fprintf(out, "   verify:   %s\n",
			jr_text_safe(x->verify, safe, sizeof(safe)));
	fprintf(out, "   source:   %s\n", x->rule->ref);
}

static double jr_pct(uint64_t part, uint64_t base)
{
	return base ? 100.0 * part / base : 0.0;
}

/* jr_unc_name - a class of uncovered noise, as the coverage line says */
static const char *jr_unc_name(int h)
{
	return h == JR_ADV_UNATTRIBUTED ? "unattributed" :
	       h == JR_H_GAP		? "other" :
					  jr_hclass_name(h);
}

/*
 * jr_text_coverage - one line per CPU: the share of its noise that the
 * fixes cover, that remedies outside the OS explain, and that no rule
 * covers, by class, largest first.
 */
static void jr_text_coverage(FILE *out, const struct jr_adv_cpu *c)
{
	bool done[JR_ADV_UNATTRIBUTED + 1] = { false };
	int k, h, best;

	fprintf(out,
		"CPU %d: the fixes cover %.1f%% of its noise, remedies outside the "
		"OS %.1f%%; no rule covers %.1f%%",
		c->cpu, jr_pct(c->fix_ns, c->base_ns),
		jr_pct(c->outside_ns, c->base_ns),
		jr_pct(c->base_ns - c->fix_ns - c->outside_ns, c->base_ns));
	for (k = 0; k <= JR_ADV_UNATTRIBUTED; k++) {
		for (best = -1, h = 0; h <= JR_ADV_UNATTRIBUTED; h++)
			if (!done[h] && c->unc_ns[h] &&
			    (best < 0 || c->unc_ns[h] > c->unc_ns[best]))
				best = h;
		if (best < 0)
			break;
		done[best] = true;
		fprintf(out, "%s %s %.1f%%", k ? "," : ":", jr_unc_name(best),
			jr_pct(c->unc_ns[best], c->base_ns));
	}
	fprintf(out, "\n");
}

/* jr_advise_text - the ranked advice, then the CPUs with nothing to do. */
int jr_advise_text(FILE *out, const struct jr_advise *v)
{
	int i;

	fprintf(out, "# jitread advise: audit %s; housekeeping CPUs %s\n",
		v->audit_from, v->hk);
	fprintf(out, "# ranked by the share of the CPU's time each would "
		     "remove, as measured; \"outside\": the remedy lies "
		     "beyond this OS\n");
	for (i = 0; i < v->nr; i++)
		jr_text_advice(out, i + 1, &v->adv[i]);
	for (i = 0; i < v->nr_cpu; i++) {
		const struct jr_adv_cpu *c = &v->cpu[i];

		if (!c->nr_advice)
			fprintf(out,
				"\nCPU %d: nothing to do (noise %.1f ppm of %.1f s)\n",
				c->cpu,
				c->runtime_ns ?
					1e6 * c->noise_ns / c->runtime_ns :
					0.0,
				c->runtime_ns / 1e9);
	}
	fprintf(out,
		"\n# coverage of each CPU's noise (unattributed: gap time that "
		"no event explains)\n");
	for (i = 0; i < v->nr_cpu; i++)
		jr_text_coverage(out, &v->cpu[i]);
	if (v->nr_uadv)
		fprintf(out, "\n# the user thread's own, from the comparison: "
			     "what jitmod's kthread does not suffer\n");
	for (i = 0; i < v->nr_uadv; i++) {
		const struct jr_uadvice *x = &v->uadv[i];
		char safe[4 * sizeof(x->what)];

		fprintf(out,
			"\n[%s] CPU %d: %s\n   fix:      %s\n"
			"   verify:   %s\n",
			x->id, x->cpu,
			jr_text_safe(x->what, safe, sizeof(safe)), x->fix,
			x->verify);
	}
	return ferror(out) ? -EIO : 0;
}

static void jr_json_kv(FILE *out, const char *key, const char *val)
{
	fprintf(out, ", \"%s\": ", key);
	jr_json_str(out, val);
}

/* jr_json_coverage - jr_text_coverage's figures, as shares of base_ns */
static void jr_json_coverage(FILE *out, const struct jr_adv_cpu *c)
{
	double base = c->base_ns ? (double)c->base_ns : 1.0;
	int h, n = 0;

	fprintf(out,
		",\n     \"coverage\": {\"noise_ns\": %" PRIu64
		", \"fixes\": %.6f, \"outside\": %.6f, \"uncovered\": %.6f, "
		"\"uncovered_by_class\": {",
		c->base_ns, c->fix_ns / base, c->outside_ns / base,
		(c->base_ns - c->fix_ns - c->outside_ns) / base);
	for (h = 0; h <= JR_ADV_UNATTRIBUTED; h++)
		if (c->unc_ns[h])
			fprintf(out, "%s\"%s\": %.6f", n++ ? ", " : "",
				jr_unc_name(h), c->unc_ns[h] / base);
	fprintf(out, "}}");
}

/* jr_json_cmds - the commands to paste, or why there is none */
static void jr_json_cmds(FILE *out, const struct jr_advice *x)
{
	int i;

	fprintf(out, ", \"commands\": [");
	for (i = 0; i < x->cmds.nr; i++) {
		fprintf(out, "%s", i ? ", " : "");
		jr_json_str(out, x->cmds.cmd[i]);
	}
	fprintf(out, "]");
	if (x->cmds.why[0])
		jr_json_kv(out, "no_command", x->cmds.why);
}

/* jr_json_needs - the needs in bits as a JSON array of their keys */
static void jr_json_needs(FILE *out, const char *key, unsigned int bits)
{
	int b, n = 0;

	fprintf(out, ", \"%s\": [", key);
	for (b = 0; b <= JR_KF_NR; b++)
		if (bits & (1U << b))
			fprintf(out, "%s\"%s\"", n++ ? ", " : "",
				b < JR_KF_NR ? jr_kfeat_key(b) :
					       "performance_governor");
	fprintf(out, "]");
}

/* jr_advise_json - the same as data (advise_version 1). */
int jr_advise_json(FILE *out, const struct jr_advise *v)
{
	int i, k;

	fprintf(out, "{\n  \"advise_version\": 1,\n  ");
	jr_envelope_json(out);
	jr_json_kv(out, "audit", v->audit_from);
	jr_json_kv(out, "housekeeping", v->hk);
	fprintf(out, ",\n  \"cpus\": [");
	for (i = 0; i < v->nr_cpu; i++) {
		fprintf(out,
			"%s\n    {\"cpu\": %d, \"runtime_ns\": %" PRIu64
			", \"noise_ns\": %" PRIu64 ", \"advice\": %d",
			i ? "," : "", v->cpu[i].cpu, v->cpu[i].runtime_ns,
			v->cpu[i].noise_ns, v->cpu[i].nr_advice);
		jr_json_coverage(out, &v->cpu[i]);
		fprintf(out, "}");
	}
	fprintf(out, "],\n  \"advice\": [");
	for (i = 0; i < v->nr; i++) {
		const struct jr_advice *x = &v->adv[i];

		fprintf(out,
			"%s\n    {\"rank\": %d, \"rule\": \"%s\", \"cpu\": %d",
			i ? "," : "", i + 1, x->rule->id, x->cpu);
		jr_json_kv(out, "what", x->what);
		jr_json_kv(out, "fix", x->fix);
		jr_json_kv(out, "caveat", x->caveat);
		jr_json_kv(out, "verify", x->verify);
		jr_json_kv(out, "source", x->rule->ref);
		fprintf(out, ",\n     \"kind\": \"%s\", \"feasible\": %s",
			x->rule->outside ? "outside" : "fix",
			x->feasible ? "true" : "false");
		jr_json_cmds(out, x);
		jr_json_needs(out, "needs", x->rule->needs);
		jr_json_needs(out, "lacks", x->lacks);
		jr_json_needs(out, "unknown", x->unknown);
		fprintf(out,
			",\n     \"gain\": {\"share\": %.6f, \"ppm\": %.3f, \"total_ns\": "
			"%" PRIu64 ", \"count\": %" PRIu64
			"}, \"rows\": %d, \"evidence\": [",
			x->share, x->ppm, x->total_ns, x->count, x->nr_rows);
		for (k = 0; k < x->nr_ev; k++) {
			fprintf(out, "%s{\"row\": ", k ? ", " : "");
			jr_json_str(out, x->ev[k].name);
			fprintf(out,
				", \"count\": %" PRIu64
				", \"total_ns\": %" PRIu64 "}",
				x->ev[k].count, x->ev[k].total_ns);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "\n  ],\n  \"user_thread\": [");
	for (i = 0; i < v->nr_uadv; i++) {
		const struct jr_uadvice *x = &v->uadv[i];

		fprintf(out,
			"%s\n    {\"rule\": \"%s\", \"cpu\": %d, \"count\": %" PRId64
			", \"excess_ns_per_s\": %.3f",
			i ? "," : "", x->id, x->cpu, x->count,
			x->excess_ns_per_s);
		jr_json_kv(out, "what", x->what);
		jr_json_kv(out, "fix", x->fix);
		jr_json_kv(out, "verify", x->verify);
		fprintf(out, "}");
	}
	fprintf(out, "\n  ]\n}\n");
	return ferror(out) ? -EIO : 0;
}
