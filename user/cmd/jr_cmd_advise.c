// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_advise.c - jitread advise: what to change, from a report's
 * measured evidence and the audit of the machine it was measured on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_out.h"
#include "common/jr_sys.h"
#include "core/jr_envelope.h"
#include "tune/jr_advise.h"

/* jitread advise's own options (o->own) */
struct jr_advise_own {
	const char *audit; /* an audit's JSON instead of the report's */
	double min_ppm; /* evidence below this share of a CPU's time */
	uint64_t min_count; /* or below this many events */
	bool fail_advice; /* exit 4 when there is advice */
};

enum {
	JR_K_AUDIT_FILE = JR_K_OWN,
	JR_K_MIN_PPM,
	JR_K_MIN_COUNT,
	JR_K_FAIL_ADVICE,
};

static const struct jr_optdef jr_advise_optdefs[] = {
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_quiet },
	{ .group = jr_opt_json },
	{ .name = "audit",
	  .key = JR_K_AUDIT_FILE,
	  .arg = "FILE",
	  .help = "the audit to judge by (jitread audit --json); default:\n"
		  "the report's, else this machine's now" },
	{ .name = "min-ppm",
	  .key = JR_K_MIN_PPM,
	  .arg = "PPM",
	  .help = "least evidence for advice, in ppm of a CPU's sampled\n"
		  "time (default 1)" },
	{ .name = "min-count",
	  .key = JR_K_MIN_COUNT,
	  .arg = "N",
	  .help = "least events of evidence for advice (default 2)" },
	{ .name = "fail-advice",
	  .key = JR_K_FAIL_ADVICE,
	  .help = "exit 4 when there is advice" },
	{ .group = jr_opt_help },
	{ 0 },
};

/* jr_advise_ppm - a number of ppm, 0 to 1000000. */
static int jr_advise_ppm(const char *arg, double *ppm)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || *end || !(v >= 0) || v > 1e6)
		return -EINVAL;
	*ppm = v;
	return 0;
}

static void jr_advise_defaults(struct jr_opts *o)
{
	struct jr_advise_own *an = o->own;

	an->min_ppm = 1;
	an->min_count = 2;
}

static enum jr_optres jr_advise_apply(int key, const char *arg,
				      const struct jr_optenv *env)
{
	struct jr_advise_own *an = env->own;

	switch (key) {
	case JR_K_AUDIT_FILE:
		an->audit = arg;
		return JR_OPT_TAKEN;
	case JR_K_MIN_PPM:
		return jr_taken(jr_advise_ppm(arg, &an->min_ppm));
	case JR_K_MIN_COUNT:
		return jr_taken(
			jr_parse_u64(arg, 1, UINT32_MAX, &an->min_count));
	case JR_K_FAIL_ADVICE:
		an->fail_advice = true;
		return JR_OPT_TAKEN;
	}
	return JR_OPT_NOT_MINE;
}

static int jr_advise_check(struct jr_opts *o, const char *name,
			   struct jr_err *e)
{
	if (!o->file)
		return jr_fail(e, -EINVAL,
			       "jitread %s needs a JSON report to judge", name);
	return 0;
}

/*
 * jr_advise_audit - the audit to judge by: --audit's file, else the
 * report's own block, else this machine's, read now for the report's
 * CPUs.  Returns where it came from.
 */
static const char *jr_advise_audit(const struct jr_opts *o,
				   const struct jr_rdoc *d, struct jr_audit *a)
{
	const struct jr_advise_own *an = o->own;
	unsigned char cpus[JR_MAX_CPUS] = { 0 };
	struct jr_err e;
	size_t i, len;
	char *text;

	if (an->audit) {
		text = jr_read_file(an->audit, 64UL << 20, &len, &e);
		if (!text)
			jr_die(JR_EXIT_RUN, "--audit %s: %s", an->audit, e.msg);
		if (jr_audit_parse(a, text, &e))
			jr_die(JR_EXIT_RUN, "--audit %s: %s", an->audit, e.msg);
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
	const struct jr_advise_own *an = o->own;
	struct jr_advise v = { .min_ppm = an->min_ppm,
			       .min_count = an->min_count };
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
	jr_envelope_rc(ret ?: an->fail_advice && v.nr ? JR_EXIT_VERDICT : 0);
	if (outs.json)
		ret |= jr_json_close(&outs, o->out.json,
				     jr_advise_json(outs.json, &v));
	jr_outputs_close(&outs);
	if (!ret && an->fail_advice && v.nr) {
		fprintf(stderr, "jitread: advise: %d piece(s) of advice\n",
			v.nr);
		ret = JR_EXIT_VERDICT;
	}
	jr_advise_free(&v);
	jr_audit_free(&a);
	jr_rdoc_free(&d);
	return ret;
}

static const struct jr_opthelp jr_advise_helps[] = {
	{ JR_K_CPUS, "CPUs to advise on, e.g. 1-3,5" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_advise = {
	.name = "advise",
	.summary = "what to change, ranked by the noise it would remove",
	.opts = jr_advise_optdefs,
	.helps = jr_advise_helps,
	.nr_args = 1,
	.own_size = sizeof(struct jr_advise_own),
	.defaults = jr_advise_defaults,
	.apply = jr_advise_apply,
	.check = jr_advise_check,
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
