/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_mpi.h - the few MPI calls jitread survey makes, in a plugin of their
 * own (jitread-mpi.so, built with mpicc): jitread itself never links the
 * MPI library, and loads the plugin only for survey.
 *
 * Every call returns 0 or a negative errno.  Nothing here waits without
 * a deadline on another rank, so a rank that died or hangs cannot hang
 * the others.  A send that misses its deadline leaves its request to MPI
 * with memory of the plugin's own that is never freed, so a late
 * transfer can only read memory that is still there.
 */
#ifndef JR_MPI_H
#define JR_MPI_H

#include <stddef.h>
#include <stdint.h>

#define JR_MPI_ABI 2
#define JR_MPI_SYMBOL "jr_mpi_ops_v2"

struct jr_mpi_ops {
	int abi; /* JR_MPI_ABI */
	int (*init)(int *rank, int *size, char *host, size_t len);
	/* every rank, or -ETIMEDOUT after timeout_s */
	int (*barrier)(double timeout_s);
	/*
	 * to rank 0, tagged, within timeout_s (-ETIMEDOUT); buf was
	 * malloc'd and is the plugin's from the call on: freed once sent,
	 * kept for MPI when the deadline passed
	 */
	int (*send)(int tag, void *buf, size_t len, double timeout_s);
	/*
	 * rank 0: a message with tag from each rank but 0, until every rank
	 * sent one or the deadline passed; each goes to take as it comes
	 * and is not kept.  A message above max_len bytes, or a rank's
	 * second, is left unread: take has buf NULL and its length.  The
	 * caller must then not finalize, which could wait for it.
	 */
	int (*collect)(int tag, double timeout_s, size_t max_len,
		       void (*take)(void *ctx, int rank, const void *buf,
				    size_t len),
		       void *ctx);
	/*
	 * rank 0 and each other rank in turn: the other's monotonic clock
	 * minus rank 0's, ns, and the round trip it was measured in, at
	 * least rounds times; only rank 0's arrays are filled
	 */
	int (*clocks)(int rounds, double timeout_s, int64_t *offset_ns,
		      int64_t *rtt_ns);
	/*
	 * rank 0 says whether every rank is well (clean); the others learn
	 * it, 0 when nothing came within timeout_s
	 */
	int (*verdict)(int clean, double timeout_s);
	/* clean: MPI_Finalize; else leave without waiting for anyone */
	void (*finalize)(int clean);
};

#endif /* JR_MPI_H */
