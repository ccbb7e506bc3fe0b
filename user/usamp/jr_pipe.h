/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_pipe.h - the three-thread pipeline: a producer publishes TSC-stamped
 * messages onto a single-producer, two-consumer ring; an accumulator and a
 * journaller consume every message and time its transit.
 */
#ifndef JR_PIPE_H
#define JR_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/jr_err.h"

#include "core/jr_hist.h"

#include "usamp/jr_journal.h"

/*
 * How a pipeline thread waits; JR_WAIT_AUTO, only as asked for: spin on a
 * CPU of its own, yield on one it shares.
 */
enum jr_wait {
	JR_WAIT_SPIN,
	JR_WAIT_YIELD,
	JR_WAIT_SLEEP,
	JR_WAIT_NR,
	JR_WAIT_AUTO = JR_WAIT_NR,
};

extern const char *const jr_wait_names[JR_WAIT_NR];

enum jr_pipe_thread { JR_PRODUCER, JR_ACCUMULATOR, JR_JOURNALLER, JR_NR_PT };

extern const char *const jr_pipe_thread_names[JR_NR_PT];

/* The four histograms, in report order. */
enum jr_pipe_hist {
	JR_PH_ACC_TRANSIT,
	JR_PH_ACC_INTER,
	JR_PH_JRN_TRANSIT,
	JR_PH_JRN_INTER,
	JR_PH_NR,
};

extern const char *const jr_pipe_hist_names[JR_PH_NR];

/*
 * A slow message (a transit over JR_PIPE_SLOW_NS), by the step that held
 * it longest: stamped but not yet seen published at the consumer's last
 * empty poll; published but not yet seen, the consumer's poll (up to its
 * stamp of the batch's first message); seen but not yet stamped, the
 * consumer's work on the messages before it in the batch.
 */
#define JR_PIPE_SLOW_NS 10000
enum jr_pipe_step { JR_STEP_PUBLISH, JR_STEP_POLL, JR_STEP_STAMP, JR_STEP_NR };

extern const char *const jr_pipe_step_names[JR_STEP_NR];

struct jr_pipe_cfg {
	int cpu[JR_NR_PT];
	bool shared; /* two threads on one CPU */
	enum jr_wait wait[JR_NR_PT];
	int fifo_prio;
	uint64_t duration_ns;
	uint64_t warmup_ns;
	uint64_t interval_ns; /* between publications */
	uint32_t ring_size; /* power of two */
	const char *input; /* message file; NULL: a generated one */
	const char *journal; /* journal path */
	uint64_t journal_bytes; /* its size at most, header included */
	uint64_t tsc_khz;
	const struct jr_stop *stop;
};

struct jr_pipe_result {
	uint64_t produced, warmup;
	uint64_t consumed[2]; /* accumulator, journaller */
	uint64_t checksum_produced, checksum[2];
	uint64_t journal_entries, journal_kept, journal_capacity;
	bool journal_ok; /* the kept entries agree with what was sent */
	uint64_t input_messages;
	bool verified;
	char verdict[160];
	struct jr_hist hist[JR_PH_NR];
	uint64_t slow[2][JR_STEP_NR]; /* accumulator, journaller */
	double elapsed_s;
};

int jr_wait_parse(const char *arg, enum jr_wait *wait);
const char *jr_wait_desc(const struct jr_pipe_cfg *cfg, char *buf, size_t len);
int jr_pipe_place(const unsigned char *cpus, const enum jr_wait *wait,
		  struct jr_pipe_cfg *cfg, struct jr_err *e);
int jr_pipe_run(const struct jr_pipe_cfg *cfg, struct jr_pipe_result *res,
		struct jr_err *e);
void jr_pipe_free(struct jr_pipe_result *res);
enum jr_pipe_step jr_pipe_step(uint64_t stamp, uint64_t empty, uint64_t seen,
			       uint64_t t);

#endif /* JR_PIPE_H */
