/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_actions.h - the actions a live run takes when jitmod stops
 * (--on-threshold) and when the run ends (--on-end).
 */
#ifndef JR_ACTIONS_H
#define JR_ACTIONS_H

#include <stdbool.h>

#include "common/jr_err.h"

#define JR_MAX_ACTIONS 8
/* -t's file, as rtla's osnoise_trace.txt */
#define JR_TRACE_FILE "jitread_trace.txt"

struct jr_action {
	enum {
		JR_ACT_STOP,
		JR_ACT_CONTINUE,
		JR_ACT_TRACE,
		JR_ACT_EXEC,
		JR_ACT_SIGNAL,
	} kind;
	const char *arg; /* file or command */
	int sig;
	int pid;
};

/* --on-threshold's or --on-end's actions, run in order */
struct jr_actions {
	struct jr_action a[JR_MAX_ACTIONS];
	int nr;
	bool cont; /* continue: jitmod samples again after a stop */
};

/*
 * jr_parse_action - one ACTION of --on-threshold (end false) or --on-end
 * into l; jr_check_actions - what the actions of l, together, exclude.
 * 0, or -EINVAL with e.
 */
int jr_parse_action(const char *text, bool end, struct jr_actions *l,
		    struct jr_err *e);
int jr_check_actions(const struct jr_actions *l, struct jr_err *e);

#endif /* JR_ACTIONS_H */
