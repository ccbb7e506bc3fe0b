/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_fwq.h - the fixed-work-quantum workload of jitread survey, in the
 * manner of psnap and FWQ: a quantum of work calibrated to a length,
 * timed again and again, with a barrier across the ranks every K quanta.
 */
#ifndef JR_FWQ_H
#define JR_FWQ_H

#include <stdint.h>

#include "core/jr_model.h"

/* wait at a barrier; 0, or nonzero to stop waiting at them */
typedef int (*jr_fwq_barrier_fn)(void *ctx);

struct jr_fwq {
	uint64_t quantum_ns; /* asked for */
	uint64_t iters; /* work units in one quantum, calibrated */
	uint64_t every; /* quanta between barriers */
	uint64_t quanta;
	uint64_t *win_ns; /* each window's work time */
	uint64_t nr_win;
	uint64_t min_ns; /* the shortest quantum */
};

int jr_fwq_run(struct jr_fwq *f, uint64_t duration_ns, int cpu,
	       jr_fwq_barrier_fn barrier, void *ctx, uint64_t threshold_ns,
	       struct jr_model *m);
void jr_fwq_free(struct jr_fwq *f);

#endif /* JR_FWQ_H */
