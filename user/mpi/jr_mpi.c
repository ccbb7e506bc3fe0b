// SPDX-License-Identifier: GPL-2.0
/*
 * jr_mpi.c - jitread-mpi.so: the MPI calls of jitread survey.
 *
 * Only point-to-point messages and a non-blocking barrier, each polled
 * against a deadline: a rank that died (with OpenMPI's --enable-recovery
 * the job goes on) or that hangs is left behind, not waited for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi/jr_mpi.h"

#define JR_TAG_CLOCK 9001
#define JR_TAG_VERDICT 9003
#define JR_POLL_US 1000

static int jr_rank, jr_size;

static int64_t jr_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* jr_wait - until req completes or the deadline (MPI_Wtime) passes */
static int jr_wait(MPI_Request *req, double deadline)
{
	int done = 0;

	for (;;) {
		if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (MPI_Wtime() > deadline)
			return -ETIMEDOUT;
		usleep(JR_POLL_US);
	}
}

/*
 * jr_wait_recv - jr_wait for a receive; one that times out is cancelled
 * and completed before this returns, so that no late message is ever
 * written into a buffer whose frame has gone, nor matched by the next
 * receive of the same tag.
 */
static int jr_wait_recv(MPI_Request *req, double deadline)
{
	int ret = jr_wait(req, deadline);

	if (ret) {
		MPI_Cancel(req);
		MPI_Wait(req, MPI_STATUS_IGNORE);
	}
	return ret;
}

/*
 * jr_init - MPI for a process whose sampler threads never call MPI: the
 * main thread makes every call (MPI_THREAD_FUNNELED).
 */
static int jr_init(int *rank, int *size, char *host, size_t len)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	int n = 0, provided = MPI_THREAD_SINGLE;

	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) !=
		    MPI_SUCCESS ||
	    provided < MPI_THREAD_FUNNELED)
		return -EIO;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &jr_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &jr_size);
	MPI_Get_processor_name(name, &n);
	name[n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1] =
		'\0';
	*rank = jr_rank;
	*size = jr_size;
	strncpy(host, name, len - 1);
	host[len - 1] = '\0';
	return 0;
}

/*
 * jr_isend - count items at buf (malloc'd, now this file's) to dest,
 * within the deadline.  Sent, buf is freed; else the request is left to
 * MPI and buf with it, never freed: MPI may still read it.
 */
static int jr_isend(void *buf, int count, MPI_Datatype type, int dest, int tag,
		    double deadline)
{
	MPI_Request req;
	int ret;

	if (MPI_Isend(buf, count, type, dest, tag, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS) {
		free(buf);
		return -EIO;
	}
	ret = jr_wait(&req, deadline);
	if (ret == -ETIMEDOUT)
		MPI_Request_free(&req);
	else
		free(buf);
	return ret;
}

/* jr_isend_i64 - one int64_t, as jr_isend */
static int jr_isend_i64(int64_t v, int dest, int tag, double deadline)
{
	int64_t *p = malloc(sizeof(*p));

	if (!p)
		return -ENOMEM;
	*p = v;
	return jr_isend(p, 1, MPI_INT64_T, dest, tag, deadline);
}

static int jr_barrier(double timeout_s)
{
	MPI_Request req;

	if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		return -EIO;
	return jr_wait(&req, MPI_Wtime() + timeout_s);
}

static int jr_send(int tag, void *buf, size_t len, double timeout_s)
{
	if (len > (size_t)INT32_MAX) {
		free(buf);
		return -EMSGSIZE;
	}
	return jr_isend(buf, (int)len, MPI_BYTE, 0, tag,
			MPI_Wtime() + timeout_s);
}

/*
 * jr_take1 - the matched message msg from rank r, n bytes, to take; one
 * above max_len is left matched and unread
 */
static int jr_take1(MPI_Message *msg, int r, int n, size_t max_len,
		    void (*take)(void *, int, const void *, size_t), void *ctx)
{
	void *buf;

	if ((size_t)n > max_len) {
		take(ctx, r, NULL, (size_t)n);
		return 0;
	}
	buf = malloc(n ? n : 1);
	if (!buf)
		return -ENOMEM;
	if (MPI_Mrecv(buf, n, MPI_BYTE, msg, MPI_STATUS_IGNORE) !=
	    MPI_SUCCESS) {
		free(buf);
		return -EIO;
	}
	take(ctx, r, buf, (size_t)n);
	free(buf);
	return 0;
}

static int jr_collect(int tag, double timeout_s, size_t max_len,
		      void (*take)(void *, int, const void *, size_t),
		      void *ctx)
{
	double deadline = MPI_Wtime() + timeout_s;
	unsigned char *seen = calloc(jr_size, 1);
	int left = jr_size - 1, found, n, r, ret = 0;
	MPI_Message msg;
	MPI_Status st;

	if (!seen)
		return -ENOMEM;
	while (!ret && left > 0 && MPI_Wtime() < deadline) {
		if (MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &found,
				&msg, &st) != MPI_SUCCESS) {
			ret = -EIO;
			break;
		}
		if (!found) {
			usleep(JR_POLL_US);
			continue;
		}
		r = st.MPI_SOURCE;
		MPI_Get_count(&st, MPI_BYTE, &n);
		if (seen[r]) {
			take(ctx, r, NULL, (size_t)n);
			continue;
		}
		seen[r] = 1;
		left--;
		ret = jr_take1(&msg, r, n, max_len, take, ctx);
	}
	free(seen);
	return ret;
}

/*
 * jr_clocks - Cristian's method, the round with the shortest trip kept;
 * rank 0 gives each rank timeout_s, a rank waits for its turn
 */
static int jr_clocks(int rounds, double timeout_s, int64_t *offset_ns,
		     int64_t *rtt_ns)
{
	double deadline = MPI_Wtime() + timeout_s * jr_size;
	int64_t t0, t1, theirs;
	MPI_Request req;
	int r, k, ret;

	if (jr_rank) {
		for (k = 0; k < rounds; k++) {
			if (MPI_Irecv(&theirs, 1, MPI_INT64_T, 0, JR_TAG_CLOCK,
				      MPI_COMM_WORLD, &req) != MPI_SUCCESS)
				return -EIO;
			ret = jr_wait_recv(&req, deadline);
			if (ret)
				return ret;
			ret = jr_isend_i64(jr_mono_ns(), 0, JR_TAG_CLOCK,
					   deadline);
			if (ret)
				return ret;
		}
		return 0;
	}
	offset_ns[0] = rtt_ns[0] = 0;
	for (r = 1; r < jr_size; r++) {
		deadline = MPI_Wtime() + timeout_s;
		rtt_ns[r] = -1;
		for (k = 0; k < rounds; k++) {
			t0 = jr_mono_ns();
			if (jr_isend_i64(t0, r, JR_TAG_CLOCK, deadline) ||
			    MPI_Irecv(&theirs, 1, MPI_INT64_T, r, JR_TAG_CLOCK,
				      MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
			    jr_wait_recv(&req, deadline))
				break;
			t1 = jr_mono_ns();
			if (rtt_ns[r] < 0 || t1 - t0 < rtt_ns[r]) {
				rtt_ns[r] = t1 - t0;
				offset_ns[r] = theirs - (t0 + (t1 - t0) / 2);
			}
		}
	}
	return 0;
}

/*
 * jr_verdict - rank 0 tells every other rank whether all is well; a rank
 * returns what it was told, or 0 when nothing came by the deadline
 */
static int jr_verdict(int clean, double timeout_s)
{
	double deadline = MPI_Wtime() + timeout_s;
	MPI_Request req;
	int r, v = 0, *sent;

	if (jr_rank) {
		if (MPI_Irecv(&v, 1, MPI_INT, 0, JR_TAG_VERDICT, MPI_COMM_WORLD,
			      &req) != MPI_SUCCESS ||
		    jr_wait_recv(&req, deadline))
			return 0;
		return v;
	}
	for (r = 1; r < jr_size; r++) {
		/* a small message goes out at once, or not to a lost rank */
		sent = malloc(sizeof(*sent));
		if (!sent)
			break;
		*sent = clean;
		jr_isend(sent, 1, MPI_INT, r, JR_TAG_VERDICT,
			 MPI_Wtime() + 1.0);
	}
	return clean;
}

/*
 * jr_finalize - MPI_Finalize when every rank is well; else nothing, since
 * MPI_Finalize would wait for the rank that is gone or stopped
 */
static void jr_finalize(int clean)
{
	if (clean)
		MPI_Finalize();
}

const struct jr_mpi_ops jr_mpi_ops_v2 = {
	.abi = JR_MPI_ABI,
	.init = jr_init,
	.barrier = jr_barrier,
	.send = jr_send,
	.collect = jr_collect,
	.clocks = jr_clocks,
	.verdict = jr_verdict,
	.finalize = jr_finalize,
};
