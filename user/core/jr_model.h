/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_model.h - what jitread learns from a stream of records: per CPU, one
 * histogram per class, a linear bucket table, the noise sources and the
 * period summaries.
 */
#ifndef JR_MODEL_H
#define JR_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "jitmod_abi.h"
#include "core/jr_detail.h"
#include "core/jr_hist.h"
#include "core/jr_rec.h"

/* the histogram classes: every gap, then jitmod's noise classes */
enum jr_hclass {
	JR_H_GAP,
	JR_H_IRQ = 1 + JIT_NOISE_IRQ,
	JR_H_SOFTIRQ = 1 + JIT_NOISE_SOFTIRQ,
	JR_H_NMI = 1 + JIT_NOISE_NMI,
	JR_H_THREAD = 1 + JIT_NOISE_THREAD,
	JR_H_SMI = 1 + JIT_NOISE_HW_SMI,
	JR_H_STEAL = 1 + JIT_NOISE_HW_STEAL,
	JR_H_UNKNOWN = 1 + JIT_NOISE_HW_UNKNOWN,
	JR_H_NR = 1 + JIT_NOISE_NR,
};

const char *jr_hclass_name(int h);
int jr_hclass_of(const char *name);
extern const char *const jr_softirq_names[JIT_SOFTIRQ_NR];

/* struct jr_source - one named cause of noise on one CPU. */
struct jr_source {
	char key[64]; /* "irq:local_timer", "thread:comm[pid]" */
	int hcls;
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t last_ns; /* the last event's time */
	struct jr_ia *ia; /* inter-arrival times, from the second event */
	struct jr_src_detail *det; /* what ran inside, or NULL */
};

/* struct jr_tl_gap - one gap on the timeline the plots draw. */
struct jr_tl_gap {
	uint64_t ts_ns;
	uint64_t dur_ns;
	int cls; /* enum jr_hclass */
};

#define JR_TL_MAX 20000 /* gaps kept per CPU for the timeline */
#define JR_MAX_SOURCES 4096 /* sources per CPU before threads fold by comm */
/* past this, any new source goes to its class's CLASS:other[*] */
#define JR_MAX_SOURCES_NAMED (2 * JR_MAX_SOURCES)
/* so a CPU's report holds at most this many sources */
#define JR_MAX_SOURCES_ALL (JR_MAX_SOURCES_NAMED + JR_H_NR)

struct jr_cpu {
	bool seen;
	struct jr_tl_gap *tl;
	uint32_t nr_tl;
	uint64_t tl_dropped;
	struct jr_hist hist[JR_H_NR];
	uint64_t *lin[JR_H_NR]; /* entries + 1 (over) linear buckets */
	struct jr_source *src;
	int nr_src, cap_src;
	int *src_hash; /* open addressing into src, -1 empty */
	/* events past JR_MAX_SOURCES(_NAMED), filed under a folded name */
	uint64_t src_folded;
	int hash_cap;
	uint64_t periods;
	uint64_t runtime_ns;
	uint64_t noise_ns;
	uint64_t max_gap_ns;
	uint64_t iterations;
	uint64_t resolution_ps; /* smallest seen; 0 = none */
	uint64_t self_ns; /* jitmod's own slow path, not noise */
	uint64_t anomalies; /* impossible states jitmod counted */
	uint64_t held; /* interrupts irqs_off periods held to their end */
	uint32_t anomaly_mask; /* their kinds, BIT(enum jit_anomaly) */
	uint64_t lost;
	uint64_t stops;
	uint64_t events;
	struct jr_pend *pend; /* details waiting for their window */
	/*
	 * The gaps by the class jitmod filed them under, gross, counted
	 * once a period summary covers them: cls_ns[] then sums to noise_ns
	 * (but for lost events), as runtime_ns and noise_ns move together.
	 */
	uint64_t cls_ns[JR_H_NR], cls_gaps[JR_H_NR];
	uint64_t open_ns[JR_H_NR], open_gaps[JR_H_NR]; /* not yet covered */
	/*
	 * A summary's noise beyond its gaps that were read: gaps from before
	 * the reader started, or lost.
	 */
	uint64_t unseen_ns;
	/*
	 * The same covered gaps split by what explains them: for irq to
	 * thread, their events' net time inside the gaps; for hw:*, those
	 * gaps whole; at JR_H_GAP, the unexplained rest.  net_ns[] sums to
	 * cls_ns[].  outside_ns[]: the net time of irq to thread events that
	 * the sources count but no gap holds (too short to leave a gap over
	 * the threshold), per summary, never below zero.
	 */
	uint64_t net_ns[JR_H_NR], net_open[JR_H_NR];
	uint64_t evt_open[JR_H_NR], outside_ns[JR_H_NR];
};

struct jr_model {
	int precision;
	uint64_t bucket_ns;
	int entries;
	int nr_cpus;
	struct jr_cpu *cpu; /* nr_cpus entries, grown on demand */
	uint64_t events;
	uint64_t stops;
	uint64_t t0_ns; /* earliest gap timestamp; timeline origin */
	struct jr_rec last_stop;
};

int jr_model_init(struct jr_model *m, int precision, uint64_t bucket_ns,
		  int entries);
void jr_model_free(struct jr_model *m);
int jr_model_add(struct jr_model *m, const struct jr_rec *r);
int jr_source_key(const struct jr_rec *r, char *buf, size_t len, int *hcls);
void jr_model_finish(struct jr_model *m);
double jr_cpu_avail_pct(const struct jr_cpu *c);
/* room for every jr_anomaly_names[] entry, comma-separated */
#define JR_ANOM_LEN 32
const char *jr_anomaly_kinds(uint32_t mask, char *buf, size_t len);
/* room for jr_cpu_avail_str's "100.0000%" */
#define JR_AVAIL_LEN 24
const char *jr_cpu_avail_str(const struct jr_cpu *c, char *buf, size_t len);

#endif /* JR_MODEL_H */
