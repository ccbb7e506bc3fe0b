// SPDX-License-Identifier: GPL-2.0
/*
 * jr_rank.c - one MPI rank's life in a survey (jr_rank.h).
 *
 * Every rank meets the others at a barrier, has its clock compared with
 * rank 0's, and meets them again, so that no rank samples while another
 * is still comparing clocks.  Then each measures.  A rank other than 0
 * sends its report to rank 0; rank 0 takes every report as it comes
 * within the timeout.  With a rank gone or stopped, MPI_Finalize would
 * wait for it forever: rank 0 says whether all is well, and only then
 * does every rank finalize.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jr_rdoc.h"
#include "fleet/jr_mpi_load.h"
#include "fleet/jr_rank.h"

#define JR_TAG_REPORT 9002
#define JR_CLOCK_ROUNDS 8

/* jr_rank_init - MPI loaded and started: this rank, the size, the host */
int jr_rank_init(struct jr_rank *rk, double timeout_s, struct jr_err *e)
{
	memset(rk, 0, sizeof(*rk));
	rk->timeout_s = timeout_s;
	rk->mpi = jr_mpi_load(e);
	if (!rk->mpi)
		return -1;
	if (rk->mpi->init(&rk->rank, &rk->size, rk->host, sizeof(rk->host)))
		return jr_fail(e, -1, "MPI_Init failed (run under mpirun)");
	rk->off_ns = calloc(rk->size, sizeof(*rk->off_ns));
	rk->rtt_ns = calloc(rk->size, sizeof(*rk->rtt_ns));
	rk->got = calloc(rk->size, sizeof(*rk->got));
	if (!rk->off_ns || !rk->rtt_ns || !rk->got)
		return jr_fail(e, -1, "out of memory");
	return 0;
}

/* jr_rank_start - together, clocks compared, together again */
static void jr_rank_start(struct jr_rank *rk)
{
	const struct jr_mpi_ops *mpi = rk->mpi;

	if (mpi->barrier(rk->timeout_s))
		jr_warn("rank %d: not every rank came to the start", rk->rank);
	if (mpi->clocks(JR_CLOCK_ROUNDS, rk->timeout_s, rk->off_ns, rk->rtt_ns))
		jr_warn("rank %d: the clocks were not compared", rk->rank);
	if (mpi->barrier(rk->timeout_s))
		jr_warn("rank %d: not every rank came back from the clocks",
			rk->rank);
}

/* A report as the plugin hands it to rank 0, with rank 0's bookkeeping. */
struct jr_rank_take {
	struct jr_rank *rk;
	const struct jr_rank_ops *ops;
	void *ctx;
};

/* jr_rank_take - a rank's report, or (buf NULL) one left unread */
static void jr_rank_take(void *arg, int rank, const void *buf, size_t len)
{
	struct jr_rank_take *t = arg;
	char why[128];

	if (!buf) {
		t->rk->unread++;
		if (t->rk->got[rank]) {
			jr_warn("rank %d sent a second report; not read", rank);
			return;
		}
		snprintf(why, sizeof(why),
			 "a report of %zu bytes, above the %lu a rank writes",
			 len, JR_RDOC_MAX_BYTES);
		t->rk->got[rank] = true;
		t->ops->missing(t->ctx, rank, why);
		jr_warn("rank %d: %s; not read", rank, why);
		return;
	}
	t->rk->got[rank] = true;
	t->ops->take(t->ctx, rank, buf, len);
}

/* jr_rank_gather - rank 0: its own report (mine), then the others' */
static int jr_rank_gather(struct jr_rank *rk, const struct jr_rank_ops *ops,
			  void *ctx, char *mine, size_t len)
{
	struct jr_rank_take t = { .rk = rk, .ops = ops, .ctx = ctx };
	int r, ret;

	jr_rank_take(&t, 0, mine, len);
	free(mine);
	ret = rk->mpi->collect(JR_TAG_REPORT, rk->timeout_s, JR_RDOC_MAX_BYTES,
			       jr_rank_take, &t);
	if (ret)
		jr_warn("collecting the reports: %s", strerror(-ret));
	for (r = 0; r < rk->size; r++)
		if (!rk->got[r]) {
			ops->missing(ctx, r, "no report within --timeout");
			jr_warn("rank %d sent no report within %.0f s of the run's end",
				r, rk->timeout_s);
		}
	ret = ops->end(ctx, rk);
	rk->mpi->finalize(rk->mpi->verdict(ret == 0 && !rk->unread, 0));
	return ret;
}

/* jr_rank_send - any other rank: its report to rank 0, then the verdict */
static int jr_rank_send(struct jr_rank *rk, char *mine, size_t len)
{
	/* rank 0 collects for the timeout from its own run's end */
	double wait_s = 2 * rk->timeout_s;
	int ret;

	ret = rk->mpi->send(JR_TAG_REPORT, mine, len, wait_s);
	if (ret)
		jr_warn("rank %d: its report was not taken by rank 0 within %.0f s: %s",
			rk->rank, wait_s, strerror(-ret));
	rk->mpi->finalize(rk->mpi->verdict(0, wait_s));
	return ret ? JR_EXIT_RUN : 0;
}

/* jr_rank_run - this rank's whole life after jr_rank_init; its exit code */
int jr_rank_run(struct jr_rank *rk, const struct jr_rank_ops *ops, void *ctx)
{
	size_t len;
	char *mine;

	jr_rank_start(rk);
	mine = ops->measure(ctx, &len);
	/* from here the launcher's SIGTERM must end the rank, as it expects */
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (rk->rank)
		return jr_rank_send(rk, mine, len);
	return jr_rank_gather(rk, ops, ctx, mine, len);
}

void jr_rank_free(struct jr_rank *rk)
{
	free(rk->off_ns);
	free(rk->rtt_ns);
	free(rk->got);
}
