/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_rdoc.h - a JSON report of jitread hist or report, read back (for
 * jitread diff): per CPU the summary, each class's histogram slots and
 * the sources, and a comparison's "why".
 */
#ifndef JR_RDOC_H
#define JR_RDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "common/jr_jv.h"
#include "core/jr_model.h"

#define JR_RDOC_MAX_BYTES (512UL << 20) /* a larger file is refused */

/* struct jr_rslot - count values whose slot's highest value is value */
struct jr_rslot {
	uint64_t value;
	uint64_t count;
};

struct jr_rclass {
	uint64_t count;
	uint64_t min_ns;
	uint64_t max_ns;
	double mean_ns;
	struct jr_rslot *slots; /* ascending */
	size_t nr_slots;
};

struct jr_rsource {
	char *name;
	int hcls; /* enum jr_hclass */
	uint64_t count;
	uint64_t total_ns;
	uint64_t max_ns;
	double rate_hz; /* 0 in reports without it */
	uint64_t period_ns;
	double period_share;
	struct jr_detail_row *det; /* what ran inside */
	size_t nr_det;
};

/* struct jr_rgap - one gap of the report's timeline (its first gaps) */
struct jr_rgap {
	uint64_t ts_ns;
	uint64_t dur_ns;
	int hcls;
};

/*
 * struct jr_rwhy - a compared CPU's "why": the time each side lost per
 * second to each class and top source, and the user thread's own counts
 */
#define JR_RWHY_ROWS 64
#define JR_RWHY_NAME 64

enum jr_rwhy_count {
	JR_RW_MINFLT,
	JR_RW_MAJFLT,
	JR_RW_PREEMPTED,
	JR_RW_WAITED,
	JR_RW_MIGRATIONS,
	JR_RW_NR,
};

extern const char *const jr_rwhy_count_names[JR_RW_NR];

struct jr_rwhy_row {
	char name[JR_RWHY_NAME];
	bool source;
	double ns_per_s[2]; /* kernel, user */
};

struct jr_rwhy {
	double noise_ns_per_s[2];
	struct jr_rwhy_row row[JR_RWHY_ROWS];
	size_t nr;
	bool has_counts; /* user_only was not null */
	int64_t count[JR_RW_NR]; /* -1: not counted */
};

struct jr_rcpu {
	int cpu;
	uint64_t runtime_ns; /* 0: no summary came */
	uint64_t noise_ns;
	uint64_t max_single_ns;
	uint64_t lost_events;
	struct jr_rclass cls[JR_H_NR];
	struct jr_rsource *src;
	size_t nr_src;
	uint64_t sources_folded;
	struct jr_rgap *tl; /* in time order */
	size_t nr_tl;
	struct jr_rwhy *why; /* a comparison's, else NULL */
};

struct jr_rdoc {
	const char *path;
	char side[8]; /* "kernel", "user" or "attach": the primary side */
	char *kernel;
	char *cmdline;
	char *params; /* jitmod's, "k=v k=v"; "" for a user-side report */
	char *audit; /* the report's audit block as its JSON text, or NULL */
	uint64_t threshold_ns; /* jitmod's, or the user sampler's; 0: none */
	int precision;
	struct jr_rcpu *cpu; /* ascending by cpu */
	size_t nr_cpu;
};

int jr_rdoc_load(struct jr_rdoc *d, const char *path, struct jr_err *e);
int jr_rdoc_read(struct jr_rdoc *d, const struct jr_jdoc *j, struct jr_jv root,
		 struct jr_err *e);
int jr_rdoc_parse(struct jr_rdoc *d, const char *text, size_t len,
		  struct jr_err *e);
void jr_rdoc_free(struct jr_rdoc *d);
const struct jr_rcpu *jr_rdoc_cpu(const struct jr_rdoc *d, int cpu);

/* jr_rdoc_why.c */
int jr_rdoc_why(const struct jr_jdoc *j, struct jr_jv compare,
		struct jr_rdoc *d, struct jr_err *e);
void jr_rwhy_counts_json(FILE *out, const int64_t count[JR_RW_NR]);

#endif /* JR_RDOC_H */
