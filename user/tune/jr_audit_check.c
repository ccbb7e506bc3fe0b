// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_check.c - the audit as a checklist: each item ok, warn (a
 * known source of noise on the CPU) or info (worth knowing, no verdict),
 * judged by a row of a table.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/jr_audit_check.h"
#include "tune/jr_tune_limits.h"

#define jr_say(k, ...) snprintf((k)->text, sizeof((k)->text), __VA_ARGS__)

/* What a judge reads: the machine's audit, and for a CPU's row, the CPU's. */
struct jr_judged {
	const struct jr_audit *a;
	const struct jr_audit_cpu *x; /* NULL for the machine's rows */
};

/* jr_set_warn - the check's status: warn where warn holds, else ok */
static void jr_set_warn(struct jr_check *k, bool warn)
{
	k->status = warn ? JR_CHECK_WARN : JR_CHECK_OK;
}

/* kernel_features: the options fixes need, as this kernel has them */
static bool jr_judge_kfeat(const struct jr_judged *j, struct jr_check *k)
{
	static const char *const tri[] = { "?", "no", "yes" };
	size_t n = snprintf(k->text, sizeof(k->text), "kernel has:");
	int f;

	k->status = JR_CHECK_INFO;
	for (f = 0; f < JR_KF_NR && n < sizeof(k->text); f++)
		n += snprintf(k->text + n, sizeof(k->text) - n, "%s %s %s",
			      f ? "," : "", jr_kfeat_name(f),
			      tri[j->a->kfeat[f] + 1]);
	return true;
}

/* platform: what it runs on, and what can tell hardware noise apart */
static bool jr_judge_platform(const struct jr_judged *j, struct jr_check *k)
{
	k->status = JR_CHECK_INFO;
	jr_say(k, "%s%s%s%s, CPU vendor %s%s",
	       j->a->virt == JR_YES ? "virtual machine" :
	       j->a->virt == JR_NO  ? "bare metal" :
				      "virtual or not: unknown",
	       j->a->hypervisor[0] ? " (" : "", j->a->hypervisor,
	       j->a->hypervisor[0] ? ")" : "",
	       j->a->cpu_vendor[0] ? j->a->cpu_vendor : "?",
	       !j->a->cpu_vendor[0] ? "" :
	       !strcmp(j->a->cpu_vendor, "GenuineIntel") ?
				      ": MSR 0x34 counts SMIs" :
				      ": no SMI counter the OS can read");
	return true;
}

static bool jr_judge_clocksource(const struct jr_judged *j, struct jr_check *k)
{
	bool slow = strcmp(j->a->clocksource, "tsc");

	jr_set_warn(k, slow);
	jr_say(k, "clocksource %s%s",
	       j->a->clocksource[0] ? j->a->clocksource : "?",
	       slow ? ": reading time is slow" : "");
	return true;
}

static bool jr_judge_tsc_reliable(const struct jr_judged *j, struct jr_check *k)
{
	k->status = JR_CHECK_INFO;
	jr_say(k, "tsc=reliable %s: %s",
	       j->a->tsc_reliable ? "given" : "not given",
	       j->a->tsc_reliable ? "no clocksource watchdog" :
				    "the clocksource watchdog checks the TSC");
	return true;
}

static bool jr_judge_irqbalance(const struct jr_judged *j, struct jr_check *k)
{
	jr_set_warn(k, j->a->irqbalance_pid);
	if (j->a->irqbalance_pid)
		jr_say(k,
		       "irqbalance runs (pid %d): it moves IRQs onto CPUs it is not told "
		       "to leave alone",
		       j->a->irqbalance_pid);
	else
		jr_say(k, "irqbalance does not run");
	return true;
}

static bool jr_judge_thp(const struct jr_judged *j, struct jr_check *k)
{
	bool always = !strcmp(j->a->thp, "always");

	jr_set_warn(k, always);
	jr_say(k, "transparent hugepages: %s%s", j->a->thp[0] ? j->a->thp : "?",
	       always ? " (khugepaged and compaction run for every task)" : "");
	return true;
}

static bool jr_judge_stat_interval(const struct jr_judged *j,
				   struct jr_check *k)
{
	jr_set_warn(k, j->a->stat_interval >= 0 && j->a->stat_interval <= 1);
	jr_say(k,
	       "vm.stat_interval %ld s: vmstat_update runs that often on CPUs with "
	       "counters to fold",
	       j->a->stat_interval);
	return true;
}

static bool jr_judge_nmi_watchdog(const struct jr_judged *j, struct jr_check *k)
{
	jr_set_warn(k, j->a->nmi_watchdog > 0);
	jr_say(k, "kernel.nmi_watchdog %ld%s", j->a->nmi_watchdog,
	       j->a->nmi_watchdog > 0 ?
		       ": a perf NMI on every CPU each watchdog_thresh" :
		       "");
	return true;
}

static bool jr_judge_rt_runtime(const struct jr_judged *j, struct jr_check *k)
{
	jr_set_warn(k, j->a->rt_runtime_us >= 0);
	jr_say(k, "RT throttling: sched_rt_runtime_us %ld of %ld%s",
	       j->a->rt_runtime_us, j->a->rt_period_us,
	       j->a->rt_runtime_us >= 0 ?
		       ": a SCHED_FIFO task that never sleeps is "
		       "stopped for the rest of each period" :
		       "");
	return true;
}

static bool jr_judge_timer_migration(const struct jr_judged *j,
				     struct jr_check *k)
{
	k->status = JR_CHECK_INFO;
	jr_say(k, "kernel.timer_migration %ld", j->a->timer_migration);
	return true;
}

static bool jr_judge_nohz_full(const struct jr_judged *j, struct jr_check *k)
{
	jr_set_warn(k, !j->x->nohz_full);
	if (j->x->nohz_full)
		jr_say(k, "nohz_full: the tick stops while one task runs");
	else if (j->a->kfeat[JR_KF_NO_HZ_FULL] == JR_NO)
		jr_say(k,
		       "not nohz_full: this kernel is built without NO_HZ_FULL, so "
		       "nohz_full= does nothing; the tick runs every jiffy");
	else
		jr_say(k, "not nohz_full: the tick runs every jiffy");
	return true;
}

static bool jr_judge_irqs(const struct jr_judged *j, struct jr_check *k)
{
	size_t n;
	int i;

	jr_set_warn(k, j->x->nr_irq);
	if (!j->x->nr_irq) {
		jr_say(k, "no device IRQ is routed here");
		return true;
	}
	n = snprintf(k->text, sizeof(k->text),
		     "%d device IRQ(s) routed here:", j->x->nr_irq);
	for (i = 0;
	     i < j->x->nr_irq && i < JR_AUDIT_IRQS && n < sizeof(k->text); i++)
		n += snprintf(k->text + n, sizeof(k->text) - n,
			      " %d %s (%llu here)", j->x->irq[i].irq,
			      j->x->irq[i].name,
			      (unsigned long long)j->x->irq[i].count);
	return true;
}

static void jr_judge_list(struct jr_check *k, int n, const char *what,
			  const char *names)
{
	jr_set_warn(k, n);
	jr_say(k, "%d %s may run here%s%s", n, what, n ? ": " : "", names);
}

static bool jr_judge_kthreads(const struct jr_judged *j, struct jr_check *k)
{
	jr_judge_list(k, j->x->nr_kthreads, "unbound kthread(s)",
		      j->x->kthreads);
	return true;
}

static bool jr_judge_tasks(const struct jr_judged *j, struct jr_check *k)
{
	jr_judge_list(k, j->x->nr_tasks, "user task(s)", j->x->tasks);
	return true;
}

static bool jr_judge_governor(const struct jr_judged *j, struct jr_check *k)
{
	if (!j->x->governor[0]) {
		k->status = JR_CHECK_INFO;
		jr_say(k, "no cpufreq: the frequency is the firmware's");
		return true;
	}
	jr_set_warn(k, strcmp(j->x->governor, "performance"));
	jr_say(k, "governor %s, %llu kHz", j->x->governor,
	       (unsigned long long)j->x->cur_khz);
	return true;
}

static bool jr_judge_cpuidle(const struct jr_judged *j, struct jr_check *k)
{
	if (!j->x->idle[0]) {
		k->status = JR_CHECK_INFO;
		jr_say(k, "no cpuidle states listed");
		return true;
	}
	jr_set_warn(k, j->x->idle_latency_us > JR_DEEP_IDLE_US);
	jr_say(k, "idle states enabled: %s (deepest exit %llu us)", j->x->idle,
	       (unsigned long long)j->x->idle_latency_us);
	return true;
}

/* steal: left out where /proc/stat cannot tell it */
static bool jr_judge_steal(const struct jr_judged *j, struct jr_check *k)
{
	if (j->x->steal_ms < 0)
		return false;
	k->status = JR_CHECK_INFO;
	jr_say(k, "steal %lld ms since boot%s", j->x->steal_ms,
	       j->x->steal_ms ? ": the hypervisor ran something else here" :
				"");
	return true;
}

static bool jr_judge_pm_qos(const struct jr_judged *j, struct jr_check *k)
{
	k->status = JR_CHECK_INFO;
	jr_say(k, "PM QoS resume latency: %s",
	       j->x->resume_latency[0] ? j->x->resume_latency : "?");
	return true;
}

static bool jr_judge_smt(const struct jr_judged *j, struct jr_check *k)
{
	if (j->x->sibling_busy_pct > JR_SIBLING_BUSY_PCT)
		k->status = JR_CHECK_WARN;
	else if (strchr(j->x->siblings, ',') || strchr(j->x->siblings, '-'))
		k->status = JR_CHECK_INFO;
	else
		k->status = JR_CHECK_OK;
	if (j->x->sibling_busy_pct >= 0)
		jr_say(k, "SMT siblings %s, the busiest other %d%% busy",
		       j->x->siblings, j->x->sibling_busy_pct);
	else
		jr_say(k, "SMT siblings: %s",
		       j->x->siblings[0] ? j->x->siblings : "?");
	return true;
}

/*
 * The checklist, one row per item in the order it is printed: the
 * machine's, then each CPU's.  A flag row judges a bool of the CPU's
 * audit, at offset flag: warn when it equals warn_if, ok otherwise, with
 * the text for set or unset.  Any other row's judge sets the status and
 * the text, or returns false to leave the item out.  Documentation/
 * jitread-audit.rst lists every id; tests/host/test_audit.py checks it.
 */
#define JR_SYS_CHECK(name, fn)          \
	{                               \
		.id = name, .judge = fn \
	}
#define JR_CPU_CHECK(name, fn)                           \
	{                                                \
		.id = name, .per_cpu = true, .judge = fn \
	}
#define JR_CPU_FLAG(name, field, warn, yes, no)                                \
	{                                                                      \
		.id = name, .per_cpu = true,                                   \
		.flag = offsetof(struct jr_audit_cpu, field), .warn_if = warn, \
		.set = yes, .unset = no                                        \
	}

static const struct jr_check_def {
	const char *id;
	bool per_cpu;
	bool (*judge)(const struct jr_judged *j, struct jr_check *k);
	size_t flag;
	bool warn_if;
	const char *set, *unset;
} jr_check_defs[] = {
	JR_SYS_CHECK("clocksource", jr_judge_clocksource),
	JR_SYS_CHECK("tsc_reliable", jr_judge_tsc_reliable),
	JR_SYS_CHECK("irqbalance", jr_judge_irqbalance),
	JR_SYS_CHECK("thp", jr_judge_thp),
	JR_SYS_CHECK("vm.stat_interval", jr_judge_stat_interval),
	JR_SYS_CHECK("kernel.nmi_watchdog", jr_judge_nmi_watchdog),
	JR_SYS_CHECK("sched_rt_runtime_us", jr_judge_rt_runtime),
	JR_SYS_CHECK("kernel.timer_migration", jr_judge_timer_migration),
	JR_SYS_CHECK("kernel_features", jr_judge_kfeat),
	JR_SYS_CHECK("platform", jr_judge_platform),
	JR_CPU_FLAG("isolated", isolated, false,
		    "isolated from the scheduler's balancing (isolcpus)",
		    "not isolated: the scheduler may place any task here"),
	JR_CPU_CHECK("nohz_full", jr_judge_nohz_full),
	JR_CPU_FLAG("rcu_nocbs", rcu_nocb, false,
		    "RCU callbacks offloaded (rcu_nocbs, or nohz_full)",
		    "RCU callbacks run here in softirq"),
	JR_CPU_FLAG("workqueue", in_wq_mask, true,
		    "in the unbound workqueue cpumask: kworkers may run here",
		    "outside the unbound workqueue cpumask"),
	JR_CPU_CHECK("irqs", jr_judge_irqs),
	JR_CPU_CHECK("kthreads", jr_judge_kthreads),
	JR_CPU_CHECK("tasks", jr_judge_tasks),
	JR_CPU_CHECK("governor", jr_judge_governor),
	JR_CPU_CHECK("cpuidle", jr_judge_cpuidle),
	JR_CPU_CHECK("steal", jr_judge_steal),
	JR_CPU_CHECK("pm_qos", jr_judge_pm_qos),
	JR_CPU_CHECK("smt", jr_judge_smt),
};

#define JR_NR_CHECK_DEFS (sizeof(jr_check_defs) / sizeof(jr_check_defs[0]))

/* One row for the machine (x NULL) or a CPU, appended to c unless left out. */
static void jr_check_one(const struct jr_check_def *d, const struct jr_audit *a,
			 const struct jr_audit_cpu *x, struct jr_checks *c)
{
	struct jr_check *k = &c->k[c->nr];
	bool set;

	memset(k, 0, sizeof(*k));
	k->cpu = x ? x->cpu : -1;
	k->id = d->id;
	if (d->judge) {
		if (!d->judge(&(const struct jr_judged){ .a = a, .x = x }, k))
			return;
	} else {
		set = *(const bool *)((const char *)x + d->flag);
		jr_set_warn(k, set == d->warn_if);
		jr_say(k, "%s", set ? d->set : d->unset);
	}
	c->nr++;
	if (k->status == JR_CHECK_WARN)
		c->warnings++;
}

/* jr_audit_checks - the checklist of a; 0 or -1 (no memory). */
int jr_audit_checks(const struct jr_audit *a, struct jr_checks *c)
{
	size_t d;
	int i;

	memset(c, 0, sizeof(*c));
	c->k = calloc(JR_NR_CHECK_DEFS * (1 + a->nr_cpu), sizeof(*c->k));
	if (!c->k)
		return -1;
	for (d = 0; d < JR_NR_CHECK_DEFS; d++)
		if (!jr_check_defs[d].per_cpu)
			jr_check_one(&jr_check_defs[d], a, NULL, c);
	for (i = 0; i < a->nr_cpu; i++)
		for (d = 0; d < JR_NR_CHECK_DEFS; d++)
			if (jr_check_defs[d].per_cpu)
				jr_check_one(&jr_check_defs[d], a, &a->cpu[i],
					     c);
	return 0;
}

const char *jr_check_status_name(enum jr_check_status st)
{
	static const char *const names[] = { "ok", "warn", "info" };

	return names[st];
}
