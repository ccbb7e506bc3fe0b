/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_rank.h - one MPI rank's life in a survey: start together, compare
 * clocks, measure, send the report to rank 0 or (rank 0) take every
 * rank's, agree on the verdict, finalize.  What is measured and what
 * becomes of the reports is the caller's, through struct jr_rank_ops.
 */
#ifndef JR_RANK_H
#define JR_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/jr_err.h"
#include "mpi/jr_mpi.h"

struct jr_rank {
	const struct jr_mpi_ops *mpi;
	int rank, size;
	char host[64];
	double timeout_s; /* for each barrier, the clocks and the reports */
	int64_t *off_ns; /* rank 0: each rank's clock minus its own */
	int64_t *rtt_ns; /* rank 0: the round trip that was measured in */
	bool *got; /* rank 0: by rank, a report came */
	int unread; /* rank 0: reports left unread, so no clean finalize */
};

struct jr_rank_ops {
	/* every rank: its measurement, then its report (malloc'd) and *len */
	char *(*measure)(void *ctx, size_t *len);
	/* rank 0: a rank's report, as it comes (its own first) */
	void (*take)(void *ctx, int rank, const void *buf, size_t len);
	/* rank 0: a rank of which no report can be read, and why */
	void (*missing)(void *ctx, int rank, const char *why);
	/* rank 0, all reports in or the time up: 0 or an exit code */
	int (*end)(void *ctx, const struct jr_rank *rk);
};

int jr_rank_init(struct jr_rank *rk, double timeout_s, struct jr_err *e);
int jr_rank_run(struct jr_rank *rk, const struct jr_rank_ops *ops, void *ctx);
void jr_rank_free(struct jr_rank *rk);

#endif /* JR_RANK_H */
