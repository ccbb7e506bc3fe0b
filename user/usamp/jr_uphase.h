/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_uphase.h - one userspace sampling phase: start the samplers, watch them
 * with BPF, then turn their gaps and the BPF records into the same records
 * the kernel side produces, so one model, one report and one JSON serve
 * both.
 */
#ifndef JR_USER_H
#define JR_USER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/jr_err.h"

#include "core/jr_hist.h"
#include "core/jr_rec.h"
#include "common/jr_tsc.h"
#include "usamp/jr_ubpf.h"
#include "usamp/jr_usamp.h"

struct jr_user_cfg {
	const unsigned char *cpus;
	uint64_t threshold_ns;
	enum jr_work work;
	int fifo_prio;
	uint64_t gaps_cap; /* per CPU: gaps waiting to be classified */
	uint64_t tsc_khz;
	const struct jr_stop *stop;
	const char *ready_file; /* created once the samplers go */
	uint64_t warmup_ns; /* spun, unrecorded, before the phase */
};

/* struct jr_user_info - what the report says about the user side. */
struct jr_user_info {
	uint64_t tsc_khz;
	enum jr_work work;
	struct jr_hist work_hist;
	uint64_t phases;
	uint64_t warmup_ns; /* spun before each phase, unrecorded */
	uint64_t iterations;
	uint64_t runtime_ns;
	uint64_t min_iter_ps;
	uint64_t gaps, classified;
	uint64_t gaps_dropped;
	uint64_t bpf_records, bpf_drops;
	uint64_t bpf_seen; /* records read, inside a window or not */
	uint64_t blind_ns; /* the samplers' own clock pairs, not sampled */
	unsigned int log_resident_pct; /* the lowest over the samplers */
	double align_err_ns; /* the largest bound over the phases */
	double ns_per_cyc;
	bool bpf_ok;
	char bpf_why[200];
	char bpf_details[40]; /* what BPF names inside windows, as jitmod's */
	struct jr_ucount *count; /* by CPU, summed over phases; or NULL */
};

void jr_user_info_init(struct jr_user_info *in, enum jr_work work);
const struct jr_ucount *jr_user_count(const struct jr_user_info *in, int cpu);
int jr_user_phase(const struct jr_user_cfg *cfg, struct jr_ubpf *b,
		  uint64_t duration_ns, jr_sink_fn sink, void *ctx,
		  struct jr_user_info *in, struct jr_err *e);

#endif /* JR_USER_H */
