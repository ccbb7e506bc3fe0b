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
#include "tune/jr_advise_fill.h"
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
	JR_IF_VIRTUAL,
	JR_IF_BARE_METAL,
	JR_IF_PLATFORM_UNKNOWN,
	JR_IF_NR,
};

/* a need of a fix beside the kernel options: cpufreq's performance */
#define JR_NEED_PERF_GOVERNOR (1U << JR_KF_NR)

/*
 * struct jr_rule - one mitigation.  Evidence is the source rows whose
 * name matches source (fnmatch), or, with detail set, the detail rows of
 * those that match detail.  A row is evidence for the first rule that
 * matches it and whose condition holds, unless that rule shares: then
 * later rules may use it too.  per_row gives one piece of advice per row
 * (per IRQ, per task, per function), else one per CPU.  In the texts,
 * {cpu}, {hk} (housekeeping CPUs), {hkmask} (the same as a hex mask),
 * {irq}, {pid}, {comm}, {fn}, {sib} (the busiest SMT sibling), {hv}
 * (the hypervisor) and {tell} (what can tell hardware noise apart on this
 * machine, and whether this run could) are filled in; `...` marks a
 * command to paste (jr_advise_fill.h).
 *
 * needs holds the JR_KF() options (and JR_NEED_PERF_GOVERNOR) that fix
 * needs.  Where the audited kernel lacks one, instead is printed as the
 * fix (when the kernel has what instead_needs), else no fix at all, and
 * the advice says what is missing.  outside marks a rule whose remedy
 * lies beyond this OS: the hardware, its firmware or the hypervisor.
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
	unsigned int needs;
	const char *instead;
	unsigned int instead_needs;
	bool outside;
};

extern const struct jr_rule jr_rules[];
extern const int jr_nr_rules;

#define JR_ADV_EVIDENCE 8 /* rows named per piece of advice */

struct jr_adv_row {
	char name[128]; /* "irq:24 virtio0" or "thread:kworker/1:1[80] >
                     work:vmstat_update" */
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
	unsigned int lacks; /* needs the audited kernel does not have */
	unsigned int unknown; /* needs the audit cannot tell */
	bool feasible; /* a fix this kernel can take (or one outside it) */
	struct jr_cmds cmds; /* to paste: the fix's and verify's */
};

/* the uncovered noise by class: enum jr_hclass, JR_H_GAP for a row of no
 * known class, and this for gap time that no event explains */
#define JR_ADV_UNATTRIBUTED JR_H_NR

struct jr_adv_cpu {
	int cpu;
	uint64_t runtime_ns;
	uint64_t noise_ns;
	int nr_advice;
	uint64_t base_ns; /* the noise the coverage is a share of */
	uint64_t fix_ns; /* covered by a fix on this system */
	uint64_t outside_ns; /* explained, with a remedy outside the OS */
	uint64_t unc_ns[JR_ADV_UNATTRIBUTED + 1]; /* covered by no rule */
};

/*
 * struct jr_uadvice - a piece of advice on the user thread alone, from a
 * comparison (jr_advise_user.c); not ranked with the rest, whose gain is
 * the kernel side's noise
 */
struct jr_uadvice {
	int cpu;
	const char *id;
	int64_t count; /* faults, waits, migrations or preemptions */
	double excess_ns_per_s; /* user minus kernel, when timed; else 0 */
	char what[JR_ADV_TEXT];
	const char *fix;
	const char *verify;
};

struct jr_advise {
	struct jr_advice *adv; /* ranked by expected gain */
	int nr;
	struct jr_uadvice *uadv; /* in CPU order */
	int nr_uadv;
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
unsigned int jr_adv_needs_in(unsigned int needs, int state,
			     const struct jr_audit *a,
			     const struct jr_audit_cpu *x);
void jr_adv_hw_tell(const struct jr_audit *a, const struct jr_audit_cpu *x,
		    const struct jr_rdoc *d, char *buf, size_t len);
const char *jr_adv_need_name(int bit);

/* jr_advise_user.c */
int jr_advise_user(struct jr_advise *v, const struct jr_rdoc *d);

/* jr_advise_out.c */
int jr_advise_text(FILE *out, const struct jr_advise *v);
int jr_advise_json(FILE *out, const struct jr_advise *v);

#endif /* JR_ADVISE_H */
