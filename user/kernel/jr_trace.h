/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_trace.h - stream jitmod's events from a tracefs instance of our own.
 */
#ifndef JR_TRACE_H
#define JR_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "common/jr_err.h"

#include "core/jr_rec.h"

struct tracefs_instance;
struct tep_handle;
struct tep_event;

struct jr_stream {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tep_event *ev[JR_NR_TYPES];
	jr_sink_fn sink;
	void *ctx;
	int nr_cpus;
	uint64_t *lost_seen; /* per CPU, from per_cpu/cpuN/stats */
	int sink_err;
	char name[64];
};

int jr_stream_open(struct jr_stream *s, size_t buffer_kb, jr_sink_fn sink,
		   void *ctx, struct jr_err *e);
int jr_stream_drain(struct jr_stream *s);
void jr_stream_close(struct jr_stream *s);
int jr_remove_stale_instances(void);

#endif /* JR_TRACE_H */
