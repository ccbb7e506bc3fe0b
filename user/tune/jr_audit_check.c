// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_check.c - the audit as a checklist: each item ok, warn (a
 * known source of noise on the CPU) or info (worth knowing, no verdict).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/jr_audit_check.h"

#define JR_AUDIT_IDLE_US 10 /* an exit latency above this is a deep state */
#define JR_AUDIT_SMT_BUSY 5 /* a sibling busier than this, in % */
#define JR_AUDIT_SYS_CHECKS 10

static struct jr_check *jr_add(struct jr_checks *c, int cpu, const char *id,
			       enum jr_check_status st)
{
	struct jr_check *k = &c->k[c->nr++];

	k->cpu = cpu;
	k->id = id;
	k->status = st;
	if (st == JR_CHECK_WARN)
		c->warnings++;
	return k;
}

#define jr_say(k, ...) snprintf((k)->text, sizeof((k)->text), __VA_ARGS__)

/*
 * jr_check_kernel - the options fixes need, as this kernel has them, and
 * what it runs on: what advise may prescribe, and what can tell hardware
 * noise apart here.
 */
static void jr_check_kernel(const struct jr_audit *a, struct jr_checks *c)
{
	static const char *const tri[] = { "?", "no", "yes" };
	struct jr_check *k = jr_add(c, -1, "kernel_features", JR_CHECK_INFO);
	size_t n = snprintf(k->text, sizeof(k->text), "kernel has:");
	int f;

	for (f = 0; f < JR_KF_NR && n < sizeof(k->text); f++)
		n += snprintf(k->text + n, sizeof(k->text) - n, "%s %s %s",
			      f ? "," : "", jr_kfeat_name(f),
			      tri[a->kfeat[f] + 1]);
	k = jr_add(c, -1, "platform", JR_CHECK_INFO);
	jr_say(k, "%s%s%s%s, CPU vendor %s%s",
	       a->virt == JR_YES ? "virtual machine" :
	       a->virt == JR_NO	 ? "bare metal" :
				   "virtual or not: unknown",
	       a->hypervisor[0] ? " (" : "", a->hypervisor,
	       a->hypervisor[0] ? ")" : "",
	       a->cpu_vendor[0] ? a->cpu_vendor : "?",
	       !a->cpu_vendor[0] ? "" :
	       !strcmp(a->cpu_vendor, "GenuineIntel") ?
				   ": MSR 0x34 counts SMIs" :
				   ": no SMI counter the OS can read");
}

static void jr_check_system(const struct jr_audit *a, struct jr_checks *c)
{
	struct jr_check *k;

	k = jr_add(c, -1, "clocksource",
		   strcmp(a->clocksource, "tsc") ? JR_CHECK_WARN : JR_CHECK_OK);
	jr_say(k, "clocksource %s%s", a->clocksource[0] ? a->clocksource : "?",
	       strcmp(a->clocksource, "tsc") ? ": reading time is slow" : "");
	k = jr_add(c, -1, "tsc_reliable", JR_CHECK_INFO);
	jr_say(k, "tsc=reliable %s: %s",
	       a->tsc_reliable ? "given" : "not given",
	       a->tsc_reliable ? "no clocksource watchdog" :
				 "the clocksource watchdog checks the TSC");
	k = jr_add(c, -1, "irqbalance",
		   a->irqbalance_pid ? JR_CHECK_WARN : JR_CHECK_OK);
	if (a->irqbalance_pid)
		jr_say(k,
		       "irqbalance runs (pid %d): it moves IRQs onto CPUs it is not told "
		       "to leave alone",
		       a->irqbalance_pid);
	else
		jr_say(k, "irqbalance does not run");
	k = jr_add(c, -1, "thp",
		   !strcmp(a->thp, "always") ? JR_CHECK_WARN : JR_CHECK_OK);
	jr_say(k, "transparent hugepages: %s%s", a->thp[0] ? a->thp : "?",
	       !strcmp(a->thp, "always") ?
		       " (khugepaged and compaction run for every task)" :
		       "");
	k = jr_add(c, -1, "vm.stat_interval",
		   a->stat_interval >= 0 && a->stat_interval <= 1 ?
			   JR_CHECK_WARN :
			   JR_CHECK_OK);
	jr_say(k,
	       "vm.stat_interval %ld s: vmstat_update runs that often on CPUs with "
	       "counters to fold",
	       a->stat_interval);
	k = jr_add(c, -1, "kernel.nmi_watchdog",
		   a->nmi_watchdog > 0 ? JR_CHECK_WARN : JR_CHECK_OK);
	jr_say(k, "kernel.nmi_watchdog %ld%s", a->nmi_watchdog,
	       a->nmi_watchdog > 0 ?
		       ": a perf NMI on every CPU each watchdog_thresh" :
		       "");
	k = jr_add(c, -1, "sched_rt_runtime_us",
		   a->rt_runtime_us >= 0 ? JR_CHECK_WARN : JR_CHECK_OK);
	jr_say(k, "RT throttling: sched_rt_runtime_us %ld of %ld%s",
	       a->rt_runtime_us, a->rt_period_us,
	       a->rt_runtime_us >= 0 ?
		       ": a SCHED_FIFO task that never sleeps is "
		       "stopped for the rest of each period" :
		       "");
	k = jr_add(c, -1, "kernel.timer_migration", JR_CHECK_INFO);
	jr_say(k, "kernel.timer_migration %ld", a->timer_migration);
	jr_check_kernel(a, c);
}

static void jr_check_boot(const struct jr_audit *a,
			  const struct jr_audit_cpu *x, struct jr_checks *c)
{
	struct jr_check *k;

	k = jr_add(c, x->cpu, "isolated",
		   x->isolated ? JR_CHECK_OK : JR_CHECK_WARN);
	jr_say(k, "%s",
	       x->isolated ?
		       "isolated from the scheduler's balancing (isolcpus)" :
		       "not isolated: the scheduler may place any task here");
	k = jr_add(c, x->cpu, "nohz_full",
		   x->nohz_full ? JR_CHECK_OK : JR_CHECK_WARN);
	if (x->nohz_full)
		jr_say(k, "nohz_full: the tick stops while one task runs");
	else if (a->kfeat[JR_KF_NO_HZ_FULL] == JR_NO)
		jr_say(k,
		       "not nohz_full: this kernel is built without NO_HZ_FULL, so "
		       "nohz_full= does nothing; the tick runs every jiffy");
	else
		jr_say(k, "not nohz_full: the tick runs every jiffy");
	k = jr_add(c, x->cpu, "rcu_nocbs",
		   x->rcu_nocb ? JR_CHECK_OK : JR_CHECK_WARN);
	jr_say(k, "%s",
	       x->rcu_nocb ?
		       "RCU callbacks offloaded (rcu_nocbs, or nohz_full)" :
		       "RCU callbacks run here in softirq");
	k = jr_add(c, x->cpu, "workqueue",
		   x->in_wq_mask ? JR_CHECK_WARN : JR_CHECK_OK);
	jr_say(k, "%s",
	       x->in_wq_mask ?
		       "in the unbound workqueue cpumask: kworkers may run here" :
		       "outside the unbound workqueue cpumask");
}

static void jr_check_irqs(const struct jr_audit_cpu *x, struct jr_checks *c)
{
	struct jr_check *k;
	size_t n = 0;
	int i;

	k = jr_add(c, x->cpu, "irqs", x->nr_irq ? JR_CHECK_WARN : JR_CHECK_OK);
	if (!x->nr_irq) {
		jr_say(k, "no device IRQ is routed here");
		return;
	}
	n = snprintf(k->text, sizeof(k->text),
		     "%d device IRQ(s) routed here:", x->nr_irq);
	for (i = 0; i < x->nr_irq && i < JR_AUDIT_IRQS && n < sizeof(k->text);
	     i++)
		n += snprintf(k->text + n, sizeof(k->text) - n,
			      " %d %s (%llu here)", x->irq[i].irq,
			      x->irq[i].name,
			      (unsigned long long)x->irq[i].count);
}

static void jr_check_tasks(const struct jr_audit_cpu *x, struct jr_checks *c)
{
	struct jr_check *k;

	k = jr_add(c, x->cpu, "kthreads",
		   x->nr_kthreads ? JR_CHECK_WARN : JR_CHECK_OK);
	jr_say(k, "%d unbound kthread(s) may run here%s%s", x->nr_kthreads,
	       x->nr_kthreads ? ": " : "", x->kthreads);
	k = jr_add(c, x->cpu, "tasks",
		   x->nr_tasks ? JR_CHECK_WARN : JR_CHECK_OK);
	jr_say(k, "%d user task(s) may run here%s%s", x->nr_tasks,
	       x->nr_tasks ? ": " : "", x->tasks);
}

static void jr_check_power(const struct jr_audit_cpu *x, struct jr_checks *c)
{
	struct jr_check *k;

	if (!x->governor[0]) {
		k = jr_add(c, x->cpu, "governor", JR_CHECK_INFO);
		jr_say(k, "no cpufreq: the frequency is the firmware's");
	} else {
		k = jr_add(c, x->cpu, "governor",
			   strcmp(x->governor, "performance") ? JR_CHECK_WARN :
								JR_CHECK_OK);
		jr_say(k, "governor %s, %llu kHz", x->governor,
		       (unsigned long long)x->cur_khz);
	}
	if (!x->idle[0]) {
		k = jr_add(c, x->cpu, "cpuidle", JR_CHECK_INFO);
		jr_say(k, "no cpuidle states listed");
	} else {
		k = jr_add(c, x->cpu, "cpuidle",
			   x->idle_latency_us > JR_AUDIT_IDLE_US ?
				   JR_CHECK_WARN :
				   JR_CHECK_OK);
		jr_say(k, "idle states enabled: %s (deepest exit %llu us)",
		       x->idle, (unsigned long long)x->idle_latency_us);
	}
	if (x->steal_ms >= 0) {
		k = jr_add(c, x->cpu, "steal", JR_CHECK_INFO);
		jr_say(k, "steal %lld ms since boot%s", x->steal_ms,
		       x->steal_ms ?
			       ": the hypervisor ran something else here" :
			       "");
	}
	k = jr_add(c, x->cpu, "pm_qos", JR_CHECK_INFO);
	jr_say(k, "PM QoS resume latency: %s",
	       x->resume_latency[0] ? x->resume_latency : "?");
	k = jr_add(c, x->cpu, "smt",
		   x->sibling_busy_pct > JR_AUDIT_SMT_BUSY ? JR_CHECK_WARN :
		   strchr(x->siblings, ',') || strchr(x->siblings, '-') ?
							     JR_CHECK_INFO :
							     JR_CHECK_OK);
	if (x->sibling_busy_pct >= 0)
		jr_say(k, "SMT siblings %s, the busiest other %d%% busy",
		       x->siblings, x->sibling_busy_pct);
	else
		jr_say(k, "SMT siblings: %s",
		       x->siblings[0] ? x->siblings : "?");
}

/* jr_audit_checks - the checklist of a; 0 or -ENOMEM. */
int jr_audit_checks(const struct jr_audit *a, struct jr_checks *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->k = calloc(JR_AUDIT_SYS_CHECKS + JR_CHECKS_PER_CPU * a->nr_cpu,
		      sizeof(*c->k));
	if (!c->k)
		return -1;
	jr_check_system(a, c);
	for (i = 0; i < a->nr_cpu; i++) {
		jr_check_boot(a, &a->cpu[i], c);
		jr_check_irqs(&a->cpu[i], c);
		jr_check_tasks(&a->cpu[i], c);
		jr_check_power(&a->cpu[i], c);
	}
	return 0;
}

const char *jr_check_status_name(enum jr_check_status st)
{
	static const char *const names[] = { "ok", "warn", "info" };

	return names[st];
}
