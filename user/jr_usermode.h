/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_usermode.h - jitread --user and --compare.
 */
#ifndef JR_USERMODE_H
#define JR_USERMODE_H

#include <signal.h>

#include "jr_cli.h"
#include "jr_model.h"
#include "jr_pipe.h"
#include "jr_rec.h"
#include "jr_report.h"
#include "jr_user.h"

/* struct jr_udoc - everything the user side reports, text and JSON. */
struct jr_udoc {
	const struct jr_opts *o;
	struct jr_report_opts ro;
	struct jr_model *kernel; /* --compare only */
	struct jr_model *user;
	struct jr_user_info info;
	bool pipe_ran;
	struct jr_pipe_cfg pcfg;
	struct jr_pipe_result pipe; /* merged over rounds */
	uint64_t pipe_rounds, pipe_verified_rounds;
	char pipe_verdict[160];
	uint64_t rounds_done;
};

int jr_run_user(struct jr_opts *o, struct jr_sysinfo *sys, int argc,
		char **argv);
int jr_run_compare(struct jr_opts *o, struct jr_sysinfo *sys, int argc,
		   char **argv);

/* jr_output_user.c */
int jr_udoc_json_extra(FILE *out, void *ctx);
void jr_udoc_text(FILE *out, struct jr_udoc *d);

/* jr_compare.c */
void jr_compare_text(FILE *out, struct jr_udoc *d);
int jr_compare_json(FILE *out, struct jr_udoc *d);

/* jitread.c: shared with the kernel modes */
void jr_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void jr_preflight(const struct jr_opts *o);
void jr_set_params(const struct jr_opts *o);
extern volatile sig_atomic_t jr_interrupted;

#define JR_EXIT_RUN 1
#define JR_EXIT_USAGE 2
#define JR_EXIT_GONE 3

#endif /* JR_USERMODE_H */
