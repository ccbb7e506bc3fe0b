// SPDX-License-Identifier: GPL-2.0
/*
 * jitread - report what jitmod saw, and what a user thread sees on the
 * same CPUs.  "jitread CMD [options]" runs one subcommand; the old form
 * without one ("jitread", "jitread --hist", "--top", "--user",
 * "--compare", "--replay FILE") still works and picks the subcommand from
 * its mode flag.
 *
 * Exit status (common/jr_err.h): 0 done, 1 cannot run (not root, no
 * module, bad file), 2 bad usage, 3 jitmod went away during the run (the
 * report covers what was read), 4 a --fail-* condition held, 5 jitmod
 * stopped on a threshold (-s, -S).
 */
#include <stdio.h>
#include <string.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_opts.h"
#include "common/jr_err.h"
#include "common/jr_sys.h"

static const struct jr_cmd_def *const jr_cmds[] = {
	&jr_cmd_hist,	&jr_cmd_top,	 &jr_cmd_record, &jr_cmd_report,
	&jr_cmd_user,	&jr_cmd_compare, &jr_cmd_diff,	 &jr_cmd_audit,
	&jr_cmd_advise, &jr_cmd_serve,	 &jr_cmd_survey,
};

#define JR_NR_CMD_DEFS (sizeof(jr_cmds) / sizeof(jr_cmds[0]))

static void jr_usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: jitread CMD [options]    (jitread CMD --help)\n\n");
	for (i = 0; i < JR_NR_CMD_DEFS; i++)
		fprintf(out, "  %-9s %s\n", jr_cmds[i]->name,
			jr_cmds[i]->summary);
	fprintf(out,
		"\nWithout CMD, jitread runs hist; the old mode flags --hist, --top,\n"
		"--user, --compare and --replay FILE pick the subcommand, and their\n"
		"bare -T and --bucket-size stay in ns.\n");
}

static void jr_cmd_usage(FILE *out, const struct jr_cmd_def *d)
{
	fprintf(out, "usage: jitread %s %s\n\n%s\n\n", d->name, d->synopsis,
		d->about);
	jr_opts_usage(out, d->cmd);
}

static const struct jr_cmd_def *jr_cmd_named(const char *name)
{
	size_t i;

	for (i = 0; i < JR_NR_CMD_DEFS; i++)
		if (!strcmp(jr_cmds[i]->name, name))
			return jr_cmds[i];
	return NULL;
}

/*
 * jr_legacy_cmd - the subcommand the old form's mode flags ask for; a
 * recording to read (--replay) wins over the others, as it did.
 */
static const struct jr_cmd_def *jr_legacy_cmd(int argc, char **argv)
{
	const struct jr_cmd_def *d = &jr_cmd_hist;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--replay") ||
		    !strncmp(argv[i], "--replay=", 9))
			return &jr_cmd_report;
		if (!strcmp(argv[i], "--top"))
			d = &jr_cmd_top;
		else if (!strcmp(argv[i], "--user"))
			d = &jr_cmd_user;
		else if (!strcmp(argv[i], "--compare"))
			d = &jr_cmd_compare;
	}
	return d;
}

int main(int argc, char **argv)
{
	int sub_argc = argc, ret;
	char **sub_argv = argv;
	const struct jr_cmd_def *d;
	struct jr_opts o;
	struct jr_err e;
	bool legacy;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
			 !strcmp(argv[1], "help"))) {
		jr_usage(stdout);
		return JR_EXIT_OK;
	}
	legacy = argc < 2 || argv[1][0] == '-';
	if (legacy) {
		d = jr_legacy_cmd(argc, argv);
	} else {
		d = jr_cmd_named(argv[1]);
		if (!d)
			jr_die(JR_EXIT_USAGE,
			       "unknown command '%s' (see jitread --help)",
			       argv[1]);
		sub_argc--;
		sub_argv++;
	}
	ret = jr_parse_opts(d->cmd, d->name, legacy, sub_argc, sub_argv, &o,
			    &e);
	if (ret == 1) {
		jr_cmd_usage(stdout, d);
		return JR_EXIT_OK;
	}
	if (ret)
		jr_die(JR_EXIT_USAGE, "%s", e.msg);
	if (jr_ready_clear(o.live.ready_file))
		jr_die(JR_EXIT_RUN, "--ready-file %s: %m", o.live.ready_file);
	return d->run(&o, argc, argv);
}
