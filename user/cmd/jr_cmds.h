/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_cmds.h - jitread's subcommands, each defined in a file of its own.
 */
#ifndef JR_CMDS_H
#define JR_CMDS_H

#include "cmd/jr_opts.h"

extern const struct jr_cmd_def jr_cmd_hist;
extern const struct jr_cmd_def jr_cmd_top;
extern const struct jr_cmd_def jr_cmd_hwnoise;
extern const struct jr_cmd_def jr_cmd_record;
extern const struct jr_cmd_def jr_cmd_report;
extern const struct jr_cmd_def jr_cmd_user;
extern const struct jr_cmd_def jr_cmd_compare;
extern const struct jr_cmd_def jr_cmd_attach;
extern const struct jr_cmd_def jr_cmd_diff;
extern const struct jr_cmd_def jr_cmd_audit;
extern const struct jr_cmd_def jr_cmd_advise;
extern const struct jr_cmd_def jr_cmd_serve;
extern const struct jr_cmd_def jr_cmd_survey;

#endif /* JR_CMDS_H */
