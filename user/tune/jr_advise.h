/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_advise.h - from a report's evidence and the machine's audit to
 * ranked, concrete mitigations.  The rules are data (jr_advise_rules.c):
 * each maps source rows or the detail rows inside them, under a condition
 * of the audit, to a fix for this system, with its caveats and how to
 * verify it.
 */
#ifndef JR_ADVISE_H
#define JR_ADVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "core/jr_rdoc.h"
#include "tune/jr_audit.h"

/* what must hold in the audit (or the report) for a rule to apply */
enum jr_adv_cond {
	JR_IF_ANY,
	JR_IF_NEVER, /* known and harmless here: claims its rows, no advice */
	JR_IF_NOT_NOHZ,
	JR_IF_NOT_NOCB,
	JR_IF_IN_WQ_MASK,
	JR_IF_IRQBALANCE,
	JR_IF_STAT_SHORT,
	JR_IF_TIMER_MIG_OFF,
	JR_IF_NMI_WATCHDOG,
	JR_IF_RT_THROTTLE_FIFO,
	JR_IF_GOVERNOR,
	JR_IF_DEEP_IDLE,
	JR_IF_SIBLING_BUSY,
	JR_IF_MOVABLE_KTHREAD,
	JR_IF_USER_TASK,
	JR_IF_NR,
};

/*
 * struct jr_rule - one mitigation.  Evidence is the source rows whose
 * name matches source (fnmatch), or, with detail set, the detail rows of
 * those that match detail.  A row is evidence for the first rule that
 * matches it and whose condition holds, unless that rule shares: then
 * later rules may use it too.  per_row gives one piece of advice per row
 * (per IRQ, per task, per function), else one per CPU.  In the texts,
 * {cpu}, {hk} (housekeeping CPUs), {hkmask} (the same as a hex mask),
 * {irq}, {pid}, {comm}, {fn} and {sib} (the busiest SMT sibling) are
 * filled in.
 */
struct jr_rule {
	const char *id;
	const char *source;
	const char *detail;
	enum jr_adv_cond cond;
	bool per_row;
	bool shares;
	const char *what;
	const char *fix;
	const char *caveat;
	const char *verify;
	const char *ref;
};

extern const struct jr_rule jr_rules[];
extern const int jr_nr_rules;

#define JR_ADV_EVIDENCE 8 /* rows named per piece of advice */
#define JR_ADV_TEXT 512

struct jr_adv_row {
	char name[128]; /* "irq:24 virtio0" or "thread:kworker/1:1[80] > work:vmstat_update" */
	uint64_t count;
	uint64_t total_ns;
};

struct jr_advice {
	const struct jr_rule *rule;
	int cpu;
	struct jr_adv_row ev[JR_ADV_EVIDENCE];
	int nr_ev; /* rows named */
	int nr_rows; /* rows of evidence in all */
	uint64_t count;
	uint64_t total_ns;
	double share; /* of the CPU's noise */
	double ppm; /* of its sampled time */
	char what[JR_ADV_TEXT];
	char fix[JR_ADV_TEXT];
	char caveat[JR_ADV_TEXT];
	char verify[JR_ADV_TEXT];
};

struct jr_adv_cpu {
	int cpu;
	uint64_t runtime_ns;
	uint64_t noise_ns;
	int nr_advice;
};

struct jr_advise {
	struct jr_advice *adv; /* ranked by expected gain */
	int nr;
	struct jr_adv_cpu *cpu; /* the report's CPUs */
	int nr_cpu;
	double min_ppm; /* evidence below this much of a CPU is not enough */
	uint64_t min_count;
	char hk[256]; /* housekeeping CPUs, a cpulist */
	char hkmask[160];
	const char *audit_from; /* "report", "file" or "this machine, now" */
};

int jr_advise_run(struct jr_advise *v, const struct jr_rdoc *d,
		  const struct jr_audit *a, struct jr_err *e);
void jr_advise_free(struct jr_advise *v);
bool jr_adv_cond_holds(enum jr_adv_cond c, const struct jr_audit *a,
		       const struct jr_audit_cpu *x, const struct jr_rdoc *d,
		       const char *comm);

/* jr_advise_out.c */
int jr_advise_text(FILE *out, const struct jr_advise *v);
int jr_advise_json(FILE *out, const struct jr_advise *v);

#endif /* JR_ADVISE_H */
