/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_ureport.h - the user side's report: what jitread user and jitread
 * compare measured beyond the models' tables (the sampler's own figures,
 * BPF's state, the pipeline), and its writers, text and JSON.
 */
#ifndef JR_UREPORT_H
#define JR_UREPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/jr_model.h"
#include "core/jr_report.h"
#include "usamp/jr_pipe.h"
#include "usamp/jr_uphase.h"

struct jr_ureport {
	struct jr_report_opts ro;
	struct jr_report_opts uro; /* the user side's: ro, BPF's details */
	struct jr_model *kernel; /* compare only */
	struct jr_model *user;
	struct jr_user_info info;
	uint64_t threshold_ns; /* the samplers' */
	uint64_t phase_ns; /* one round's sampling time (compare) */
	uint64_t rounds_done;
	bool pipe_ran;
	struct jr_pipe_cfg pcfg;
	struct jr_pipe_result pipe; /* merged over rounds */
	uint64_t pipe_rounds, pipe_verified_rounds;
	char pipe_verdict[160];
};

/* jr_ureport_out.c */
void jr_ureport_text(FILE *out, const struct jr_ureport *r);
int jr_ureport_json(FILE *out, const struct jr_ureport *r);

void jr_ucount_text(FILE *out, const struct jr_ucount *c);
void jr_ucount_json(FILE *out, const struct jr_ucount *c);

/* jr_ureport_cmp.c */
void jr_compare_text(FILE *out, const struct jr_ureport *r);
int jr_compare_json(FILE *out, const struct jr_ureport *r);

/* struct jr_why - why one CPU's floors differ (jr_ureport_why.c) */
#define JR_WHY_SOURCES 5 /* each side's top sources compared */
#define JR_WHY_ROWS (JR_H_NR + 1 + 2 * JR_WHY_SOURCES)

struct jr_why_row {
	char what[64]; /* a class, "unexplained", "unseen" or a source */
	bool source;
	double ns_per_s[2]; /* kernel, user: per second of sampling */
};

struct jr_why {
	double noise_ns_per_s[2];
	int nr;
	struct jr_why_row row[JR_WHY_ROWS]; /* classes, then sources */
	const struct jr_ucount *uc; /* the user thread's own, or NULL */
};

void jr_why_of(struct jr_why *w, const struct jr_cpu *k, const struct jr_cpu *u,
	       const struct jr_ucount *uc);
void jr_why_text(FILE *out, const struct jr_report_opts *o, int cpu,
		 const struct jr_why *w);
void jr_why_json(FILE *out, const struct jr_why *w);

#endif /* JR_UREPORT_H */
