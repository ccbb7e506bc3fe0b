// SPDX-License-Identifier: GPL-2.0
/*
 * jr_out.c - the report's options and files, as every kernel-side
 * subcommand writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/jr_out.h"

struct jr_report_opts jr_report_opts_of(const struct jr_opts *o)
{
	struct jr_report_opts ro = {
		.unit = o->out.unit,
		.div = o->out.div,
		.no_header = o->out.no_header,
		.with_zeros = o->out.with_zeros,
		.cpu_set = o->have_cpus ? o->cpus : NULL,
	};

	return ro;
}

/* jr_model_of - an empty model with the histograms -b, -E and
 * --precision ask for. */
void jr_model_of(struct jr_model *m, const struct jr_opts *o)
{
	jr_model_init(m, o->out.precision, o->out.bucket_ns, o->out.entries);
}

/* jr_json_open - --json's file, or stdout for "-"; dies if it cannot. */
FILE *jr_json_open(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		jr_die(JR_EXIT_RUN, "%s: %s", path, strerror(errno));
	return f;
}

/* jr_json_close - close what jr_json_open gave; dies on a failed write. */
void jr_json_close(FILE *f, const char *path, int write_err)
{
	if ((f != stdout && fclose(f)) || write_err)
		jr_die(JR_EXIT_RUN, "%s: write failed", path);
}

/* jr_report_files - --json, --csv and --hgrm; dies on a failed write. */
void jr_report_files(struct jr_model *m, const struct jr_sysinfo *sys,
		     const struct jr_opts *o)
{
	struct jr_report_opts ro = jr_report_opts_of(o);
	const struct jr_out_opts *out = &o->out;
	FILE *f;

	if (out->json) {
		f = jr_json_open(out->json);
		jr_json_close(f, out->json, jr_report_json(f, m, sys, &ro));
	}
	if (out->csv && jr_report_csv(out->csv, m, &ro))
		jr_die(JR_EXIT_RUN, "%s: %s", out->csv, strerror(errno));
	if (out->hgrm && jr_report_hgrm(out->hgrm, m, &ro))
		jr_die(JR_EXIT_RUN, "%s: %s", out->hgrm, strerror(errno));
}
