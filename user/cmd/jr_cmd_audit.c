// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_audit.c - jitread audit: how the machine is set up for quiet
 * CPUs, as a checklist; no module, no root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_out.h"
#include "core/jr_envelope.h"
#include "tune/jr_audit_check.h"

/* jitread audit's own options (o->own) */
struct jr_audit_own {
	const char *sysroot; /* read /proc and /sys under this directory */
	bool fail_warn; /* exit 4 when an item warns */
};

enum { JR_K_SYSROOT = JR_K_OWN, JR_K_FAIL_WARN };

static const struct jr_optdef jr_audit_optdefs[] = {
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_quiet },
	{ .group = jr_opt_json },
	{ .name = "sysroot",
	  .key = JR_K_SYSROOT,
	  .arg = "DIR",
	  .help = "read /proc and /sys under DIR (a copy of a machine's)" },
	{ .name = "fail-warn",
	  .key = JR_K_FAIL_WARN,
	  .help = "exit 4 when an item warns" },
	{ .group = jr_opt_help },
	{ 0 },
};

static enum jr_optres jr_audit_apply(int key, const char *arg,
				     const struct jr_optenv *env)
{
	struct jr_audit_own *ao = env->own;

	switch (key) {
	case JR_K_SYSROOT:
		ao->sysroot = arg;
		return JR_OPT_TAKEN;
	case JR_K_FAIL_WARN:
		ao->fail_warn = true;
		return JR_OPT_TAKEN;
	}
	return JR_OPT_NOT_MINE;
}

static int jr_audit_main(struct jr_opts *o, int argc, char **argv)
{
	const struct jr_audit_own *ao = o->own;
	const char *root = ao->sysroot ? ao->sysroot : "";
	unsigned char cpus[JR_MAX_CPUS];
	struct jr_outputs outs;
	struct jr_checks checks;
	struct jr_audit a;
	struct jr_err e;
	struct stat st;
	int ret = JR_EXIT_OK;

	(void)argc;
	(void)argv;
	if (root[0] && (stat(root, &st) || !S_ISDIR(st.st_mode)))
		jr_die(JR_EXIT_RUN, "--sysroot %s: not a directory", root);
	if (o->have_cpus)
		memcpy(cpus, o->cpus, sizeof(cpus));
	else if (jr_audit_default_cpus(root, cpus))
		jr_die(JR_EXIT_RUN,
		       "no CPU to audit: none is isolated or nohz_full (give -c)");
	jr_outputs_open(&outs, o, 0);
	if (jr_audit_read(&a, root, cpus, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	if (jr_audit_checks(&a, &checks))
		jr_die(JR_EXIT_RUN, "out of memory");
	if (!o->out.quiet && jr_audit_text(stdout, &a, &checks))
		ret = JR_EXIT_RUN;
	jr_envelope_rc(ret ?:
			       ao->fail_warn && checks.warnings ?
			       JR_EXIT_VERDICT :
			       0);
	if (outs.json)
		ret |= jr_json_close(&outs, o->out.json,
				     jr_audit_json(outs.json, &a, &checks,
						   true));
	jr_outputs_close(&outs);
	if (!ret && ao->fail_warn && checks.warnings) {
		fprintf(stderr, "jitread: audit: %d warning(s)\n",
			checks.warnings);
		ret = JR_EXIT_VERDICT;
	}
	free(checks.k);
	jr_audit_free(&a);
	return ret;
}

static const struct jr_opthelp jr_audit_helps[] = {
	{ JR_K_CPUS, "CPUs to audit, e.g. 1-3,5" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_audit = {
	.name = "audit",
	.summary = "how the machine is set up for quiet CPUs: a checklist",
	.opts = jr_audit_optdefs,
	.helps = jr_audit_helps,
	.own_size = sizeof(struct jr_audit_own),
	.apply = jr_audit_apply,
	.synopsis = "[-c CPUS] [options]",
	.about =
		"Reads /proc and /sys and lists, for the machine and each CPU\n"
		"(default: the isolated ones, else nohz_full's, else jitmod's), what\n"
		"is set up for quiet CPUs (ok), what is a known source of noise\n"
		"(warn) and what is worth knowing (info). No module, no root.",
	.run = jr_audit_main,
};
