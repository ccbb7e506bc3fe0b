// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_record.c - jitread record: save every jitmod event to a file,
 * for jitread report to analyse later, anywhere.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"
#include "cmd/jr_opts_rtla.h"

static int jr_record_run(struct jr_opts *o, int argc, char **argv)
{
	struct jr_live c = { .o = o, .store_only = true };
	int ret;

	ret = jr_live_run(&c, argc, argv);
	if (!o->out.quiet && !c.fail)
		printf("jitread: %" PRIu64 " events in %s, %" PRIu64
		       " lost by the ring buffers\n",
		       c.recorded, o->live.record, c.lost);
	jr_outputs_close(&c.outs);
	ret = jr_live_exit(&c, jr_live_end(&c, ret));
	jr_live_free(&c);
	return ret;
}

#define JR_K_OUTPUT 'o'

static const struct jr_optdef jr_record_opts[] = {
	{ .group = jr_opts_live },
	{ .name = "output",
	  .key = JR_K_OUTPUT,
	  .arg = "FILE",
	  .help = "the recording to write (required)" },
	{ .group = jr_opt_help },
	{ 0 },
};

static enum jr_optres jr_record_apply(int key, const char *arg,
				      const struct jr_optenv *env)
{
	if (key != JR_K_OUTPUT)
		return jr_apply_rtla(key, arg, env);
	env->o->live.record = arg;
	return JR_OPT_TAKEN;
}

static int jr_record_check(struct jr_opts *o, const char *name,
			   struct jr_err *e)
{
	if (!o->live.record)
		return jr_fail(
			e, -EINVAL,
			"jitread %s needs -o FILE, the recording to write",
			name);
	return 0;
}

const struct jr_cmd_def jr_cmd_record = {
	.name = "record",
	.summary = "save every jitmod event to a file",
	.opts = jr_record_opts,
	.apply = jr_record_apply,
	.check = jr_record_check,
	.synopsis = "-o FILE [options]",
	.about =
		"Saves every jitmod event, with the machine's description, to FILE;\n"
		"jitread report FILE analyses it later, without root or jitmod.",
	.run = jr_record_run,
};
