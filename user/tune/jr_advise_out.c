// SPDX-License-Identifier: GPL-2.0
/*
 * jr_advise_out.c - the advice for people, ranked, and as JSON.
 */
#include <errno.h>
#include <inttypes.h>

#include "common/jr_text.h"
#include "core/jr_report.h"
#include "tune/jr_advise.h"

static void jr_text_advice(FILE *out, int rank, const struct jr_advice *x)
{
	char safe[4 * sizeof(x->ev[0].name)], dur[32];
	int i;

	fprintf(out, "\n%d. [%s] CPU %d: %s\n", rank, x->rule->id, x->cpu,
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
	fprintf(out, "   fix:      %s\n",
		jr_text_safe(x->fix, safe, sizeof(safe)));
	fprintf(out, "   caveat:   %s\n",
		jr_text_safe(x->caveat, safe, sizeof(safe)));
	fprintf(out, "   verify:   %s\n",
		jr_text_safe(x->verify, safe, sizeof(safe)));
	fprintf(out, "   source:   %s\n", x->rule->ref);
}

/* jr_advise_text - the ranked advice, then the CPUs with nothing to do. */
int jr_advise_text(FILE *out, const struct jr_advise *v)
{
	int i;

	fprintf(out, "# jitread advise: audit %s; housekeeping CPUs %s\n",
		v->audit_from, v->hk);
	fprintf(out, "# ranked by the share of the CPU's time each would "
		     "remove, as measured\n");
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
	return ferror(out) ? -EIO : 0;
}

static void jr_json_kv(FILE *out, const char *key, const char *val)
{
	fprintf(out, ", \"%s\": ", key);
	jr_json_str(out, val);
}

/* jr_advise_json - the same as data (advise_version 1). */
int jr_advise_json(FILE *out, const struct jr_advise *v)
{
	int i, k;

	fprintf(out, "{\n  \"advise_version\": 1");
	jr_json_kv(out, "audit", v->audit_from);
	jr_json_kv(out, "housekeeping", v->hk);
	fprintf(out, ",\n  \"cpus\": [");
	for (i = 0; i < v->nr_cpu; i++)
		fprintf(out,
			"%s{\"cpu\": %d, \"runtime_ns\": %" PRIu64
			", \"noise_ns\": %" PRIu64 ", \"advice\": %d}",
			i ? ", " : "", v->cpu[i].cpu, v->cpu[i].runtime_ns,
			v->cpu[i].noise_ns, v->cpu[i].nr_advice);
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
		fprintf(out,
			",\n     \"gain\": {\"share\": %.6f, \"ppm\": %.3f, \"total_ns\": %" PRIu64
			", \"count\": %" PRIu64
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
	fprintf(out, "\n  ]\n}\n");
	return ferror(out) ? -EIO : 0;
}
