/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_out.h - the report's options and files, as every kernel-side
 * subcommand writes them.
 */
#ifndef JR_OUT_H
#define JR_OUT_H

#include <stdio.h>

#include "cmd/jr_opts.h"
#include "core/jr_model.h"
#include "core/jr_rec.h"
#include "core/jr_report.h"

struct jr_report_opts jr_report_opts_of(const struct jr_opts *o);
void jr_model_of(struct jr_model *m, const struct jr_opts *o);
FILE *jr_json_open(const char *path);
void jr_json_close(FILE *f, const char *path, int write_err);
void jr_report_files(struct jr_model *m, const struct jr_sysinfo *sys,
		     const struct jr_opts *o);

#endif /* JR_OUT_H */
