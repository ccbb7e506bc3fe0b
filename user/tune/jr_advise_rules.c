// SPDX-License-Identifier: GPL-2.0
/*
 * jr_advise_rules.c - the mitigations jitread advise knows, as data, and
 * the audit conditions they depend on.  Documentation/advise.rst lists
 * each rule with its evidence and where the mitigation is documented.
 * Order matters: a row is evidence for the first rule that takes it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/jr_parse.h"
#include "tune/jr_advise.h"

#define HOUSEKEEPING " (housekeeping CPUs: {hk})"

const struct jr_rule jr_rules[] = {
	{ "irqbalance", "irq:[0-9]*", NULL, JR_IF_IRQBALANCE, false, true,
	  "irqbalance runs and may place device IRQs on CPU {cpu}",
	  "systemctl stop irqbalance; or set IRQBALANCE_BANNED_CPULIST={cpu} in /etc/default/irqbalance and restart it",
	  "Stopping irqbalance leaves every IRQ where it is: move them (see irq-affinity).",
	  "pgrep -x irqbalance prints nothing, or its banned list holds {cpu}",
	  "irqbalance(1); Red Hat's low-latency tuning guide" },
	{ "irq-affinity", "irq:[0-9]*", NULL, JR_IF_ANY, true, false,
	  "device IRQ {irq} ({comm}) is served on CPU {cpu}",
	  "echo {hk} > /proc/irq/{irq}/smp_affinity_list",
	  "A managed IRQ (NVMe, multiqueue NICs) refuses a new affinity: boot with isolcpus=managed_irq,domain,{cpu} instead. irqbalance, if it runs, may move it back.",
	  "cat /proc/irq/{irq}/effective_affinity_list shows no {cpu}; a new run has no irq:{irq} row",
	  "Documentation/core-api/irq/irq-affinity.rst; LMAX, Reducing system jitter" },
	{ "vmstat", "thread:*", "work:vmstat_update", JR_IF_STAT_SHORT, false,
	  false, "the vmstat counters are folded on CPU {cpu} (vmstat_update)",
	  "sysctl -w vm.stat_interval=120",
	  "/proc/vmstat and per-zone counters are then up to 120 s old. On nohz_full CPUs the kernel also folds them when the tick stops.",
	  "a new run has no work:vmstat_update row on CPU {cpu}",
	  "Documentation/admin-guide/sysctl/vm.rst (stat_interval); IBM, OS jitter mitigation" },
	{ "tick-hrtimer", "irq:local_timer", "hrtimer:tick_sched_timer",
	  JR_IF_NEVER, false, false, "", "", "", "", "" },
	{ "tick-rcu", "irq:local_timer", "tick:*RCU*", JR_IF_ANY, false, false,
	  "RCU keeps the tick on CPU {cpu}",
	  "boot with rcu_nocbs={cpu} (with nohz_full={cpu}), and rcu_nocb_poll if the wake-ups of the offload threads matter",
	  "Judge tick findings from jitread user too: nohz_full stops the tick only while one task runs, and jitmod's sampler is a kernel thread.",
	  "a new run has no tick:...RCU row under irq:local_timer",
	  "Documentation/timers/no_hz.rst; Documentation/admin-guide/kernel-per-CPU-kthreads.rst" },
	{ "tick-posix-timer", "irq:local_timer", "tick:*POSIX_TIMER*",
	  JR_IF_ANY, false, false,
	  "a POSIX CPU-time timer keeps the tick on CPU {cpu}",
	  "remove the CPU-clock timer of the task on CPU {cpu} (setitimer ITIMER_PROF/VIRTUAL, timer_create on a CPU clock, RLIMIT_CPU)",
	  "Judge tick findings from jitread user too: nohz_full stops the tick only while one task runs.",
	  "a new run has no tick:...POSIX_TIMER row",
	  "Documentation/timers/no_hz.rst" },
	{ "tick-perf", "irq:local_timer", "tick:*PERF_EVENTS*", JR_IF_ANY,
	  false, false, "perf events keep the tick on CPU {cpu}",
	  "stop the perf session or monitoring agent that counts on CPU {cpu} (perf stat/record, PMU exporters)",
	  "Judge tick findings from jitread user too.",
	  "a new run has no tick:...PERF_EVENTS row",
	  "Documentation/timers/no_hz.rst" },
	{ "nohz-full", "irq:local_timer", NULL, JR_IF_NOT_NOHZ, false, false,
	  "the scheduler tick interrupts CPU {cpu}, which is not nohz_full",
	  "boot with nohz_full={cpu} rcu_nocbs={cpu} (and isolcpus=domain,managed_irq,{cpu} to keep tasks and managed IRQs away)",
	  "nohz_full stops the tick only while one task runs on the CPU, and adds cost to system calls and context switches: judge it from jitread user, with the application's own thread.",
	  "cat /sys/devices/system/cpu/nohz_full holds {cpu}; irq:local_timer's rate falls in a new run",
	  "Documentation/timers/no_hz.rst" },
	{ "rcu-nocbs", "thread:rcuc/*", NULL, JR_IF_NOT_NOCB, false, false,
	  "RCU callbacks run on CPU {cpu} (rcuc)", "boot with rcu_nocbs={cpu}",
	  "The offloaded callbacks then run in rcuo threads: keep those on housekeeping CPUs.",
	  "a new run has no thread:rcuc row on CPU {cpu}",
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst" },
	{ "unbound-workqueue", "thread:kworker/u*", NULL, JR_IF_IN_WQ_MASK,
	  false, false, "unbound work items run on CPU {cpu}",
	  "echo {hkmask} > /sys/devices/virtual/workqueue/cpumask",
	  "Per-CPU work (kworker/{cpu}:N) is not moved by this mask.",
	  "cat /sys/devices/virtual/workqueue/cpumask; a new run has no kworker/u row",
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst" },
	{ "timer-migration", "softirq:TIMER", "timer:*", JR_IF_TIMER_MIG_OFF,
	  false, true, "timers expire on CPU {cpu} with timer migration off",
	  "sysctl -w kernel.timer_migration=1",
	  "Pinned timers stay where they were armed.",
	  "sysctl kernel.timer_migration reads 1; fewer timer rows in a new run",
	  "Documentation/admin-guide/sysctl/kernel.rst (timer_migration)" },
	{ "nmi-watchdog", "nmi:perf_event_nmi_handler", NULL,
	  JR_IF_NMI_WATCHDOG, false, false,
	  "the hard-lockup watchdog's NMIs hit CPU {cpu}",
	  "sysctl -w kernel.nmi_watchdog=0 (or boot with nmi_watchdog=0)",
	  "Hard lockups are then no longer detected on this machine.",
	  "a new run has no nmi:perf_event_nmi_handler row",
	  "Documentation/admin-guide/lockup-watchdogs.rst" },
	{ "khugepaged", "thread:khugepaged*", NULL, JR_IF_ANY, true, false,
	  "khugepaged ran on CPU {cpu}",
	  "taskset -pc {hk} {pid}; and echo madvise > /sys/kernel/mm/transparent_hugepage/enabled",
	  "With THP on madvise, only mappings that ask get huge pages.",
	  "a new run has no thread:khugepaged row",
	  "Documentation/admin-guide/mm/transhuge.rst" },
	{ "rt-throttling", "thread:*", NULL, JR_IF_RT_THROTTLE_FIFO, false,
	  true,
	  "RT throttling can take CPU {cpu} from its FIFO task for other tasks",
	  "sysctl -w kernel.sched_rt_runtime_us=-1",
	  "A runaway FIFO task can then hang its CPU: keep housekeeping CPUs for everything else.",
	  "sysctl kernel.sched_rt_runtime_us reads -1",
	  "Documentation/scheduler/sched-rt-group.rst" },
	{ "kthread-affinity", "thread:*", NULL, JR_IF_MOVABLE_KTHREAD, true,
	  false, "kernel thread {comm} (pid {pid}) ran on CPU {cpu}",
	  "taskset -pc {hk} {pid}",
	  "Per-CPU kernel threads cannot move; this one may run elsewhere.",
	  "taskset -pc {pid} shows {hk}; a new run has no row for it",
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst" },
	{ "task-affinity", "thread:*", NULL, JR_IF_USER_TASK, true, false,
	  "task {comm} (pid {pid}) ran on CPU {cpu}",
	  "taskset -pc {hk} {pid}; start it outside {cpu} (taskset, a cpuset, systemd CPUAffinity=)",
	  "isolcpus=domain,{cpu} keeps new tasks off the CPU unless asked.",
	  "taskset -pc {pid} shows {hk}; a new run has no row for it",
	  "taskset(1); systemd.exec(5) CPUAffinity=" },
	{ "work-item", "thread:kworker/*", "work:*", JR_IF_ANY, true, false,
	  "work item {fn} runs on CPU {cpu}",
	  "find who queues it: trace-cmd record -e workqueue:workqueue_queue_work -f 'function == {fn}', then stop or move that queuer",
	  "Per-CPU work follows the CPU it is queued on; unbound work follows the workqueue cpumask.",
	  "a new run has no work:{fn} row",
	  "Documentation/core-api/workqueue.rst" },
	{ "timer-callback", "softirq:*", "*timer:*", JR_IF_ANY, true, false,
	  "timer callback {fn} fires on CPU {cpu}",
	  "find who arms it: trace-cmd record -e timer:timer_start -e timer:hrtimer_start -f 'function == {fn}', then stop or move that user",
	  "A pinned timer fires where it was armed, whatever timer_migration says.",
	  "a new run has no timer row for {fn}",
	  "Documentation/timers/timers-howto.rst" },
	{ "ipi-function", "irq:call_function*", "ipi:*", JR_IF_ANY, true, false,
	  "{from} makes CPU {cpu} run {fn} by IPI",
	  "find what asks for it: trace-cmd record -e csd:csd_queue_cpu -f 'cpu == {cpu}' -T (the stack of each request), then stop that task or keep it off the memory and CPUs of CPU {cpu}'s task",
	  "perf and monitoring agents counting on CPU {cpu} send remote_function; a process whose threads share memory with CPU {cpu}'s task sends TLB flushes (flush_tlb_func) when it unmaps or changes protection.",
	  "a new run has no ipi:{fn} row",
	  "include/trace/events/csd.h; Documentation/admin-guide/kernel-per-CPU-kthreads.rst" },
	{ "governor", "hw:unknown", NULL, JR_IF_GOVERNOR, false, true,
	  "CPU {cpu} scales its frequency",
	  "cpupower -c {cpu} frequency-set -g performance",
	  "More power and heat; turbo changes still happen.",
	  "cat /sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor reads performance",
	  "Documentation/admin-guide/pm/cpufreq.rst" },
	{ "c-states", "hw:unknown", NULL, JR_IF_DEEP_IDLE, false, true,
	  "CPU {cpu} may enter deep idle states",
	  "cpupower -c {cpu} idle-set -D 10 (or boot with processor.max_cstate=1 intel_idle.max_cstate=0)",
	  "A busy-polling thread never idles: this matters for threads that sleep and wake. More power.",
	  "cpupower -c {cpu} idle-info lists the deep states as disabled",
	  "Documentation/admin-guide/pm/cpuidle.rst" },
	{ "smt-sibling", "hw:unknown", NULL, JR_IF_SIBLING_BUSY, false, true,
	  "CPU {cpu}'s SMT sibling {sib} is busy and shares its core",
	  "keep CPU {sib} idle, or echo 0 > /sys/devices/system/cpu/cpu{sib}/online (or boot with nosmt)",
	  "Offlining a sibling halves that core's threads.",
	  "cat /sys/devices/system/cpu/cpu{sib}/online reads 0, or the sibling is idle in a new run",
	  "Documentation/admin-guide/hw-vuln/core-scheduling.rst" },
	{ "smi", "hw:smi", NULL, JR_IF_ANY, false, false,
	  "System Management Interrupts stole CPU {cpu} from the OS",
	  "in the firmware setup, turn off what runs in SMM: OS-visible power management left to firmware, USB legacy emulation, memory error scrubbing by firmware",
	  "SMIs cannot be masked by the OS; some are needed for thermal protection.",
	  "hw:smi falls in a new run (MSR 0x34 counts SMIs on Intel)",
	  "IBM, OS jitter mitigation; rtla hwnoise" },
	{ "steal", "hw:steal", NULL, JR_IF_ANY, false, false,
	  "the hypervisor ran something else on CPU {cpu}'s host core",
	  "pin this vCPU to a dedicated, isolated host core (libvirt vcpupin, KVM with isolated host CPUs), or use a dedicated-core instance",
	  "Steal is invisible inside the guest but for the steal clock.",
	  "hw:steal falls in a new run",
	  "KVM steal time; Red Hat real-time virtualization tuning" },
};

const int jr_nr_rules = sizeof(jr_rules) / sizeof(jr_rules[0]);

/* jr_in_list - whether name is an entry of a comma-separated list. */
static bool jr_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (n && (p = strstr(p, name))) {
		if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
			return true;
		p += n;
	}
	return false;
}

/* jr_fifo_sampler - the report's jitmod ran at a FIFO priority. */
static bool jr_fifo_sampler(const struct jr_rdoc *d)
{
	char v[16];

	return jr_param_value(d->params, "prio", v, sizeof(v)) && atoi(v) > 0;
}

/*
 * jr_adv_cond_holds - whether condition c holds for the audited CPU x
 * (NULL when the audit has no such CPU) and, for task conditions, comm.
 */
bool jr_adv_cond_holds(enum jr_adv_cond c, const struct jr_audit *a,
		       const struct jr_audit_cpu *x, const struct jr_rdoc *d,
		       const char *comm)
{
	switch (c) {
	case JR_IF_ANY:
		return true;
	case JR_IF_NOT_NOHZ:
		return x && !x->nohz_full;
	case JR_IF_NOT_NOCB:
		return x && !x->rcu_nocb;
	case JR_IF_IN_WQ_MASK:
		return !x || x->in_wq_mask;
	case JR_IF_IRQBALANCE:
		return a->irqbalance_pid > 0;
	case JR_IF_STAT_SHORT:
		return a->stat_interval < 60; /* -1: unknown */
	case JR_IF_TIMER_MIG_OFF:
		return a->timer_migration == 0;
	case JR_IF_NMI_WATCHDOG:
		return a->nmi_watchdog > 0;
	case JR_IF_RT_THROTTLE_FIFO:
		return a->rt_runtime_us >= 0 && jr_fifo_sampler(d);
	case JR_IF_GOVERNOR:
		return x && x->governor[0] &&
		       strcmp(x->governor, "performance");
	case JR_IF_DEEP_IDLE:
		return x && x->idle_latency_us > 10;
	case JR_IF_SIBLING_BUSY:
		return x && x->sibling_busy_pct > 5;
	case JR_IF_MOVABLE_KTHREAD:
		return x && comm && jr_in_list(x->kthreads, comm);
	case JR_IF_USER_TASK:
		return x && comm && jr_in_list(x->tasks, comm);
	default:
		return false;
	}
}
