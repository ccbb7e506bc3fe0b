// SPDX-License-Identifier: GPL-2.0
/*
 * jitread - report what jitmod saw, and what a user thread sees on the
 * same CPUs.  "jitread CMD [options]" runs one subcommand.  The old form
 * that users were promised ("jitread", "jitread --hist", "--top",
 * "--replay FILE") still works: its mode flags are aliases, here and
 * nowhere else, and its bare -T and --bucket-size stay in ns.
 *
 * Exit status (common/jr_err.h): 0 done, 1 cannot run (not root, no
 * module, bad file), 2 bad usage, 3 jitmod went away during the run (the
 * report covers what was read), 4 a --fail-* condition held, 5 jitmod
 * stopped on a threshold (-s, -S), 6 another jitread owns jitmod's
 * settings and this run would change them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_opts.h"
#include "common/jr_err.h"
#include "common/jr_sys.h"
#include "core/jr_envelope.h"

/*
 * The core subcommands, then the optional ones, which a build with
 * OPTIONAL=no (JR_CORE_ONLY) leaves out with the tune/ and fleet/ layers.
 */
static const struct jr_cmd_def *const jr_cmds[] = {
	&jr_cmd_hist,	&jr_cmd_top,   &jr_cmd_hwnoise, &jr_cmd_record,
	&jr_cmd_report, &jr_cmd_user,  &jr_cmd_compare, &jr_cmd_attach,
#ifndef JR_CORE_ONLY
	&jr_cmd_diff,	&jr_cmd_audit, &jr_cmd_advise,	&jr_cmd_serve,
	&jr_cmd_survey,
#endif
};

#define JR_NR_CORE_CMDS 8

static const char *const jr_optional[] = { "diff", "audit", "advise", "serve",
					   "survey" };

#define JR_NR_OPTIONAL (sizeof(jr_optional) / sizeof(jr_optional[0]))

#define JR_NR_CMD_DEFS (sizeof(jr_cmds) / sizeof(jr_cmds[0]))

static void jr_usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: jitread CMD [options]    (jitread CMD --help)\n\n");
	for (i = 0; i < JR_NR_CMD_DEFS; i++)
		fprintf(out, "%s  %-9s %s\n",
			i == JR_NR_CORE_CMDS ? "\noptional:\n" : "",
			jr_cmds[i]->name, jr_cmds[i]->summary);
	if (JR_NR_CMD_DEFS == JR_NR_CORE_CMDS) {
		fprintf(out, "\noptional, left out of this build:");
		for (i = 0; i < JR_NR_OPTIONAL; i++)
			fprintf(out, "%s %s", i ? "," : "", jr_optional[i]);
		fprintf(out, "\n");
	}
	fprintf(out,
		"\nWithout CMD, jitread runs hist; the old mode flags --hist, --top\n"
		"and --replay FILE pick the subcommand, and their bare -T and\n"
		"--bucket-size stay in ns.  jitread --version (-V) prints the\n"
		"version.\n");
}

static void jr_cmd_usage(FILE *out, const struct jr_cmd_def *d)
{
	fprintf(out, "usage: jitread %s %s\n\n%s\n\n", d->name, d->synopsis,
		d->about);
	jr_opts_usage(out, d);
}

/* jr_cmd_named - the subcommand called name; exits if there is none. */
static const struct jr_cmd_def *jr_cmd_named(const char *name)
{
	size_t i;

	for (i = 0; i < JR_NR_CMD_DEFS; i++)
		if (!strcmp(jr_cmds[i]->name, name))
			return jr_cmds[i];
	for (i = 0; i < JR_NR_OPTIONAL; i++)
		if (!strcmp(jr_optional[i], name))
			jr_die(JR_EXIT_USAGE,
			       "'%s' is optional and this jitread was built without it (make -C user OPTIONAL=yes)",
			       name);
	jr_die(JR_EXIT_USAGE, "unknown command '%s' (see jitread --help)",
	       name);
}

/*
 * The old form's mode flags: each names its subcommand and the others it
 * may stand beside ("--hist --replay FILE" reports FILE).
 */
static const struct {
	const char *flag;
	const struct jr_cmd_def *cmd;
	const struct jr_cmd_def *also;
} jr_aliases[] = {
	{ "--hist", &jr_cmd_hist, &jr_cmd_report },
	{ "--top", &jr_cmd_top, NULL },
	{ "--replay", &jr_cmd_report, NULL },
};

#define JR_NR_ALIASES (sizeof(jr_aliases) / sizeof(jr_aliases[0]))

/* jr_alias_of - the alias arg is ("--replay=FILE" too), or -1 */
static int jr_alias_of(const char *arg)
{
	size_t i, n;

	for (i = 0; i < JR_NR_ALIASES; i++) {
		n = strlen(jr_aliases[i].flag);
		if (!strncmp(arg, jr_aliases[i].flag, n) &&
		    (!arg[n] ||
		     (arg[n] == '=' && jr_aliases[i].cmd == &jr_cmd_report)))
			return (int)i;
	}
	return -1;
}

/*
 * jr_legacy - the old form: the subcommand its mode flags ask for (a
 * recording to read wins, as it did), and into out its arguments without
 * the flags that only chose it.  A mode flag of another subcommand is
 * refused.
 */
static const struct jr_cmd_def *jr_legacy(int argc, char **argv, int *out_argc,
					  char **out)
{
	const struct jr_cmd_def *d = &jr_cmd_hist;
	bool opts = true;
	int i, k, n = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		k = jr_alias_of(argv[i]);
		if (k >= 0 &&
		    (d == &jr_cmd_hist || jr_aliases[k].cmd == &jr_cmd_report))
			d = jr_aliases[k].cmd;
	}
	out[n++] = argv[0];
	for (i = 1; i < argc; i++) {
		k = opts ? jr_alias_of(argv[i]) : -1;
		opts = opts && strcmp(argv[i], "--");
		if (k >= 0 && jr_aliases[k].cmd != d && jr_aliases[k].also != d)
			jr_die(JR_EXIT_USAGE,
			       "'%s' is not an option of 'jitread %s' (see jitread %s --help)",
			       argv[i], d->name, d->name);
		if (k < 0 || jr_aliases[k].cmd == &jr_cmd_report)
			out[n++] = argv[i];
	}
	out[n] = NULL;
	*out_argc = n;
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

	jr_envelope_begin();
	if (argc > 1 &&
	    (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") ||
	     !strcmp(argv[1], "version"))) {
		printf("jitread %s\n", JR_VERSION);
		return JR_EXIT_OK;
	}
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
			 !strcmp(argv[1], "help"))) {
		jr_usage(stdout);
		return JR_EXIT_OK;
	}
	legacy = argc < 2 || argv[1][0] == '-';
	if (legacy) {
		sub_argv = calloc(argc + 1, sizeof(*sub_argv));
		if (!sub_argv)
			jr_die(JR_EXIT_RUN, "out of memory");
		d = jr_legacy(argc, argv, &sub_argc, sub_argv);
	} else {
		d = jr_cmd_named(argv[1]);
		sub_argc--;
		sub_argv++;
	}
	ret = jr_parse_opts(d, jr_cmds, JR_NR_CMD_DEFS, legacy, sub_argc,
			    sub_argv, &o, &e);
	if (ret == 1) {
		jr_cmd_usage(stdout, d);
		return JR_EXIT_OK;
	}
	if (ret)
		jr_die(JR_EXIT_USAGE, "%s", e.msg);
	if (jr_ready_clear(o.live.ready_file, &e))
		jr_die(JR_EXIT_RUN, "--ready-file %s", e.msg);
	return d->run(&o, argc, argv);
}
