/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_cmds.h - jitread's subcommands, each defined in a file of its own.
 */
#ifndef JR_CMDS_H
#define JR_CMDS_H

#include "cmd/jr_opts.h"

struct jr_cmd_def {
	const char *name;
	enum jr_cmd cmd;
	const char *summary; /* one line, for jitread --help */
	const char *synopsis; /* after "usage: jitread NAME " */
	const char *about; /* what it does, a few lines */
	int (*run)(struct jr_opts *o, int argc, char **argv);
};

extern const struct jr_cmd_def jr_cmd_hist;
extern const struct jr_cmd_def jr_cmd_top;
extern const struct jr_cmd_def jr_cmd_record;
extern const struct jr_cmd_def jr_cmd_report;
extern const struct jr_cmd_def jr_cmd_user;
extern const struct jr_cmd_def jr_cmd_compare;
extern const struct jr_cmd_def jr_cmd_diff;
extern const struct jr_cmd_def jr_cmd_audit;
extern const struct jr_cmd_def jr_cmd_advise;
extern const struct jr_cmd_def jr_cmd_serve;
extern const struct jr_cmd_def jr_cmd_survey;

#endif /* JR_CMDS_H */
