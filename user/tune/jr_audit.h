/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_audit.h - how a machine is set up for quiet CPUs, read from /proc and
 * /sys (under a root directory, "" for the machine itself): boot
 * parameters, IRQ affinities, kthreads and tasks allowed on each CPU,
 * frequency, idle states, SMT and the sysctls that make noise.
 */
#ifndef JR_AUDIT_H
#define JR_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/jr_err.h"
#include "common/jr_parse.h"

#define JR_AUDIT_NAMES 256 /* room for the first names of a list */
#define JR_AUDIT_IRQS 32 /* IRQs named per CPU */

/* a fact the audit may not know: an old audit file, or no way to look */
enum jr_tri {
	JR_UNKNOWN = -1,
	JR_NO = 0,
	JR_YES = 1,
};

/*
 * enum jr_kfeat - what the kernel may be built without, that a fix
 * needs (jr_audit_kfeat.c says how each is told: the kernel's config,
 * else the file the option creates).
 */
enum jr_kfeat {
	JR_KF_NO_HZ_FULL,
	JR_KF_RCU_NOCB,
	JR_KF_TRACE_EVENTS,
	JR_KF_CSD_EVENTS,
	JR_KF_FTRACE_FILTER,
	JR_KF_THP,
	JR_KF_NR,
};

#define JR_KF(f) (1U << (f))

struct jr_audit_irq {
	int irq;
	char name[48];
	uint64_t count; /* on this CPU, from /proc/interrupts */
};

struct jr_audit_cpu {
	int cpu;
	bool isolated; /* sysfs isolated: isolcpus' domain isolation */
	bool nohz_full;
	bool rcu_nocb; /* rcu_nocbs=, or implied by nohz_full */
	bool in_wq_mask; /* unbound workqueues may run here */
	struct jr_audit_irq irq[JR_AUDIT_IRQS];
	int nr_irq; /* device IRQs whose affinity holds this CPU */
	int nr_kthreads; /* kthreads allowed here and elsewhere too */
	char kthreads[JR_AUDIT_NAMES];
	int nr_tasks; /* user tasks allowed here */
	char tasks[JR_AUDIT_NAMES];
	char governor[32]; /* "" without cpufreq */
	uint64_t cur_khz;
	char idle[JR_AUDIT_NAMES]; /* enabled cpuidle states, "" without */
	uint64_t idle_latency_us; /* the deepest enabled state's exit latency */
	char resume_latency[32]; /* PM QoS, as sysfs says it */
	char siblings[64]; /* SMT siblings, this CPU included */
	int sibling_busy_pct; /* busiest other sibling; -1: none or unknown */
	signed char perf_governor; /* enum jr_tri: cpufreq offers performance */
	long long steal_ms; /* /proc/stat's steal since boot; -1: unknown */
};

struct jr_audit {
	const char *root;
	char cmdline[4096];
	char isolcpus[256]; /* the boot parameters, "" when absent */
	char nohz_full[256];
	char rcu_nocbs[256];
	char irqaffinity[256];
	bool managed_irq; /* isolcpus=managed_irq,... */
	bool skew_tick;
	bool tsc_reliable;
	signed char kfeat[JR_KF_NR]; /* enum jr_tri each */
	signed char virt; /* enum jr_tri: a virtual machine */
	char hypervisor[32]; /* its name when known, "" otherwise */
	char cpu_vendor[16]; /* /proc/cpuinfo's vendor_id */
	char clocksource[32];
	int irqbalance_pid; /* 0: not running */
	char wq_mask[160]; /* unbound workqueues' cpumask, "" unknown */
	char thp[16]; /* the selected transparent_hugepage mode */
	long stat_interval; /* -1: unknown */
	long timer_migration;
	long nmi_watchdog;
	long rt_runtime_us;
	long rt_period_us;
	struct jr_audit_cpu *cpu;
	int nr_cpu;
};

int jr_audit_read(struct jr_audit *a, const char *root,
		  const unsigned char *cpus, struct jr_err *e);
void jr_audit_free(struct jr_audit *a);
int jr_audit_parse(struct jr_audit *a, const char *text, struct jr_err *e);
int jr_audit_default_cpus(const char *root, unsigned char *cpus);

/* jr_audit_sys.c: files under the root */
int jr_audit_file(const struct jr_audit *a, const char *path, char *buf,
		  size_t len);
long jr_audit_long(const struct jr_audit *a, const char *path);
int jr_audit_cpulist(const char *text, unsigned char *set);
bool jr_audit_has_word(const char *list, const char *word);

/* jr_audit_kfeat.c: the kernel's options and the platform */
void jr_audit_kfeats(struct jr_audit *a);
void jr_audit_platform(struct jr_audit *a);
const char *jr_kfeat_name(enum jr_kfeat f);
const char *jr_kfeat_key(enum jr_kfeat f);
const char *jr_tri_json(int v);

/* a CPU's ticks in /proc/stat; steal is -1 where the line has none */
struct jr_cpu_ticks {
	unsigned long long busy, total;
	long long steal;
};

/* jr_audit_cpu.c and jr_audit_smt.c: per CPU */
int jr_audit_stat(const struct jr_audit *a, struct jr_cpu_ticks *t);
int jr_audit_cpus(struct jr_audit *a);
void jr_audit_smt(struct jr_audit *a);

#endif /* JR_AUDIT_H */
