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
struct tracefs_cpu;
struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;
struct kbuffer;

#define JR_MAX_FIELDS 10 /* of one jitmod event that jitread reads */

struct jr_stream {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct tep_event *ev[JR_NR_TYPES];
	struct tep_format_field *fld[JR_NR_TYPES][JR_MAX_FIELDS];
	struct tep_format_field *type_fld; /* common_type: the event's id */
	jr_sink_fn sink;
	void *ctx;
	int sink_err;
	char name[64];
	/* the reader (jr_trace_read.c) */
	int nr_cpus;
	struct tracefs_cpu **tcpu; /* per CPU, open once jitmod samples it */
	uint64_t *lost_seen; /* per CPU, from per_cpu/cpuN/stats */
	struct kbuffer *kbuf;
	void *page;
	int page_size;
	uint64_t next_check_ns; /* when to look at cpus and losses again */
	uint64_t bytes; /* of event data read so far */
	uint64_t bytes_waited; /* bytes at the last jr_stream_wait() */
	uint64_t waited_ns; /* when the last wait ended */
	uint64_t rate; /* bytes per second, as jr_stream_wait() judges it */
	uint64_t buffer_bytes; /* of one CPU's ring buffer */
};

int jr_stream_open(struct jr_stream *s, size_t buffer_kb, jr_sink_fn sink,
		   void *ctx, struct jr_err *e);
void jr_stream_close(struct jr_stream *s);

/* jr_trace_decode.c */
int jr_decoder_init(struct jr_stream *s, struct jr_err *e);
int jr_stream_record(struct jr_stream *s, struct tep_record *rec, int cpu);

/* jr_trace_read.c */
int jr_reader_init(struct jr_stream *s, struct jr_err *e);
void jr_reader_free(struct jr_stream *s);
int jr_stream_drain(struct jr_stream *s);
int jr_stream_finish(struct jr_stream *s);
void jr_stream_wait(struct jr_stream *s);
int jr_remove_stale_instances(void);

#endif /* JR_TRACE_H */
