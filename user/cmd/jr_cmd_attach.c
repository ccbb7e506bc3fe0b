// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_attach.c - jitread attach: the noise a running process's own
 * threads suffer, with no sampler (usamp/jr_attach.c), in the report
 * every other command writes, with a per-thread account beside it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_cmd_attach.h"
#include "cmd/jr_cmds.h"
#include "cmd/jr_live_setup.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"
#include "core/jr_envelope.h"

/* jitread attach's own options (o->own) */
struct jr_attach_own {
	int pid;
	int32_t tids[JR_ATTACH_MAX_TIDS];
	int nr_tids;
};

enum { JR_K_PID = 'p', JR_K_TID = JR_K_OWN };

/* what the records go through: the model, and --record's file */
struct jr_attach_sink {
	struct jr_model *m;
	FILE *rec;
	const char *rec_path;
	uint64_t recorded;
};

static int jr_attach_sink(void *ctx, const struct jr_rec *r)
{
	struct jr_attach_sink *s = ctx;

	if (s->rec && jr_write(s->rec, r)) {
		jr_warn("%s: write failed; the recording stops here",
			s->rec_path);
		fclose(s->rec);
		s->rec = NULL;
	}
	s->recorded += s->rec != NULL;
	return jr_model_add(s->m, r);
}

static int jr_attach_json_extra(FILE *out, void *ctx)
{
	return jr_attach_json(out, ctx);
}

/* jr_attach_loop - read until -d ends, a signal, or the process exits */
static int jr_attach_loop(struct jr_opts *o, struct jr_attach *a,
			  struct jr_attach_sink *s)
{
	uint64_t end = o->live.duration_ns ?
			       jr_mono_ns() + o->live.duration_ns :
			       UINT64_MAX;
	int ret = 0;

	while (!ret && !jr_run_stop.sig && jr_mono_ns() < end &&
	       !jr_attach_gone(a))
		ret = jr_attach_poll(a, JR_ATTACH_POLL_MS, jr_attach_sink, s);
	return ret ?: jr_attach_finish(a, jr_attach_sink, s);
}

/* jr_attach_report - the text report, then the files; the exit code */
int jr_attach_report(struct jr_opts *o, struct jr_attach *a, struct jr_model *m,
		     struct jr_sysinfo *sys, struct jr_outputs *outs)
{
	struct jr_report_opts ro = jr_report_opts_of(o);
	int rc, ret = 0;

	ro.no_gaps = true;
	ro.details = a->b.details;
	jr_model_finish(m);
	if (!o->out.quiet) {
		ro.title = "attach: what took the target threads' CPUs away";
		jr_report_text(stdout, m, sys, &ro);
		jr_attach_text(stdout, a, o->out.div, o->out.unit);
		ro.title = NULL;
	}
	rc = jr_fail_if(o, m, JR_SIDE_USER, true, NULL, 0);
	jr_envelope_rc(rc);
	if (outs->json)
		ret = jr_json_close(
			outs, o->out.json,
			jr_report_json_doc(outs->json, "attach", m, "attach",
					   sys, &ro, jr_attach_json_extra, a));
	ret = jr_report_files(outs, m, sys, o, false) ?: ret;
	return ret ?: rc;
}

static int jr_attach_run(struct jr_opts *o, int argc, char **argv)
{
	struct jr_attach_own *an = o->own;
	struct jr_attach_cfg cfg = {
		.tgid = an->pid,
		.tids = an->nr_tids ? an->tids : NULL,
		.nr_tids = an->nr_tids,
		.cpus = o->have_cpus ? o->cpus : NULL,
	};
	struct jr_attach_sink s = { .rec_path = o->live.record };
	struct jr_outputs outs;
	struct jr_sysinfo sys;
	struct jr_attach a;
	struct jr_model m;
	struct jr_err e;
	int ret;

	if (jr_attach_check(&cfg, &e))
		jr_die(JR_EXIT_USAGE, "%s", e.msg);
	/* before any thread is made: each inherits the affinity */
	jr_house_default(o, o->cpus);
	jr_pin_house(o);
	jr_model_of(&m, o);
	s.m = &m;
	jr_sysinfo_fill(&sys, argc, argv);
	jr_outputs_open(&outs, o, 0);
	if (o->live.record && jr_writer_open(&s.rec, o->live.record, &sys, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	jr_catch_signals();
	if (jr_attach_open(&a, &cfg, &e)) {
		jr_attach_close(&a);
		jr_die(JR_EXIT_RUN, "attach: %s", e.msg);
	}
	jr_ready(o->live.ready_file);
	ret = jr_attach_loop(o, &a, &s);
	if (s.rec && fclose(s.rec))
		jr_warn("%s: write failed", o->live.record);
	if (ret)
		jr_warn("attach: %s", strerror(-ret));
	else
		ret = jr_attach_report(o, &a, &m, &sys, &outs);
	jr_outputs_close(&outs);
	jr_attach_close(&a);
	jr_model_free(&m);
	return ret < 0 ? JR_EXIT_RUN : ret;
}

/* jr_attach_tids - --tid 12,15: at most JR_ATTACH_MAX_TIDS thread ids */
static int jr_attach_tids(const char *arg, struct jr_attach_own *an,
			  struct jr_err *e)
{
	const char *p = arg;
	char *end;
	long v;

	while (*p) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > 0x3fffffff ||
		    (*end && *end != ','))
			return jr_fail(e, -EINVAL,
				       "--tid '%s': thread ids, e.g. 12,15",
				       arg);
		if (an->nr_tids == JR_ATTACH_MAX_TIDS)
			return jr_fail(e, -E2BIG, "--tid: at most %d threads",
				       JR_ATTACH_MAX_TIDS);
		an->tids[an->nr_tids++] = (int32_t)v;
		p = *end ? end + 1 : end;
	}
	return an->nr_tids ? 0 :
			     jr_fail(e, -EINVAL, "--tid: no thread id given");
}

static enum jr_optres jr_attach_apply(int key, const char *arg,
				      const struct jr_optenv *env)
{
	struct jr_attach_own *an = env->own;
	uint64_t v;

	switch (key) {
	case JR_K_PID:
		if (jr_parse_u64(arg, 1, 0x3fffffff, &v))
			return JR_OPT_BAD;
		an->pid = (int)v;
		return JR_OPT_TAKEN;
	case JR_K_TID:
		return jr_attach_tids(arg, an, env->e) ? JR_OPT_SAID :
							 JR_OPT_TAKEN;
	}
	return JR_OPT_NOT_MINE;
}

static int jr_attach_checkopts(struct jr_opts *o, const char *name,
			       struct jr_err *e)
{
	const struct jr_attach_own *an = o->own;
	const struct jr_cond *c;
	int i;

	if (!an->pid)
		return jr_fail(e, -EINVAL,
			       "jitread %s needs -p PID: the process to watch",
			       name);
	/* the gap class, the default, is empty without a sampler */
	for (i = 0; i < o->out.nr_conds; i++) {
		c = &o->out.conds[i];
		if (c->hcls == JR_H_GAP && !c->source[0] &&
		    c->metric != JR_M_AVAIL && c->metric != JR_M_NOISE)
			return jr_fail(
				e, -EINVAL,
				"--fail-if %s: attach has no gaps; name a class, e.g. class=thread,%s",
				c->text, c->text);
	}
	return 0;
}

static const struct jr_optdef jr_attach_opts[] = {
	{ .name = "pid",
	  .key = JR_K_PID,
	  .arg = "PID",
	  .help = "the process whose threads to watch" },
	{ .name = "tid",
	  .key = JR_K_TID,
	  .arg = "LIST",
	  .help = "only these of its threads, e.g. 12,15" },
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_duration },
	{ .group = jr_opt_house },
	{ .group = jr_opt_record },
	{ .group = jr_opt_ready },
	{ .group = jr_opt_quiet },
	{ .group = jr_opt_unit },
	{ .group = jr_opt_precision },
	{ .name = "no-header", .key = JR_K_NOHDR, .help = "no header lines" },
	{ .name = "no-summary",
	  .key = JR_K_NOSUMMARY,
	  .help = "no summary table" },
	{ .name = "with-zeros",
	  .key = JR_K_ZEROS,
	  .help = "print empty rows and classes" },
	{ .name = "fail-if",
	  .key = JR_K_FAIL_IF,
	  .arg = "COND",
	  .help = "exit 4 when COND holds at the end (repeatable), e.g.\n"
		  "avail<99.99%, class=irq,max>5us, class=thread,p99>1ms,\n"
		  "source=thread:kworker*,count>0" },
	{ .group = jr_opt_json },
	{ .name = "csv",
	  .key = JR_K_CSV,
	  .arg = "DIR",
	  .help = "percentiles.csv, sources.csv, summary.csv" },
	{ .name = "hgrm",
	  .key = JR_K_HGRM,
	  .arg = "DIR",
	  .help = "HdrHistogram .hgrm per CPU and class" },
	{ .group = jr_opt_help },
	{ 0 },
};

static const struct jr_opthelp jr_attach_helps[] = {
	{ JR_K_CPUS, "watch the threads only while on these CPUs, e.g. 1-3" },
	{ JR_K_HOUSE, "pin jitread's own threads to these CPUs\n"
		      "(default: the online CPUs not in -c; with no -c, any)" },
	{ JR_K_DURATION, "watch for TIME, e.g. 30s, 5m, 1h; bare: s\n"
			 "(default: until ^C or the process exits)" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_attach = {
	.name = "attach",
	.summary = "the noise a running process's threads suffer, no sampler",
	.opts = jr_attach_opts,
	.helps = jr_attach_helps,
	.own_size = sizeof(struct jr_attach_own),
	.apply = jr_attach_apply,
	.check = jr_attach_checkopts,
	.synopsis = "-p PID [options]",
	.about =
		"Follows a running process's threads with BPF and records what takes\n"
		"their CPU away while they want to run: interrupts, softirqs, NMIs and\n"
		"the tasks that preempt them, each net of what nested inside it.\n"
		"Sleep, page faults and migrations are counted per thread, apart.\n"
		"Hardware noise cannot be seen without a sampler and is not reported.",
	.run = jr_attach_run,
};
