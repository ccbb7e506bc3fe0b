// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_report.c - jitread report: the hist report of a recording.
 */
#include <errno.h>
#include <stdio.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_out.h"
#include "core/jr_envelope.h"

static int jr_report_run(struct jr_opts *o, int argc, char **argv)
{
	struct jr_report_opts ro = jr_report_opts_of(o);
	struct jr_reader rd;
	struct jr_model m;
	struct jr_rec r;
	struct jr_outputs outs;
	struct jr_err e;
	int ret, verdict;

	(void)argc;
	(void)argv;
	if (jr_reader_open(&rd, o->file, &e))
		jr_die(JR_EXIT_RUN, "%s: %s", o->file, e.msg);
	jr_outputs_open(&outs, o, 0);
	jr_model_of(&m, o);
	while ((ret = jr_read(&rd, &r, &e)) > 0) {
		if (o->have_cpus && !o->cpus[r.cpu])
			continue;
		if (jr_model_add(&m, &r))
			jr_die(JR_EXIT_RUN, "out of memory");
		if (outs.hlog.f)
			jr_hlog_add(&outs.hlog, &r); /* said at the end */
	}
	fclose(rd.f);
	if (ret < 0)
		jr_die(JR_EXIT_RUN, "%s: %s", o->file, e.msg);
	jr_model_finish(&m);
	if (!o->out.quiet)
		jr_report_text(stdout, &m, &rd.hdr.sys, &ro);
	/* judged before the files are written: their return_code is it */
	verdict = jr_fail_if(o, &m, JR_SIDE_KERNEL, true, NULL, 0);
	jr_envelope_rc(verdict);
	ret = jr_report_files(&outs, &m, &rd.hdr.sys, o, false);
	jr_model_free(&m);
	return ret ?: verdict;
}

#define JR_K_REPLAY JR_K_OWN

static const struct jr_optdef jr_report_opts[] = {
	{ .group = jr_opt_cpus },
	{ .name = "replay", .key = JR_K_REPLAY, .arg = "FILE" },
	{ .group = jr_opt_quiet },
	{ .group = jr_opts_shown },
	{ .group = jr_opt_json },
	{ .group = jr_opts_files },
	{ .group = jr_opt_help },
	{ 0 },
};

/* jr_report_apply - --replay FILE, the old form's way to name FILE */
static enum jr_optres jr_report_apply(int key, const char *arg,
				      const struct jr_optenv *env)
{
	if (key != JR_K_REPLAY)
		return JR_OPT_NOT_MINE;
	env->o->file = arg;
	return JR_OPT_TAKEN;
}

static int jr_report_check(struct jr_opts *o, const char *name,
			   struct jr_err *e)
{
	if (!o->file)
		return jr_fail(e, -EINVAL,
			       "jitread %s needs the recording to read", name);
	return 0;
}

const struct jr_cmd_def jr_cmd_report = {
	.name = "report",
	.summary = "the hist report of a recording: no root, no module",
	.opts = jr_report_opts,
	.nr_args = 1,
	.apply = jr_report_apply,
	.check = jr_report_check,
	.synopsis = "FILE [options]",
	.about =
		"Reports a recording of jitread record (or --record) as jitread hist\n"
		"would have: no root, no module, any machine.",
	.run = jr_report_run,
};
