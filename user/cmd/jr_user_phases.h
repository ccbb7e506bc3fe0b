/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_user_phases.h - the user side's phases and its files, shared by jitread
 * user and jitread compare.
 */
#ifndef JR_USER_PHASES_H
#define JR_USER_PHASES_H

#include <stdio.h>

#include "cmd/jr_opts.h"
#include "cmd/jr_out.h"
#include "core/jr_model.h"
#include "core/jr_rec.h"
#include "usamp/jr_ureport.h"

struct jr_udoc {
	const struct jr_opts *o;
	struct jr_ureport r;
	struct jr_outputs outs; /* opened by jr_udoc_init */
	int fail; /* a phase failed: the exit code; why says why */
	struct jr_err why;
	const char *record; /* user --record: the sampler's records, too */
	FILE *rec;
};

int jr_model_sink(void *ctx, const struct jr_rec *r);
void jr_check_online(const struct jr_opts *o);
void jr_udoc_init(struct jr_udoc *d, struct jr_opts *o);
void jr_prepare(struct jr_udoc *d, struct jr_ubpf *b, struct jr_sysinfo *sys);
void jr_sample_phase(struct jr_udoc *d, struct jr_ubpf *b, uint64_t ns);
void jr_pipe_phase(struct jr_udoc *d, uint64_t ns);
int jr_udoc_finish(struct jr_udoc *d, const struct jr_sysinfo *sys);

#endif /* JR_USER_PHASES_H */
