// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_hist.c - jitread hist: histograms, sources and a summary at the
 * end of a live run.  Also what "jitread" alone and "jitread --hist" run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"
#include "cmd/jr_opts_rtla.h"
#include "cmd/jr_out.h"
#include "core/jr_envelope.h"

/* a status line on a terminal, while the run goes on */
static void jr_hist_frame(struct jr_live *c, double elapsed, bool last)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDOUT_FILENO) && isatty(STDERR_FILENO) &&
		      !c->o->out.quiet;
	if (!tty)
		return;
	if (last)
		fprintf(stderr, "\n");
	else
		fprintf(stderr, "\rjitread: %.0f s, %" PRIu64 " events ",
			elapsed, c->model.events);
}

static int jr_hist_run(struct jr_opts *o, int argc, char **argv)
{
	struct jr_live c = { .o = o, .frame = jr_hist_frame };
	struct jr_report_opts ro;
	int ret, files, verdict;

	ret = jr_live_run(&c, argc, argv);
	ro = jr_report_opts_of(o);
	if (!o->out.quiet)
		jr_report_text(stdout, &c.model, &c.sys, &ro);
	/* judged before the files are written: their return_code is it */
	verdict = jr_fail_if(o, &c.model, JR_SIDE_KERNEL, true, NULL, 0);
	jr_envelope_rc(jr_live_exit(&c, c.fail ?: ret ?: verdict));
	files = jr_report_files(&c.outs, &c.model, &c.sys, o, true);
	ret = jr_live_end(&c, ret) ?: files ?: verdict;
	ret = jr_live_exit(&c, ret);
	jr_live_free(&c);
	return ret;
}

static const struct jr_optdef jr_hist_opts[] = {
	{ .group = jr_opts_live },
	{ .group = jr_opt_record },
	{ .group = jr_opts_shown },
	{ .group = jr_opt_json },
	{ .group = jr_opts_files },
	{ .group = jr_opt_help },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_hist = {
	.name = "hist",
	.summary = "histograms, sources and a summary at the end of a live run",
	.opts = jr_hist_opts,
	.synopsis = "[options]",
	.about =
		"Reads jitmod's events until the end of the run and reports per-CPU\n"
		"noise: percentiles per class, a bucket histogram, the sources by total\n"
		"time and a summary.",
	.apply = jr_apply_rtla,
	.run = jr_hist_run,
};
