// SPDX-License-Identifier: GPL-2.0
/*
 * jr_advise_rules.c - the mitigations jitread advise knows, as data, and
 * the audit conditions they depend on.  Documentation/advise.rst lists
 * each rule with its evidence and where the mitigation is documented.
 * Order matters: a row is evidence for the first rule that takes it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_parse.h"
#include "tune/jr_advise.h"

/* a rule's needs, instead, instead_needs and outside, when it has none */
#define JR_ANY_KERNEL 0, NULL, 0, false
#define JR_OUTSIDE_OS 0, NULL, 0, true

const struct jr_rule jr_rules[] = {
	{ "irqbalance", "irq:[0-9]*", NULL, JR_IF_IRQBALANCE, false, true,
	  "irqbalance runs and may place device IRQs on CPU {cpu}",
	  "`systemctl stop irqbalance`; or set IRQBALANCE_BANNED_CPULIST={cpu} in "
	  "/etc/default/irqbalance and restart it",
	  "Stopping irqbalance leaves every IRQ where it is: move them (see "
	  "irq-affinity).",
	  "`pgrep -x irqbalance` prints nothing, or its banned list holds {cpu}",
	  "irqbalance(1); Red Hat's low-latency tuning guide", JR_ANY_KERNEL },
	{ "irq-affinity", "irq:[0-9]*", NULL, JR_IF_ANY, true, false,
	  "device IRQ {irq} ({comm}) is served on CPU {cpu}",
	  "`echo {hk} > /proc/irq/{irq}/smp_affinity_list`",
	  "A managed IRQ (NVMe, multiqueue NICs) refuses a new affinity: boot with "
	  "isolcpus=managed_irq,domain,{cpu} instead. irqbalance, if it runs, may "
	  "move it back.",
	  "`cat /proc/irq/{irq}/effective_affinity_list` shows no {cpu}; a new run "
	  "has no irq:{irq} row",
	  "Documentation/core-api/irq/irq-affinity.rst; LMAX, Reducing system "
	  "jitter",
	  JR_ANY_KERNEL },
	{ "vmstat", "thread:*", "work:vmstat_update", JR_IF_STAT_SHORT, false,
	  false, "the vmstat counters are folded on CPU {cpu} (vmstat_update)",
	  "`sysctl -w vm.stat_interval=120`",
	  "/proc/vmstat and per-zone counters are then up to 120 s old. On "
	  "nohz_full CPUs the kernel also folds them when the tick stops.",
	  "a new run has no work:vmstat_update row on CPU {cpu}",
	  "Documentation/admin-guide/sysctl/vm.rst (stat_interval); IBM, OS jitter "
	  "mitigation",
	  JR_ANY_KERNEL },
	{ "tick-hrtimer", "irq:local_timer", "hrtimer:tick_sched_timer",
	  JR_IF_NEVER, false, false, "", "", "", "", "", JR_ANY_KERNEL },
	{ "tick-rcu", "irq:local_timer", "tick:*RCU*", JR_IF_ANY, false, false,
	  "RCU keeps the tick on CPU {cpu}",
	  "boot with rcu_nocbs={cpu} (with nohz_full={cpu}), and rcu_nocb_poll if "
	  "the wake-ups of the offload threads matter",
	  "Judge tick findings from jitread user too: nohz_full stops the tick only "
	  "while one task runs, and jitmod's sampler is a kernel thread.",
	  "a new run has no tick:...RCU row under irq:local_timer",
	  "Documentation/timers/no_hz.rst; "
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  JR_KF(JR_KF_RCU_NOCB),
	  "boot a kernel built with CONFIG_RCU_NOCB_CPU=y, then offload CPU {cpu}'s "
	  "callbacks with its rcu_nocbs boot parameter",
	  0, false },
	{ "tick-posix-timer", "irq:local_timer", "tick:*POSIX_TIMER*",
	  JR_IF_ANY, false, false,
	  "a POSIX CPU-time timer keeps the tick on CPU {cpu}",
	  "remove the CPU-clock timer of the task on CPU {cpu} (setitimer "
	  "ITIMER_PROF/VIRTUAL, timer_create on a CPU clock, RLIMIT_CPU)",
	  "Judge tick findings from jitread user too: nohz_full stops the tick only "
	  "while one task runs.",
	  "a new run has no tick:...POSIX_TIMER row",
	  "Documentation/timers/no_hz.rst", JR_ANY_KERNEL },
	{ "tick-perf", "irq:local_timer", "tick:*PERF_EVENTS*", JR_IF_ANY,
	  false, false, "perf events keep the tick on CPU {cpu}",
	  "stop the perf session or monitoring agent that counts on CPU {cpu} (perf "
	  "stat/record, PMU exporters)",
	  "Judge tick findings from jitread user too.",
	  "a new run has no tick:...PERF_EVENTS row",
	  "Documentation/timers/no_hz.rst", JR_ANY_KERNEL },
	{ "nohz-full", "irq:local_timer", NULL, JR_IF_NOT_NOHZ, false, false,
	  "the scheduler tick interrupts CPU {cpu}, which is not nohz_full",
	  "boot with nohz_full={cpu} rcu_nocbs={cpu} (and "
	  "isolcpus=domain,managed_irq,{cpu} to keep tasks and managed IRQs away)",
	  "nohz_full stops the tick only while one task runs on the CPU, and adds "
	  "cost to system calls and context switches: judge it from jitread user, "
	  "with the application's own thread.",
	  "`cat /sys/devices/system/cpu/nohz_full` holds {cpu}; irq:local_timer's "
	  "rate falls in a new run",
	  "Documentation/timers/no_hz.rst", JR_KF(JR_KF_NO_HZ_FULL),
	  "boot a kernel built with CONFIG_NO_HZ_FULL=y (most distributions' are), "
	  "then give it CPU {cpu} in its nohz_full and rcu_nocbs boot parameters; "
	  "this kernel has no way to stop the tick",
	  0, false },
	{ "rcu-nocbs", "thread:rcuc/*", NULL, JR_IF_NOT_NOCB, false, false,
	  "RCU callbacks run on CPU {cpu} (rcuc)", "boot with rcu_nocbs={cpu}",
	  "The offloaded callbacks then run in rcuo threads: keep those on "
	  "housekeeping CPUs.",
	  "a new run has no thread:rcuc row on CPU {cpu}",
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  JR_KF(JR_KF_RCU_NOCB),
	  "boot a kernel built with CONFIG_RCU_NOCB_CPU=y, then offload CPU {cpu}'s "
	  "callbacks with its rcu_nocbs boot parameter",
	  0, false },
	{ "unbound-workqueue", "thread:kworker/u*", NULL, JR_IF_IN_WQ_MASK,
	  false, false, "unbound work items run on CPU {cpu}",
	  "`echo {hkmask} > /sys/devices/virtual/workqueue/cpumask`",
	  "Per-CPU work (kworker/{cpu}:N) is not moved by this mask.",
	  "`cat /sys/devices/virtual/workqueue/cpumask`; a new run has no kworker/u "
	  "row",
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  JR_ANY_KERNEL },
	{ "timer-migration", "softirq:TIMER", "timer:*", JR_IF_TIMER_MIG_OFF,
	  false, true, "timers expire on CPU {cpu} with timer migration off",
	  "`sysctl -w kernel.timer_migration=1`",
	  "Pinned timers stay where they were armed.",
	  "`sysctl kernel.timer_migration` reads 1; fewer timer rows in a new run",
	  "Documentation/admin-guide/sysctl/kernel.rst (timer_migration)",
	  JR_ANY_KERNEL },
	{ "nmi-watchdog", "nmi:perf_event_nmi_handler", NULL,
	  JR_IF_NMI_WATCHDOG, false, false,
	  "the hard-lockup watchdog's NMIs hit CPU {cpu}",
	  "`sysctl -w kernel.nmi_watchdog=0` (or boot with nmi_watchdog=0)",
	  "Hard lockups are then no longer detected on this machine.",
	  "a new run has no nmi:perf_event_nmi_handler row",
	  "Documentation/admin-guide/lockup-watchdogs.rst", JR_ANY_KERNEL },
	{ "khugepaged", "thread:khugepaged*", NULL, JR_IF_ANY, true, false,
	  "khugepaged ran on CPU {cpu}",
	  "`taskset -pc {hk} {pid}`; and `echo madvise > "
	  "/sys/kernel/mm/transparent_hugepage/enabled`",
	  "With THP on madvise, only mappings that ask get huge pages.",
	  "a new run has no thread:khugepaged row",
	  "Documentation/admin-guide/mm/transhuge.rst", JR_KF(JR_KF_THP),
	  "`taskset -pc {hk} {pid}`", 0, false },
	{ "rt-throttling", "thread:*", NULL, JR_IF_RT_THROTTLE_FIFO, false,
	  true,
	  "RT throttling can take CPU {cpu} from its FIFO task for other tasks",
	  "`sysctl -w kernel.sched_rt_runtime_us=-1`",
	  "A runaway FIFO task can then hang its CPU: keep housekeeping CPUs for "
	  "everything else.",
	  "`sysctl kernel.sched_rt_runtime_us` reads -1",
	  "Documentation/scheduler/sched-rt-group.rst", JR_ANY_KERNEL },
	{ "kthread-affinity", "thread:*", NULL, JR_IF_MOVABLE_KTHREAD, true,
	  false, "kernel thread {comm} (pid {pid}) ran on CPU {cpu}",
	  "`taskset -pc {hk} {pid}`",
	  "Per-CPU kernel threads cannot move; this one may run elsewhere.",
	  "`taskset -pc {pid}` shows {hk}; a new run has no row for it",
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  JR_ANY_KERNEL },
	{ "task-affinity", "thread:*", NULL, JR_IF_USER_TASK, true, false,
	  "task {comm} (pid {pid}) ran on CPU {cpu}",
	  "`taskset -pc {hk} {pid}`; start it outside {cpu} (taskset, a cpuset, "
	  "systemd CPUAffinity=)",
	  "isolcpus=domain,{cpu} keeps new tasks off the CPU unless asked.",
	  "`taskset -pc {pid}` shows {hk}; a new run has no row for it",
	  "taskset(1); systemd.exec(5) CPUAffinity=", JR_ANY_KERNEL },
	{ "work-item", "thread:kworker/*", "work:*", JR_IF_ANY, true, false,
	  "work item {fn} runs on CPU {cpu}",
	  "find who queues it: `trace-cmd record -e workqueue:workqueue_queue_work "
	  "-f 'function == {fn}'`, then stop or move that queuer",
	  "Per-CPU work follows the CPU it is queued on; unbound work follows the "
	  "workqueue cpumask.",
	  "a new run has no work:{fn} row",
	  "Documentation/core-api/workqueue.rst", JR_KF(JR_KF_TRACE_EVENTS),
	  "find who queues it with the function tracer: `trace-cmd record -p "
	  "function -l __queue_work --func-stack`, then stop or move that queuer",
	  JR_KF(JR_KF_FTRACE_FILTER), false },
	{ "timer-callback", "softirq:*", "*timer:*", JR_IF_ANY, true, false,
	  "timer callback {fn} fires on CPU {cpu}",
	  "find who arms it: `trace-cmd record -e timer:timer_start -e "
	  "timer:hrtimer_start -f 'function == {fn}'`, then stop or move that user",
	  "A pinned timer fires where it was armed, whatever timer_migration says.",
	  "a new run has no timer row for {fn}",
	  "Documentation/timers/timers-howto.rst", JR_KF(JR_KF_TRACE_EVENTS),
	  "find who arms it with the function tracer: `trace-cmd record -p function "
	  "-l add_timer -l mod_timer -l hrtimer_start_range_ns --func-stack`, then "
	  "stop or move that user",
	  JR_KF(JR_KF_FTRACE_FILTER), false },
	{ "ipi-function", "irq:call_function*", "ipi:*", JR_IF_ANY, true, false,
	  "{from} makes CPU {cpu} run {fn} by IPI",
	  "find what asks for it: `trace-cmd record -e csd:csd_queue_cpu -f 'cpu == "
	  "{cpu}' -T` (the stack of each request), then stop that task or keep it "
	  "off the memory and CPUs of CPU {cpu}'s task",
	  "perf and monitoring agents counting on CPU {cpu} send remote_function; a "
	  "process whose threads share memory with CPU {cpu}'s task sends TLB "
	  "flushes (flush_tlb_func) when it unmaps or changes protection.",
	  "a new run has no ipi:{fn} row",
	  "include/trace/events/csd.h; "
	  "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  JR_KF(JR_KF_CSD_EVENTS),
	  "find what asks for it with the function tracer (this kernel has no csd "
	  "events): `trace-cmd record -p function -l smp_call_function_single -l "
	  "smp_call_function_many_cond --func-stack`, then stop that task or keep it "
	  "off the memory and CPUs of CPU {cpu}'s task",
	  JR_KF(JR_KF_FTRACE_FILTER), false },
	{ "governor", "hw:unknown", NULL, JR_IF_GOVERNOR, false, true,
	  "CPU {cpu} scales its frequency",
	  "`cpupower -c {cpu} frequency-set -g performance`",
	  "More power and heat; turbo changes still happen.",
	  "`cat /sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor` reads "
	  "performance",
	  "Documentation/admin-guide/pm/cpufreq.rst", JR_NEED_PERF_GOVERNOR,
	  "this CPU's cpufreq driver offers no performance governor: keep it at its "
	  "top speed instead, `cat "
	  "/sys/devices/system/cpu/cpu{cpu}/cpufreq/cpuinfo_max_freq > "
	  "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_min_freq`",
	  0, false },
	{ "c-states", "hw:unknown", NULL, JR_IF_DEEP_IDLE, false, true,
	  "CPU {cpu} may enter deep idle states",
	  "`cpupower -c {cpu} idle-set -D 10` (or boot with processor.max_cstate=1 "
	  "intel_idle.max_cstate=0)",
	  "A busy-polling thread never idles: this matters for threads that sleep "
	  "and wake. More power.",
	  "`cpupower -c {cpu} idle-info` lists the deep states as disabled",
	  "Documentation/admin-guide/pm/cpuidle.rst", JR_ANY_KERNEL },
	{ "smt-sibling", "hw:unknown", NULL, JR_IF_SIBLING_BUSY, false, true,
	  "CPU {cpu}'s SMT sibling {sib} is busy and shares its core",
	  "keep CPU {sib} idle, or `echo 0 > /sys/devices/system/cpu/cpu{sib}/online` "
	  "(or boot with nosmt)",
	  "Offlining a sibling halves that core's threads.",
	  "`cat /sys/devices/system/cpu/cpu{sib}/online` reads 0, or the sibling is "
	  "idle in a new run",
	  "Documentation/admin-guide/hw-vuln/core-scheduling.rst",
	  JR_ANY_KERNEL },
	{ "smi", "hw:smi", NULL, JR_IF_ANY, false, false,
	  "System Management Interrupts stole CPU {cpu} from the OS",
	  "in the firmware setup, turn off what runs in SMM: OS-visible power "
	  "management left to firmware, USB legacy emulation, memory error "
	  "scrubbing by firmware",
	  "SMIs cannot be masked by the OS; some are needed for thermal protection.",
	  "hw:smi falls in a new run (MSR 0x34 counts SMIs on Intel)",
	  "IBM, OS jitter mitigation; rtla hwnoise", JR_OUTSIDE_OS },
	{ "steal", "hw:steal", NULL, JR_IF_ANY, false, false,
	  "the hypervisor ran something else on CPU {cpu}'s host core",
	  "pin this vCPU to a dedicated, isolated host core (libvirt vcpupin, KVM "
	  "with isolated host CPUs), or use a dedicated-core instance",
	  "Steal is invisible inside the guest but for the steal clock.",
	  "hw:steal falls in a new run",
	  "KVM steal time; Red Hat real-time virtualization tuning",
	  JR_OUTSIDE_OS },
	{ "hw-hypervisor", "hw:unknown", NULL, JR_IF_VIRTUAL, false, false,
	  "no kernel code ran in these gaps of CPU {cpu}, and this is a virtual "
	  "machine ({hv}): the hypervisor took them (vCPU preemption, exits, host "
	  "interrupts)",
	  "give each measured vCPU a host core of its own that nothing else runs "
	  "on: pin it (libvirt vcpupin and emulatorpin, or the VMM's own CPU "
	  "affinity), isolate that core on the host and keep the host's IRQs and "
	  "threads off it; in a cloud, a dedicated-host or bare-metal instance",
	  "{tell}",
	  "hw:unknown's share falls in a new run; on the host, the vCPU thread's "
	  "nonvoluntary_ctxt_switches in /proc/PID/status stop rising",
	  "Red Hat, real-time virtualization tuning; KVM steal time",
	  JR_OUTSIDE_OS },
	{ "hw-firmware", "hw:unknown", NULL, JR_IF_BARE_METAL, false, false,
	  "no kernel code ran in these gaps of CPU {cpu} on bare metal: SMIs, "
	  "firmware and power management took them",
	  "measure them with hwlatdetect (rt-tests) while the CPUs are idle; in the "
	  "firmware setup, turn off what runs in SMM and the power saving left to "
	  "firmware (package C-states, P-state control, USB legacy emulation); keep "
	  "the performance governor and shallow idle states (jitread audit)",
	  "{tell}",
	  "hwlatdetect finds fewer or shorter gaps; hw:unknown's share falls in a "
	  "new run",
	  "IBM, OS jitter mitigation; rtla hwnoise; hwlatdetect(8)",
	  JR_OUTSIDE_OS },
	{ "hw-unknown", "hw:unknown", NULL, JR_IF_PLATFORM_UNKNOWN, false,
	  false,
	  "no kernel code ran in these gaps of CPU {cpu}: a hypervisor took them, "
	  "or on bare metal SMIs and firmware",
	  "run jitread audit on the machine measured and advise with it (--audit): "
	  "it tells a virtual machine from bare metal, and the advice then names "
	  "what to change",
	  "{tell}", "the advice names the hypervisor or the firmware",
	  "rtla hwnoise; hwlatdetect(8)", JR_OUTSIDE_OS },
};

const int jr_nr_rules = sizeof(jr_rules) / sizeof(jr_rules[0]);

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
		return x && comm && jr_audit_has_word(x->kthreads, comm);
	case JR_IF_USER_TASK:
		return x && comm && jr_audit_has_word(x->tasks, comm);
	case JR_IF_VIRTUAL:
		return a->virt == JR_YES;
	case JR_IF_BARE_METAL:
		return a->virt == JR_NO;
	case JR_IF_PLATFORM_UNKNOWN:
		return a->virt == JR_UNKNOWN;
	default:
		return false;
	}
}

/*
 * jr_adv_needs_in - the needs (JR_KF() bits, JR_NEED_PERF_GOVERNOR) that
 * are in state (enum jr_tri) for the audited kernel and CPU x.
 */
unsigned int jr_adv_needs_in(unsigned int needs, int state,
			     const struct jr_audit *a,
			     const struct jr_audit_cpu *x)
{
	unsigned int out = 0;
	int f;

	for (f = 0; f < JR_KF_NR; f++)
		if ((needs & JR_KF(f)) && a->kfeat[f] == state)
			out |= JR_KF(f);
	if ((needs & JR_NEED_PERF_GOVERNOR) &&
	    (x ? x->perf_governor : JR_UNKNOWN) == state)
		out |= JR_NEED_PERF_GOVERNOR;
	return out;
}

/* jr_adv_need_name - a need bit as people read it */
const char *jr_adv_need_name(int bit)
{
	if (bit < JR_KF_NR)
		return jr_kfeat_name(bit);
	return "cpufreq's performance governor";
}

/*
 * jr_adv_hw_tell - what can tell the hardware's gaps apart on the
 * audited machine, and whether the report's run could: the steal clock
 * in a guest; the SMI counter (Intel's MSR 0x34), hwlatdetect and the
 * power settings on bare metal.  The user sampler reads neither counter
 * per gap, so a user-side report cannot split what jitmod could.
 */
void jr_adv_hw_tell(const struct jr_audit *a, const struct jr_audit_cpu *x,
		    const struct jr_rdoc *d, char *buf, size_t len)
{
	bool user = !strcmp(d->side, "user");
	const char *intel = "GenuineIntel";
	int cpu = x ? x->cpu : -1;

	if (a->virt == JR_UNKNOWN) {
		snprintf(
			buf, len,
			"The audit does not say whether this is a virtual machine (it has "
			"no /proc/cpuinfo): in one, the hypervisor takes these gaps; on "
			"bare metal, SMIs, firmware and power management.");
	} else if (a->virt == JR_YES && x && x->steal_ms > 0) {
		snprintf(
			buf, len,
			"The steal clock runs here (CPU %d: %lld ms of steal since boot): "
			"jitmod counts a gap's stolen time as hw:steal, and leaves in "
			"hw:unknown what the hypervisor took without calling it steal "
			"(exits, host interrupts, emulation).%s",
			cpu, x->steal_ms,
			user ? " This run is the user sampler's, which cannot read steal "
			       "per gap: jitread hist on jitmod splits the two." :
			       "");
	} else if (a->virt == JR_YES) {
		snprintf(
			buf, len,
			"The steal clock shows %s on CPU %d: nothing inside this guest "
			"then tells vCPU preemption from other hardware gaps. The host "
			"can: perf kvm stat, or the vCPU thread's involuntary switches.",
			x && x->steal_ms == 0 ? "no steal since boot" :
						"nothing it can read",
			cpu);
	} else if (!strcmp(a->cpu_vendor, intel)) {
		snprintf(
			buf, len,
			"MSR 0x34 counts SMIs on this Intel CPU: jitmod counts a gap with an "
			"SMI as hw:smi, so these gaps had none.%s hwlatdetect (rt-tests) with "
			"the CPUs idle shows what firmware and power management take. Here: "
			"governor %s, deepest idle state's exit %" PRIu64
			" us.",
			user ? " This run is the user sampler's, which cannot read the counter "
			       "per gap: jitread hist on jitmod splits SMIs out." :
			       "",
			x && x->governor[0] ? x->governor : "none",
			x ? x->idle_latency_us : 0);
	} else {
		snprintf(
			buf, len,
			"This CPU (%s) has no SMI counter the OS can read, so no run can "
			"tell SMIs from other hardware gaps; hwlatdetect (rt-tests) with "
			"the CPUs idle shows the gaps that no OS code causes. Here: "
			"governor %s, deepest idle state's exit %" PRIu64
			" us.",
			a->cpu_vendor[0] ? a->cpu_vendor : "vendor unknown",
			x && x->governor[0] ? x->governor : "none",
			x ? x->idle_latency_us : 0);
	}
}
