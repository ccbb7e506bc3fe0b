// SPDX-License-Identifier: GPL-2.0
/*
 * jr_err.c - one-line errors, exit codes and the stop signals.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_err.h"

struct jr_stop jr_run_stop;

/*
 * jr_fail - fill e with the message and return code, a negative errno:
 * "return jr_fail(e, -EINVAL, ...)".  The message is never left empty.
 */
int jr_fail(struct jr_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (!e->msg[0])
		snprintf(e->msg, sizeof(e->msg), "%s", strerror(-code));
	return code;
}

static void jr_vsay(const char *fmt, va_list ap)
{
	fprintf(stderr, "jitread: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
}

void jr_die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	jr_vsay(fmt, ap);
	va_end(ap);
	exit(code);
}

void jr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	jr_vsay(fmt, ap);
	va_end(ap);
}

static void jr_on_signal(int sig)
{
	jr_run_stop.sig = sig;
}

/*
 * jr_catch_signals - ^C, kill, hangup and a closed output pipe (jitread
 * top | head) end the run, with its clean-up and its report.
 */
void jr_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = jr_on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
}
