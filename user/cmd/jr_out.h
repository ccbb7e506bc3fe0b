/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_out.h - the report's options and files, as every kernel-side
 * subcommand writes them.
 */
#ifndef JR_OUT_H
#define JR_OUT_H

#include <stdio.h>

#include "cmd/jr_opts.h"
#include "core/jr_hlog.h"
#include "core/jr_model.h"
#include "core/jr_rec.h"
#include "core/jr_report.h"

/*
 * The files a run writes, opened (and their directories checked) before
 * it measures anything, so that a bad path costs nothing.
 */
struct jr_outputs {
	FILE *json; /* NULL: not asked for */
	struct jr_out_dir csv, hgrm;
	struct jr_hlog hlog; /* fed while the run reads; hlog.f NULL: none */
};

struct jr_report_opts jr_report_opts_of(const struct jr_opts *o);
void jr_model_of(struct jr_model *m, const struct jr_opts *o);
void jr_outputs_open(struct jr_outputs *f, const struct jr_opts *o,
		     double start_epoch_s);
int jr_json_close(struct jr_outputs *f, const char *path, int write_err);
int jr_json_audit_block(FILE *out, const unsigned char *cpus);
int jr_report_files(struct jr_outputs *f, const struct jr_model *m,
		    const struct jr_sysinfo *sys, const struct jr_opts *o,
		    bool live);
void jr_outputs_close(struct jr_outputs *f);
int jr_fail_if(const struct jr_opts *o, const struct jr_model *m,
	       enum jr_side side, bool primary, const char *side_name, int ret);

#endif /* JR_OUT_H */
