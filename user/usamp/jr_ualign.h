/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_ualign.h - the reader's side of one user sampler: line its gaps up
 * with the BPF records while it runs, a clock pair at a time, so that
 * memory stays that of a poll or two whatever the run's length.
 */
#ifndef JR_UALIGN_H
#define JR_UALIGN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "core/jr_rec.h"
#include "common/jr_tsc.h"
#include "usamp/bpf/jr_ubpf_rec.h"
#include "usamp/jr_usamp.h"

/* records waiting for their gaps, per CPU, at most (a storm past it drops) */
#define JR_UQ_MAX (1u << 18)

struct jr_ualign {
	struct jr_usamp *u;
	struct jr_tsc_pair first, seg[2]; /* seg: the last two pairs read */
	uint64_t pairs; /* pairs read */
	struct jr_tsc_map map; /* the line through seg[0] and seg[1] */
	int64_t w0, w1; /* the sampling window, mono ns; w1 once done */
	struct jr_ubpf_rec *q; /* records not yet final, by start_ns */
	size_t head, nr, cap;
	uint64_t q_dropped; /* records past JR_UQ_MAX */
	uint64_t gaps, classified, records; /* written to the sink */
	uint64_t self_ns; /* jitread's own threads' time on the CPU */
	double err_ns; /* the widest segment's bound */
};

/* struct jr_ualign_snap - what one sampler had published at one moment. */
struct jr_ualign_snap {
	uint64_t pairs;
	int done;
};

void jr_ualign_init(struct jr_ualign *a, struct jr_usamp *u);
void jr_ualign_free(struct jr_ualign *a);
void jr_ualign_snap(const struct jr_ualign *a, struct jr_ualign_snap *s);
int jr_ualign_add(struct jr_ualign *a, const struct jr_ubpf_rec *r);
int jr_ualign_step(struct jr_ualign *a, const struct jr_ualign_snap *s,
		   jr_sink_fn sink, void *ctx);
void jr_ualign_phase_map(const struct jr_ualign *a, struct jr_tsc_map *m);

#endif /* JR_UALIGN_H */
