/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_rec.h - jitread's decoded event record and its recording file format.
 *
 * A recording is a 1024-byte header (struct jr_file_hdr) followed by
 * fixed-size little-endian records (struct jr_rec).  Live streaming and
 * --replay feed the same records to the same analysis.
 */
#ifndef JR_REC_H
#define JR_REC_H

#include <stdint.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "common/jr_parse.h"

#define JR_MAGIC "JITREC\0\1"
#define JR_FILE_VERSION 3 /* 3 adds DETAIL records */
#define JR_REC_V1_SIZE 104 /* version 1: v[5], read and widened */
#define JR_NAME_LEN 40

enum jr_type {
	JR_GAP,
	JR_IRQ,
	JR_SOFTIRQ,
	JR_NMI,
	JR_THREAD,
	JR_SUMMARY,
	JR_STOP,
	JR_LOST, /* v[0] events lost on cpu, as the ring buffer said */
	JR_DETAIL,
	JR_NR_TYPES,
};

/*
 * struct jr_rec - one event.  Per type:
 *   GAP      v0 duration_ns, v1 hw_ns, v2 steal_ns, v3-v6 irq, softirq,
 *            nmi and thread net_ns inside it; cls class; id smi_count
 *   IRQ      v0 duration_ns; id irq (-1: vector); id2 vector; name
 *   SOFTIRQ  v0 duration_ns; cls vector number
 *   NMI      v0 duration_ns; name handler symbol
 *   THREAD   v0 duration_ns; id pid; name comm
 *   SUMMARY  v0 runtime_ns, v1 noise_ns, v2 max_gap_ns, v3 iterations,
 *            v4 resolution_ps, v5 self_ns (jitmod's own slow path),
 *            v6 anomalies; id anomaly kinds (BIT(enum jit_anomaly))
 *   STOP     v0 value_ns, v1 limit_ns; cls reason
 *   LOST     v0 count
 *   DETAIL   v0 wall_ns, v1 pid; cls kind (enum jit_detail); id dep
 *            (TICK_DEP_MASK_*); id2 its window's class; name function
 */
struct jr_rec {
	uint64_t ts_ns;
	uint64_t v[7];
	uint32_t cpu;
	uint16_t type;
	int16_t cls;
	int32_t id;
	int32_t id2;
	char name[JR_NAME_LEN];
};

_Static_assert(sizeof(struct jr_rec) == 120, "jr_rec is an on-disk format");

/* struct jr_sysinfo - what the report's system block says. */
struct jr_sysinfo {
	char kernel[65];
	char cpu_model[96];
	char cmdline[480];
	char params[256]; /* jitmod's parameters, "k=v k=v" */
	char argv[82]; /* jitread's own command line */
	uint64_t tsc_khz;
};

struct jr_file_hdr {
	char magic[8];
	uint32_t version;
	uint32_t rec_size;
	struct jr_sysinfo sys;
	char pad[1024 - 16 - sizeof(struct jr_sysinfo)];
};

_Static_assert(sizeof(struct jr_file_hdr) == 1024, "header is 1024 bytes");

struct jr_reader {
	FILE *f;
	const char *path;
	uint64_t index; /* records read so far */
	size_t rec_size; /* on disk: this version's or JR_REC_V1_SIZE */
	struct jr_file_hdr hdr;
};

/* jr_sink_fn - where decoded or synthesised records go. */
typedef int (*jr_sink_fn)(void *ctx, const struct jr_rec *r);

int jr_writer_open(FILE **f, const char *path, const struct jr_sysinfo *sys,
		   struct jr_err *e);
int jr_write(FILE *f, const struct jr_rec *r);
int jr_reader_open(struct jr_reader *rd, const char *path, struct jr_err *e);
int jr_reader_attach(struct jr_reader *rd, FILE *f, const char *name,
		     struct jr_err *e);
int jr_read(struct jr_reader *rd, struct jr_rec *r, struct jr_err *e);
int jr_rec_check(const struct jr_rec *r, struct jr_err *e);

#endif /* JR_REC_H */
