// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_record.c - jitread record: save every jitmod event to a file,
 * for jitread report to analyse later, anywhere.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"

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

const struct jr_cmd_def jr_cmd_record = {
	.name = "record",
	.summary = "save every jitmod event to a file",
	.cmd = JR_CMD_RECORD,
	.synopsis = "-o FILE [options]",
	.about =
		"Saves every jitmod event, with the machine's description, to FILE;\n"
		"jitread report FILE analyses it later, without root or jitmod.",
	.run = jr_record_run,
};
