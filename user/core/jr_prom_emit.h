/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_prom_emit.h - what core/jr_prom_out.c says, and each format's way of
 * writing it: the text formats (jr_prom_text.c) and protobuf
 * (jr_prom_pb.c).  Private to core/jr_prom*.c.
 */
#ifndef JR_PROM_EMIT_H
#define JR_PROM_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/jr_buf.h"
#include "core/jr_hist.h"

enum jr_ptype { JR_P_COUNTER, JR_P_GAUGE, JR_P_HIST, JR_P_INFO };

struct jr_plabel {
	const char *name;
	const char *value;
};

/* a sample's value: a count, a time in ns (shown in s), or a ratio */
struct jr_pval {
	enum { JR_PV_COUNT, JR_PV_NS, JR_PV_REAL } kind;
	uint64_t n;
	double real;
};

#define JR_PV_N(x) ((struct jr_pval){ .kind = JR_PV_COUNT, .n = (x) })
#define JR_PV_NSEC(x) ((struct jr_pval){ .kind = JR_PV_NS, .n = (x) })
#define JR_PV_R(x) ((struct jr_pval){ .kind = JR_PV_REAL, .real = (x) })

struct jr_emit;

struct jr_emit_ops {
	/* a family: name without "_total" or "_info" */
	void (*family)(struct jr_emit *e, const char *name, enum jr_ptype t,
		       const char *unit, const char *help);
	void (*sample)(struct jr_emit *e, const struct jr_plabel *l, int nl,
		       struct jr_pval v);
	void (*hist)(struct jr_emit *e, const struct jr_plabel *l, int nl,
		     const struct jr_hist *h);
	void (*end)(struct jr_emit *e);
};

struct jr_emit {
	const struct jr_emit_ops *ops;
	struct jr_buf *b;
	bool om; /* text: OpenMetrics */
	const char *name; /* the family being written */
	enum jr_ptype type;
	struct jr_buf lvl[4]; /* protobuf: nested messages being built */
};

extern const struct jr_emit_ops jr_emit_text;
extern const struct jr_emit_ops jr_emit_pb;

/* the classic buckets, shared by the formats */
#define JR_PROM_NR_LE 19
extern const uint64_t jr_prom_le_ns[JR_PROM_NR_LE];
extern const char *const jr_prom_le[JR_PROM_NR_LE];
void jr_prom_buckets(const struct jr_hist *h, uint64_t *below);

#endif /* JR_PROM_EMIT_H */
