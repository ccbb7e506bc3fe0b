/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_report.h - jitread's outputs: text tables, JSON, CSV and .hgrm.
 */
#ifndef JR_REPORT_H
#define JR_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "core/jr_model.h"
#include "core/jr_rec.h"

#define JR_JSON_VERSION 2

struct jr_report_opts {
	const char *unit; /* "ns" or "us" */
	double div; /* ns per unit */
	bool no_header;
	bool with_zeros;
	bool no_summary; /* rtla's: no count/min/avg/max rows, no summary */
	bool no_index; /* rtla's: no index column in the bucket table */
	const unsigned char *cpu_set; /* NULL: every CPU seen */
	const char *title; /* a header line naming the side, or NULL */
	const char *details; /* what this side named; NULL: jitmod's */
	bool no_gaps; /* a side without a sampler (attach): no gap table */
};

#define JR_NR_PCTS 7 /* percentiles in every table, JSON and CSV */
extern const double jr_pcts[JR_NR_PCTS];

/* An output directory, opened and checked by jr_safe_dir(). */
struct jr_out_dir {
	int fd; /* -1: not asked for */
	const char *path;
};

const char *jr_report_details(const struct jr_sysinfo *sys,
			      const struct jr_report_opts *o, char *buf,
			      size_t len);
void jr_report_text(FILE *out, const struct jr_model *m,
		    const struct jr_sysinfo *sys,
		    const struct jr_report_opts *o);
int jr_report_json(FILE *out, const struct jr_model *m,
		   const struct jr_sysinfo *sys,
		   const struct jr_report_opts *o);
int jr_report_csv(const struct jr_out_dir *d, const struct jr_model *m,
		  const struct jr_report_opts *o, struct jr_err *e);
int jr_report_hgrm(const struct jr_out_dir *d, const struct jr_model *m,
		   const struct jr_report_opts *o, struct jr_err *e);
void jr_json_str(FILE *out, const char *s);
void jr_pct_header(FILE *out, const char *c1, const char *c2, int w2);
void jr_dur_col(FILE *out, int width, double ns, double div);
void jr_pct_row(FILE *out, const struct jr_report_opts *o, const char *label,
		const char *name, int w2, const struct jr_hist *hs);
void jr_json_hist(FILE *out, const struct jr_hist *h);
int jr_json_side(FILE *out, const struct jr_model *m, const char *side,
		 const struct jr_report_opts *o);
int jr_report_json_doc(FILE *out, const char *mode, const struct jr_model *m,
		       const char *side, const struct jr_sysinfo *sys,
		       const struct jr_report_opts *o,
		       int (*extra)(FILE *out, void *ctx), void *ctx);
int jr_merge_cpus(const struct jr_model *m, const struct jr_report_opts *o,
		  int h, struct jr_hist *all);
bool jr_cpu_wanted(const struct jr_model *m, const struct jr_report_opts *o,
		   int cpu);

#endif /* JR_REPORT_H */
