// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_advise.c - jitread advise: what to change, from a report's
 * measured evidence and the audit of the machine it was measured on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_out.h"
#include "common/jr_sys.h"
#include "tune/jr_advise.h"

/*
 * jr_advise_audit - the audit to judge by: --audit's file, else the
 * report's own block, else this machine's, read now for the report's
 * CPUs.  Returns where it came from.
 */
static const char *jr_advise_audit(const struct jr_opts *o,
				   const struct jr_rdoc *d, struct jr_audit *a)
{
	unsigned char cpus[JR_MAX_CPUS] = { 0 };
	struct jr_err e;
	size_t i, len;
	char *text;

	if (o->advise.audit) {
		text = jr_read_file(o->advise.audit, 64UL << 20, &len, &e);
		if (!text)
			jr_die(JR_EXIT_RUN, "--audit %s: %s", o->advise.audit,
			       e.msg);
		if (jr_audit_parse(a, text, &e))
			jr_die(JR_EXIT_RUN, "--audit %s: %s", o->advise.audit,
			       e.msg);
		free(text);
		return "from --audit";
	}
	if (d->audit) {
		if (jr_audit_parse(a, d->audit, &e))
			jr_die(JR_EXIT_RUN, "%s: %s", o->file, e.msg);
		return "from the report";
	}
	for (i = 0; i < d->nr_cpu; i++)
		cpus[d->cpu[i].cpu] = 1;
	if (jr_audit_read(a, "", cpus, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	return "of this machine, now (the report has none)";
}

static int jr_advise_main(struct jr_opts *o, int argc, char **argv)
{
	struct jr_advise v = { .min_ppm = o->advise.min_ppm,
			       .min_count = o->advise.min_count };
	struct jr_outputs outs;
	struct jr_audit a;
	struct jr_rdoc d;
	struct jr_err e;
	int ret = JR_EXIT_OK;

	(void)argc;
	(void)argv;
	if (jr_rdoc_load(&d, o->file, &e)) {
		jr_rdoc_free(&d);
		jr_die(JR_EXIT_RUN, "%s: %s", o->file, e.msg);
	}
	jr_outputs_open(&outs, o, 0);
	v.audit_from = jr_advise_audit(o, &d, &a);
	if (jr_advise_run(&v, &d, &a, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	if (!o->out.quiet && jr_advise_text(stdout, &v))
		ret = JR_EXIT_RUN;
	if (outs.json)
		ret |= jr_json_close(&outs, o->out.json,
				     jr_advise_json(outs.json, &v));
	jr_outputs_close(&outs);
	if (!ret && o->advise.fail_advice && v.nr) {
		fprintf(stderr, "jitread: advise: %d piece(s) of advice\n",
			v.nr);
		ret = JR_EXIT_VERDICT;
	}
	jr_advise_free(&v);
	jr_audit_free(&a);
	jr_rdoc_free(&d);
	return ret;
}

const struct jr_cmd_def jr_cmd_advise = {
	.name = "advise",
	.summary = "what to change, ranked by the noise it would remove",
	.cmd = JR_CMD_ADVISE,
	.synopsis = "REPORT.json [options]",
	.about =
		"Reads a --json report of jitread hist (or report, or user) and\n"
		"maps its measured sources, and what ran inside them, to concrete\n"
		"mitigations for this system: the command or boot parameter, the\n"
		"share of the CPU's noise it would remove, the caveats and how to\n"
		"verify it. The audit it judges by is the report's own, --audit's,\n"
		"or this machine's now. No evidence, no advice: a quiet CPU gets\n"
		"'nothing to do'. The rules are listed in Documentation/advise.rst.",
	.run = jr_advise_main,
};
