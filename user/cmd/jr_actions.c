// SPDX-License-Identifier: GPL-2.0
/*
 * jr_actions.c - what --on-threshold and --on-end take: jitread's
 * spellings of an action and rtla's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/jr_actions.h"
#include "common/jr_parse.h"

/*
 * jr_parse_signal - "signal=SIG,PID": both plain numbers in range, SIG a
 * signal, PID neither init nor jitread itself.
 */
static int jr_parse_signal(const char *opt, const char *text,
			   struct jr_action *a, struct jr_err *e)
{
	char sig[16], *comma = strchr(text + 7, ',');
	uint64_t s, pid;

	if (!comma || comma - (text + 7) >= (long)sizeof(sig))
		goto bad;
	memcpy(sig, text + 7, comma - (text + 7));
	sig[comma - (text + 7)] = '\0';
	if (jr_parse_u64(sig, 1, NSIG - 1, &s) ||
	    jr_parse_u64(comma + 1, 2, INT32_MAX, &pid))
		goto bad;
	if (pid == (uint64_t)getpid())
		return jr_fail(e, -EINVAL, "--%s '%s': that is jitread itself",
			       opt, text);
	a->kind = JR_ACT_SIGNAL;
	a->sig = (int)s;
	a->pid = (int)pid;
	return 0;
bad:
	return jr_fail(
		e, -EINVAL,
		"bad --%s '%s' (signal=SIG,PID: a signal number and a pid above 1)",
		opt, text);
}

/*
 * jr_parse_rtla_signal - rtla's "signal,num=SIG,pid=PID|parent" as
 * jitread's signal=SIG,PID, checked the same way
 */
static int jr_parse_rtla_signal(const char *opt, const char *text,
				struct jr_action *a, struct jr_err *e)
{
	const char *num = strstr(text, ",num="), *pid = strstr(text, ",pid=");
	char mine[64];
	size_t ns, np;

	if (!num || !pid)
		return jr_fail(e, -EINVAL,
			       "bad --%s '%s' (signal,num=SIG,pid=PID|parent)",
			       opt, text);
	num += 5;
	pid += 5;
	ns = strcspn(num, ",");
	np = strcspn(pid, ",");
	if (np == 6 && !strncmp(pid, "parent", 6))
		snprintf(mine, sizeof(mine), "signal=%.*s,%d", (int)ns, num,
			 (int)getppid());
	else
		snprintf(mine, sizeof(mine), "signal=%.*s,%.*s", (int)ns, num,
			 (int)np, pid);
	return jr_parse_signal(opt, mine, a, e);
}

/* the actions whose argument follows a prefix, not empty */
static const struct {
	const char *prefix;
	int kind;
} jr_arg_actions[] = {
	{ "exec=", JR_ACT_EXEC },
	{ "trace,file=", JR_ACT_TRACE }, /* rtla's */
	{ "shell,command=", JR_ACT_EXEC }, /* rtla's: also through the shell */
};

/* jr_arg_action - text is one of jr_arg_actions: into a */
static bool jr_arg_action(const char *text, struct jr_action *a)
{
	size_t i, n;

	for (i = 0; i < sizeof(jr_arg_actions) / sizeof(jr_arg_actions[0]);
	     i++) {
		n = strlen(jr_arg_actions[i].prefix);
		if (!strncmp(text, jr_arg_actions[i].prefix, n) && text[n]) {
			a->kind = jr_arg_actions[i].kind;
			a->arg = text + n;
			return true;
		}
	}
	return false;
}

/*
 * jr_parse_action - one ACTION of --on-threshold (stop, continue, trace,
 * exec, signal) or --on-end (trace, exec, signal) into l.  rtla's
 * spellings work too: trace,file=F; shell,command=C (exec=C, which runs
 * through the shell as rtla's does); signal,num=N,pid=P|parent.
 */
int jr_parse_action(const char *text, bool end, struct jr_actions *l,
		    struct jr_err *e)
{
	const char *opt = end ? "on-end" : "on-threshold";
	struct jr_action *a;

	if (l->nr == JR_MAX_ACTIONS)
		return jr_fail(e, -EINVAL, "at most %d --%s actions",
			       JR_MAX_ACTIONS, opt);
	a = &l->a[l->nr];
	memset(a, 0, sizeof(*a));
	if (!end && !strcmp(text, "stop")) {
		a->kind = JR_ACT_STOP;
	} else if (!end && !strcmp(text, "continue")) {
		a->kind = JR_ACT_CONTINUE;
		l->cont = true;
	} else if (!strcmp(text, "trace") || !strncmp(text, "trace=", 6)) {
		a->kind = JR_ACT_TRACE;
		a->arg = text[5] ? text + 6 : JR_TRACE_FILE;
	} else if (jr_arg_action(text, a)) {
		/* exec=, and rtla's trace,file= and shell,command= */
	} else if (!strncmp(text, "signal=", 7)) {
		if (jr_parse_signal(opt, text, a, e))
			return -EINVAL;
	} else if (!strncmp(text, "signal,", 7)) {
		if (jr_parse_rtla_signal(opt, text, a, e))
			return -EINVAL;
	} else {
		return jr_fail(e, -EINVAL,
			       "bad --%s '%s' (%strace[=FILE], "
			       "exec=CMD, signal=SIG,PID)",
			       opt, text, end ? "" : "stop, continue, ");
	}
	l->nr++;
	return 0;
}

/* jr_check_actions - stop and continue exclude each other. */
int jr_check_actions(const struct jr_actions *l, struct jr_err *e)
{
	int i;

	for (i = 0; l->cont && i < l->nr; i++)
		if (l->a[i].kind == JR_ACT_STOP)
			return jr_fail(
				e, -EINVAL,
				"--on-threshold: stop and continue exclude each other");
	return 0;
}
