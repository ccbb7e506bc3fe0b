// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_diff.c - jitread diff: two JSON reports of the same CPUs, before
 * and after a change, and whether it made them quieter.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_out.h"
#include "core/jr_diff.h"
#include "core/jr_diff_out.h"
#include "core/jr_envelope.h"

/* jitread diff's own options (o->own) */
struct jr_diff_own {
	double min_change; /* a fraction of the first report's value */
	bool fail_worse; /* exit 4 when the verdict is worse */
};

enum { JR_K_MIN_CHANGE = JR_K_OWN, JR_K_FAIL_WORSE };

static const struct jr_optdef jr_diff_optdefs[] = {
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_quiet },
	{ .group = jr_opt_unit },
	{ .group = jr_opt_json },
	{ .name = "min-change",
	  .key = JR_K_MIN_CHANGE,
	  .arg = "PCT",
	  .help = "smallest change judged, in % of the first report's\n"
		  "value (default 10)" },
	{ .name = "fail-worse",
	  .key = JR_K_FAIL_WORSE,
	  .help = "exit 4 when the verdict is worse" },
	{ .group = jr_opt_help },
	{ 0 },
};

/* jr_diff_pct - "10" or "10%" (0-1000) as a fraction. */
static int jr_diff_pct(const char *arg, double *frac)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || (*end && strcmp(end, "%")) || !(v >= 0) ||
	    v > 1000)
		return -EINVAL;
	*frac = v / 100;
	return 0;
}

static void jr_diff_defaults(struct jr_opts *o)
{
	struct jr_diff_own *dn = o->own;

	dn->min_change = 0.1;
}

static enum jr_optres jr_diff_apply(int key, const char *arg,
				    const struct jr_optenv *env)
{
	struct jr_diff_own *dn = env->own;

	switch (key) {
	case JR_K_MIN_CHANGE:
		return jr_taken(jr_diff_pct(arg, &dn->min_change));
	case JR_K_FAIL_WORSE:
		dn->fail_worse = true;
		return JR_OPT_TAKEN;
	}
	return JR_OPT_NOT_MINE;
}

static int jr_diff_check(struct jr_opts *o, const char *name, struct jr_err *e)
{
	if (!o->file_b)
		return jr_fail(
			e, -EINVAL,
			"jitread %s needs two JSON reports: before and after",
			name);
	return 0;
}

static void jr_diff_load(struct jr_rdoc *d, const char *path)
{
	struct jr_err e;

	if (jr_rdoc_load(d, path, &e)) {
		jr_rdoc_free(d);
		jr_die(JR_EXIT_RUN, "%s: %s", path, e.msg);
	}
}

static int jr_diff_main(struct jr_opts *o, int argc, char **argv)
{
	const struct jr_diff_own *dn = o->own;
	struct jr_diff_view v = {
		.label_a = o->file,
		.label_b = o->file_b,
		.unit = o->out.unit,
		.div = o->out.div,
	};
	struct jr_outputs outs;
	struct jr_rdoc a, b;
	struct jr_diff d;
	int ret = JR_EXIT_OK;

	(void)argc;
	(void)argv;
	jr_diff_load(&a, o->file);
	jr_diff_load(&b, o->file_b);
	if (strcmp(a.side, b.side))
		jr_die(JR_EXIT_RUN, "%s is a report of side %s, %s of side %s",
		       o->file, a.side, o->file_b, b.side);
	jr_outputs_open(&outs, o, 0);
	if (jr_diff_run(&d, &a, &b, o->have_cpus ? o->cpus : NULL,
			dn->min_change))
		jr_die(JR_EXIT_RUN, "out of memory");
	if (!o->out.quiet && jr_diff_text(stdout, &d, &v))
		ret = JR_EXIT_RUN;
	jr_envelope_rc(ret ?:
			       dn->fail_worse && d.verdict == JR_DV_WORSE ?
			       JR_EXIT_VERDICT :
			       0);
	if (outs.json)
		ret |= jr_json_close(&outs, o->out.json,
				     jr_diff_json(outs.json, &d, &v));
	jr_outputs_close(&outs);
	if (!ret && dn->fail_worse && d.verdict == JR_DV_WORSE) {
		fprintf(stderr, "jitread: diff: worse\n");
		ret = JR_EXIT_VERDICT;
	}
	jr_diff_free(&d);
	jr_rdoc_free(&a);
	jr_rdoc_free(&b);
	return ret;
}

static const struct jr_opthelp jr_diff_helps[] = {
	{ JR_K_CPUS, "CPUs to compare, e.g. 1-3,5" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_diff = {
	.name = "diff",
	.summary = "two JSON reports compared: better, worse or unchanged",
	.opts = jr_diff_optdefs,
	.helps = jr_diff_helps,
	.nr_args = 2,
	.own_size = sizeof(struct jr_diff_own),
	.defaults = jr_diff_defaults,
	.apply = jr_diff_apply,
	.check = jr_diff_check,
	.synopsis = "BEFORE.json AFTER.json [options]",
	.about =
		"Compares two --json reports of jitread hist, report or user, CPU by\n"
		"CPU: the noise share and the rate of gaps above each level, per\n"
		"second of runtime, with a verdict that the runs' own sampling noise\n"
		"cannot move (a change counts at 3 standard errors and --min-change);\n"
		"then each class's percentiles and each source's rate and time.",
	.run = jr_diff_main,
};
