// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ureport_out.c - what only the user side reports: the sampler's own
 * figures, the BPF classifier's state, the alignment and the pipeline; as
 * text after the side's tables, and as JSON members.
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/jr_rdoc.h"
#include "usamp/jr_ureport.h"

static double jr_ns_per_iter(const struct jr_user_info *in)
{
	return in->iterations ? (double)in->runtime_ns / in->iterations : 0;
}

/* jr_ucount_text - what befell a sampler thread, in words */
void jr_ucount_text(FILE *out, const struct jr_ucount *c)
{
	if (c->ok)
		fprintf(out,
			"%" PRIu64 " page faults (%" PRIu64
			" major), preempted %" PRIu64 " times, waited %" PRIu64
			" times, ",
			c->minflt, c->majflt, c->nivcsw, c->nvcsw);
	else
		fprintf(out, "faults and switches not counted, ");
	if (c->migr_ok)
		fprintf(out, "%" PRIu64 " migrations", c->migrations);
	else
		fprintf(out, "migrations not counted (perf events refused)");
}

/* jr_ucount_json - the same as an object; null for what was not counted */
void jr_ucount_json(FILE *out, const struct jr_ucount *c)
{
	int64_t v[JR_RW_NR];

	v[JR_RW_MINFLT] = c->ok ? (int64_t)c->minflt : -1;
	v[JR_RW_MAJFLT] = c->ok ? (int64_t)c->majflt : -1;
	v[JR_RW_PREEMPTED] = c->ok ? (int64_t)c->nivcsw : -1;
	v[JR_RW_WAITED] = c->ok ? (int64_t)c->nvcsw : -1;
	v[JR_RW_MIGRATIONS] = c->migr_ok ? (int64_t)c->migrations : -1;
	jr_rwhy_counts_json(out, v);
}

static void jr_text_pipeline(FILE *out, const struct jr_ureport *d)
{
	const struct jr_pipe_cfg *c = &d->pcfg;
	const struct jr_pipe_result *r = &d->pipe;
	int i;

	fprintf(out,
		"\n# pipeline: producer CPU %d %s, accumulator CPU %d %s, journaller CPU %d %s%s%s\n",
		c->cpu[JR_PRODUCER], jr_wait_names[c->wait[JR_PRODUCER]],
		c->cpu[JR_ACCUMULATOR], jr_wait_names[c->wait[JR_ACCUMULATOR]],
		c->cpu[JR_JOURNALLER], jr_wait_names[c->wait[JR_JOURNALLER]],
		c->shared ?
			"; SHARED CPUs: threads take turns, so latency includes scheduling" :
			"",
		c->fifo_prio ? ", SCHED_FIFO" : "");
	fprintf(out,
		"# one message every %" PRIu64
		" ns, ring %u slots, warm-up %" PRIu64 " ms left out; %" PRIu64
		" run(s), %.1f s\n",
		c->interval_ns, c->ring_size, c->warmup_ns / 1000000,
		d->pipe_rounds, r->elapsed_s);
	fprintf(out, "# %s\n", d->pipe_verdict);
	if (r->journal_kept < r->journal_entries)
		fprintf(out,
			"# the journal keeps the last %" PRIu64 " of %" PRIu64
			" messages (--journal-size)\n",
			r->journal_kept, r->journal_entries);
	fprintf(out, "# pipeline latency (%s)\n", d->ro.unit);
	jr_pct_header(out, "", "histogram", 26);
	for (i = 0; i < JR_PH_NR; i++)
		jr_pct_row(out, &d->ro, "", jr_pipe_hist_names[i], 26,
			   &r->hist[i]);
}

/* jr_ureport_text - the sampler lines and the pipeline tables. */
void jr_ureport_text(FILE *out, const struct jr_ureport *d)
{
	const struct jr_user_info *in = &d->info;
	int cpu;

	fprintf(out,
		"\n# user sampler: work %s, threshold %" PRIu64
		" ns, %.2f ns per iteration, best iteration %.1f ns, TSC %" PRIu64
		" kHz\n",
		jr_work_names[in->work], d->threshold_ns, jr_ns_per_iter(in),
		in->min_iter_ps / 1000.0, in->tsc_khz);
	if (in->warmup_ns)
		fprintf(out,
			"# each phase began after a %.1f ms warm-up, not "
			"sampled\n",
			in->warmup_ns / 1e6);
	if (in->bpf_ok)
		fprintf(out,
			"# BPF: %" PRIu64 " of %" PRIu64
			" gaps classified, %" PRIu64
			" records in the sampling windows of %" PRIu64
			" read, %" PRIu64
			" dropped; TSC-to-monotonic error <= %.0f ns\n",
			in->classified, in->gaps, in->bpf_records, in->bpf_seen,
			in->bpf_drops, in->align_err_ns);
	else
		fprintf(out, "# BPF: off (%s): every gap is hw:unknown\n",
			in->bpf_why);
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		const struct jr_ucount *c = jr_user_count(in, cpu);

		if (!c)
			continue;
		fprintf(out,
			"# CPU %d's sampler thread, while it sampled: ", cpu);
		jr_ucount_text(out, c);
		fprintf(out, "\n");
	}
	if (in->gaps_dropped)
		fprintf(out,
			"# %" PRIu64
			" gaps found --max-gaps waiting and were counted but not classified\n",
			in->gaps_dropped);
	fprintf(out,
		"# the samplers' clock pairs, every %d ms: %.1f us not sampled\n",
		JR_PAIR_MS, in->blind_ns / 1000.0);
	if (in->work != JR_WORK_NONE) {
		fprintf(out, "# duration of one unit of work (%s)\n",
			d->ro.unit);
		jr_pct_header(out, "", "work", 10);
		jr_pct_row(out, &d->ro, "", jr_work_names[in->work], 10,
			   &in->work_hist);
	}
	if (d->pipe_ran)
		jr_text_pipeline(out, d);
}

static void jr_json_sampler(FILE *out, const struct jr_ureport *d)
{
	const struct jr_user_info *in = &d->info;
	int cpu, n = 0;

	fprintf(out,
		",\n  \"sampler\": {\"work\": \"%s\", \"threshold_ns\": %" PRIu64
		", \"tsc_khz\": %" PRIu64 ", \"ns_per_iter\": %.4f"
		", \"min_iter_ns\": %.3f, \"iterations\": %" PRIu64
		", \"runtime_ns\": %" PRIu64 ", \"phases\": %" PRIu64
		", \"warmup_ns\": %" PRIu64 ", \"gaps\": %" PRIu64
		", \"gaps_classified\": %" PRIu64 ", \"gaps_dropped\": %" PRIu64
		", \"log_resident_pct\": %u"
		",\n    \"bpf\": {\"ok\": %s, \"why\": ",
		jr_work_names[in->work], d->threshold_ns, in->tsc_khz,
		jr_ns_per_iter(in), in->min_iter_ps / 1000.0, in->iterations,
		in->runtime_ns, in->phases, in->warmup_ns, in->gaps,
		in->classified, in->gaps_dropped, in->log_resident_pct,
		in->bpf_ok ? "true" : "false");
	jr_json_str(out, in->bpf_why);
	fprintf(out,
		", \"records\": %" PRIu64 ", \"read\": %" PRIu64
		", \"drops\": %" PRIu64 ", \"details\": \"%s\""
		"},\n    \"align\": {\"ns_per_cyc\": %.9f, \"err_ns\": %.1f"
		", \"pair_ms\": %d, \"blind_ns\": %" PRIu64 "}",
		in->bpf_records, in->bpf_seen, in->bpf_drops, in->bpf_details,
		in->ns_per_cyc, in->align_err_ns, JR_PAIR_MS, in->blind_ns);
	fprintf(out, ",\n    \"threads\": [");
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		const struct jr_ucount *c = jr_user_count(in, cpu);

		if (!c)
			continue;
		fprintf(out, "%s{\"cpu\": %d, \"counts\": ", n++ ? ", " : "",
			cpu);
		jr_ucount_json(out, c);
		fprintf(out, "}");
	}
	fprintf(out, "]");
	if (in->work != JR_WORK_NONE) {
		fprintf(out, ",\n    \"work_hist\": ");
		jr_json_hist(out, &in->work_hist);
	}
	fprintf(out, "}");
}

static void jr_json_pipeline(FILE *out, const struct jr_ureport *d)
{
	const struct jr_pipe_cfg *c = &d->pcfg;
	const struct jr_pipe_result *r = &d->pipe;
	char wait[32];
	int i, k;

	fprintf(out,
		",\n  \"pipeline\": {\"cpus\": {\"producer\": %d, \"accumulator\": %d, \"journaller\": %d}"
		", \"waits\": {\"producer\": \"%s\", \"accumulator\": \"%s\", \"journaller\": \"%s\"}"
		", \"shared\": %s, \"wait\": \"%s\", \"fifo_prio\": %d"
		", \"interval_ns\": %" PRIu64 ", \"ring_size\": %u"
		", \"warmup_ns\": %" PRIu64 ", \"runs\": %" PRIu64
		", \"elapsed_s\": %.3f,\n    \"produced\": %" PRIu64
		", \"warmup_messages\": %" PRIu64 ", \"consumed\": [%" PRIu64
		", %" PRIu64 "], \"journal_entries\": %" PRIu64
		", \"journal_kept\": %" PRIu64
		", \"journal_capacity\": %" PRIu64
		", \"verified\": %s, \"verdict\": ",
		c->cpu[0], c->cpu[1], c->cpu[2], jr_wait_names[c->wait[0]],
		jr_wait_names[c->wait[1]], jr_wait_names[c->wait[2]],
		c->shared ? "true" : "false",
		jr_wait_desc(c, wait, sizeof(wait)), c->fifo_prio,
		c->interval_ns, c->ring_size, c->warmup_ns, d->pipe_rounds,
		r->elapsed_s, r->produced, r->warmup, r->consumed[0],
		r->consumed[1], r->journal_entries, r->journal_kept,
		r->journal_capacity,
		d->pipe_verified_rounds == d->pipe_rounds ? "true" : "false");
	jr_json_str(out, d->pipe_verdict);
	fprintf(out, ",\n    \"slow_ns\": %d, \"slow\": {", JR_PIPE_SLOW_NS);
	for (i = 0; i < 2; i++) {
		fprintf(out, "%s\"%s\": {", i ? ", " : "",
			jr_pipe_thread_names[JR_ACCUMULATOR + i]);
		for (k = 0; k < JR_STEP_NR; k++)
			fprintf(out, "%s\"%s\": %" PRIu64, k ? ", " : "",
				jr_pipe_step_names[k], r->slow[i][k]);
		fprintf(out, "}");
	}
	fprintf(out, "}");
	fprintf(out, ",\n    \"histograms\": {");
	for (i = 0; i < JR_PH_NR; i++) {
		fprintf(out, "%s\n      ", i ? "," : "");
		jr_json_str(out, jr_pipe_hist_names[i]);
		fprintf(out, ": ");
		jr_json_hist(out, &r->hist[i]);
	}
	fprintf(out, "}}");
}

/*
 * jr_ureport_json - the members after the primary side: the user side's
 * tables when it is not the primary one, the sampler, the pipeline and
 * the comparison.
 */
int jr_ureport_json(FILE *out, const struct jr_ureport *d)
{
	if (d->kernel) {
		fprintf(out, ",\n  \"user\": {");
		if (jr_json_side(out, d->user, "user", &d->ro))
			return -1;
		fprintf(out, "}");
	}
	jr_json_sampler(out, d);
	if (d->pipe_ran)
		jr_json_pipeline(out, d);
	if (d->kernel && jr_compare_json(out, d))
		return -1;
	return ferror(out) ? -1 : 0;
}
