/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_err.h - jitread's one error convention.
 *
 * A function that can fail returns 0 or a negative errno and, when it
 * takes a struct jr_err, fills it with one line saying why.  Only a
 * subcommand's main decides to exit, through jr_die() or its return
 * value, with one of the exit codes below.
 */
#ifndef JR_ERR_H
#define JR_ERR_H

#include <signal.h>
#include <stddef.h>

#define JR_EXIT_OK 0
#define JR_EXIT_RUN 1 /* cannot run: not root, no module, bad file */
#define JR_EXIT_USAGE 2 /* bad command line */
#define JR_EXIT_GONE 3 /* jitmod went away; the report covers what was read */
#define JR_EXIT_VERDICT 4 /* a --fail-if condition held */
#define JR_EXIT_STOPPED 5 /* jitmod stopped on a threshold (-s, -S) */
#define JR_EXIT_BUSY 6 /* another jitread owns jitmod's settings */

#define JR_ERR_LEN 256

struct jr_err {
	char msg[JR_ERR_LEN];
};

int jr_fail(struct jr_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void jr_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void jr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * struct jr_stop - a run's stop flag: the signal that ends it early
 * (SIGINT, SIGTERM, SIGHUP or SIGPIPE, once jr_catch_signals() ran), 0
 * while it runs.  Only the handler writes it; the run's threads are given
 * it read-only.
 */
struct jr_stop {
	volatile sig_atomic_t sig;
};

extern struct jr_stop jr_run_stop;
void jr_catch_signals(void);

#endif /* JR_ERR_H */
