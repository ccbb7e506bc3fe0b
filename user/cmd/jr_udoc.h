/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_udoc.h - the user side's phases and its report, shared by jitread
 * user and jitread compare.
 */
#ifndef JR_UDOC_H
#define JR_UDOC_H

#include <stdio.h>

#include "cmd/jr_opts.h"
#include "cmd/jr_out.h"
#include "core/jr_model.h"
#include "core/jr_rec.h"
#include "core/jr_report.h"
#include "usamp/jr_pipe.h"
#include "usamp/jr_uphase.h"

/*
 * The user side's report: what jitread user and jitread compare measured
 * beyond the models' tables (the sampler's own figures, BPF's state, the
 * pipeline), and its writers, text and JSON.
 */
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

/* jr_udoc_out.c */
void jr_ureport_text(FILE *out, const struct jr_ureport *r);
int jr_ureport_json(FILE *out, const struct jr_ureport *r);

/* jr_udoc_cmp.c */
void jr_compare_text(FILE *out, const struct jr_ureport *r);
int jr_compare_json(FILE *out, const struct jr_ureport *r);

struct jr_udoc {
	const struct jr_opts *o;
	struct jr_ureport r;
	struct jr_outputs outs; /* opened by jr_udoc_init */
	int fail; /* a phase failed: the exit code; why says why */
	struct jr_err why;
};

int jr_model_sink(void *ctx, const struct jr_rec *r);
void jr_check_online(const struct jr_opts *o);
void jr_udoc_init(struct jr_udoc *d, struct jr_opts *o);
void jr_prepare(struct jr_udoc *d, struct jr_ubpf *b, struct jr_sysinfo *sys);
void jr_sample_phase(struct jr_udoc *d, struct jr_ubpf *b, uint64_t ns);
void jr_pipe_phase(struct jr_udoc *d, uint64_t ns);
int jr_udoc_finish(struct jr_udoc *d, const struct jr_sysinfo *sys);

#endif /* JR_UDOC_H */
