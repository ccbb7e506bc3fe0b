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
#include "tune/jr_tune_limits.h"

const struct jr_rule jr_rules[] = {
	{ .id = "irqbalance",
	  .source = "irq:[0-9]*",
	  .cond = JR_IF_IRQBALANCE,
	  .shares = true,
	  .what = "irqbalance runs and may place device IRQs on CPU {cpu}",
	  .fix = "`systemctl stop irqbalance`; or set "
		 "IRQBALANCE_BANNED_CPULIST={cpu} in /etc/default/irqbalance "
		 "and restart it",
	  .caveat =
		  "Stopping irqbalance leaves every IRQ where it is: move them "
		  "(see irq-affinity).",
	  .verify = "`pgrep -x irqbalance` prints nothing, or its banned list "
		    "holds {cpu}",
	  .ref = "irqbalance(1); Red Hat's low-latency tuning guide" },
	{ .id = "irq-affinity",
	  .source = "irq:[0-9]*",
	  .cond = JR_IF_ANY,
	  .per_row = true,
	  .what = "device IRQ {irq} ({comm}) is served on CPU {cpu}",
	  .fix = "`echo {hk} > /proc/irq/{irq}/smp_affinity_list`",
	  .caveat =
		  "A managed IRQ (NVMe, multiqueue NICs) refuses a new affinity: "
		  "boot with isolcpus=managed_irq,domain,{cpu} instead. "
		  "irqbalance, if it runs, may move it back.",
	  .verify =
		  "`cat /proc/irq/{irq}/effective_affinity_list` shows no {cpu}; "
		  "a new run has no irq:{irq} row",
	  .ref = "Documentation/core-api/irq/irq-affinity.rst; LMAX, Reducing "
		 "system jitter" },
	{ .id = "vmstat",
	  .source = "thread:*",
	  .detail = "work:vmstat_update",
	  .cond = JR_IF_STAT_SHORT,
	  .what = "the vmstat counters are folded on CPU {cpu} (vmstat_update)",
	  .fix = "`sysctl -w vm.stat_interval=120`",
	  .caveat =
		  "/proc/vmstat and per-zone counters are then up to 120 s old. "
		  "On nohz_full CPUs the kernel also folds them when the tick "
		  "stops.",
	  .verify = "a new run has no work:vmstat_update row on CPU {cpu}",
	  .ref = "Documentation/admin-guide/sysctl/vm.rst (stat_interval); IBM, "
		 "OS jitter mitigation" },
	{ .id = "tick-hrtimer",
	  .source = "irq:local_timer",
	  .detail = "hrtimer:tick_sched_timer",
	  .cond = JR_IF_NEVER,
	  .what = "",
	  .fix = "",
	  .caveat = "",
	  .verify = "",
	  .ref = "" },
	{ .id = "tick-rcu",
	  .source = "irq:local_timer",
	  .detail = "tick:*RCU*",
	  .cond = JR_IF_ANY,
	  .what = "RCU keeps the tick on CPU {cpu}",
	  .fix = "boot with rcu_nocbs={cpu} (with nohz_full={cpu}), and "
		 "rcu_nocb_poll if the wake-ups of the offload threads matter",
	  .caveat =
		  "Judge tick findings from jitread user too: nohz_full stops "
		  "the tick only while one task runs, and jitmod's sampler is a "
		  "kernel thread.",
	  .verify = "a new run has no tick:...RCU row under irq:local_timer",
	  .ref = "Documentation/timers/no_hz.rst; "
		 "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  .needs = JR_KF(JR_KF_RCU_NOCB),
	  .instead =
		  "boot a kernel built with CONFIG_RCU_NOCB_CPU=y, then offload "
		  "CPU {cpu}'s callbacks with its rcu_nocbs boot parameter" },
	{ .id = "tick-posix-timer",
	  .source = "irq:local_timer",
	  .detail = "tick:*POSIX_TIMER*",
	  .cond = JR_IF_ANY,
	  .what = "a POSIX CPU-time timer keeps the tick on CPU {cpu}",
	  .fix = "remove the CPU-clock timer of the task on CPU {cpu} "
		 "(setitimer ITIMER_PROF/VIRTUAL, timer_create on a CPU clock, "
		 "RLIMIT_CPU)",
	  .caveat =
		  "Judge tick findings from jitread user too: nohz_full stops "
		  "the tick only while one task runs.",
	  .verify = "a new run has no tick:...POSIX_TIMER row",
	  .ref = "Documentation/timers/no_hz.rst" },
	{ .id = "tick-perf",
	  .source = "irq:local_timer",
	  .detail = "tick:*PERF_EVENTS*",
	  .cond = JR_IF_ANY,
	  .what = "perf events keep the tick on CPU {cpu}",
	  .fix = "stop the perf session or monitoring agent that counts on CPU "
		 "{cpu} (perf stat/record, PMU exporters)",
	  .caveat = "Judge tick findings from jitread user too.",
	  .verify = "a new run has no tick:...PERF_EVENTS row",
	  .ref = "Documentation/timers/no_hz.rst" },
	{ .id = "nohz-full",
	  .source = "irq:local_timer",
	  .cond = JR_IF_NOT_NOHZ,
	  .what = "the scheduler tick interrupts CPU {cpu}, which is not "
		  "nohz_full",
	  .fix = "boot with nohz_full={cpu} rcu_nocbs={cpu} (and "
		 "isolcpus=domain,managed_irq,{cpu} to keep tasks and managed "
		 "IRQs away)",
	  .caveat =
		  "nohz_full stops the tick only while one task runs on the CPU, "
		  "and adds cost to system calls and context switches: judge it "
		  "from jitread user, with the application's own thread.",
	  .verify = "`cat /sys/devices/system/cpu/nohz_full` holds {cpu}; "
		    "irq:local_timer's rate falls in a new run",
	  .ref = "Documentation/timers/no_hz.rst",
	  .needs = JR_KF(JR_KF_NO_HZ_FULL),
	  .instead =
		  "boot a kernel built with CONFIG_NO_HZ_FULL=y (most "
		  "distributions' are), then give it CPU {cpu} in its nohz_full "
		  "and rcu_nocbs boot parameters; this kernel has no way to stop "
		  "the tick" },
	{ .id = "rcu-nocbs",
	  .source = "thread:rcuc/*",
	  .cond = JR_IF_NOT_NOCB,
	  .what = "RCU callbacks run on CPU {cpu} (rcuc)",
	  .fix = "boot with rcu_nocbs={cpu}",
	  .caveat =
		  "The offloaded callbacks then run in rcuo threads: keep those "
		  "on housekeeping CPUs.",
	  .verify = "a new run has no thread:rcuc row on CPU {cpu}",
	  .ref = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  .needs = JR_KF(JR_KF_RCU_NOCB),
	  .instead =
		  "boot a kernel built with CONFIG_RCU_NOCB_CPU=y, then offload "
		  "CPU {cpu}'s callbacks with its rcu_nocbs boot parameter" },
	{ .id = "unbound-workqueue",
	  .source = "thread:kworker/u*",
	  .cond = JR_IF_IN_WQ_MASK,
	  .what = "unbound work items run on CPU {cpu}",
	  .fix = "`echo {hkmask} > /sys/devices/virtual/workqueue/cpumask`",
	  .caveat = "Per-CPU work (kworker/{cpu}:N) is not moved by this mask.",
	  .verify =
		  "`cat /sys/devices/virtual/workqueue/cpumask`; a new run has "
		  "no kworker/u row",
	  .ref = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst" },
	{ .id = "timer-migration",
	  .source = "softirq:TIMER",
	  .detail = "timer:*",
	  .cond = JR_IF_TIMER_MIG_OFF,
	  .shares = true,
	  .what = "timers expire on CPU {cpu} with timer migration off",
	  .fix = "`sysctl -w kernel.timer_migration=1`",
	  .caveat = "Pinned timers stay where they were armed.",
	  .verify =
		  "`sysctl kernel.timer_migration` reads 1; fewer timer rows in "
		  "a new run",
	  .ref = "Documentation/admin-guide/sysctl/kernel.rst (timer_migration)" },
	{ .id = "nmi-watchdog",
	  .source = "nmi:perf_event_nmi_handler",
	  .cond = JR_IF_NMI_WATCHDOG,
	  .what = "the hard-lockup watchdog's NMIs hit CPU {cpu}",
	  .fix = "`sysctl -w kernel.nmi_watchdog=0` (or boot with "
		 "nmi_watchdog=0)",
	  .caveat = "Hard lockups are then no longer detected on this machine.",
	  .verify = "a new run has no nmi:perf_event_nmi_handler row",
	  .ref = "Documentation/admin-guide/lockup-watchdogs.rst" },
	{ .id = "khugepaged",
	  .source = "thread:khugepaged*",
	  .cond = JR_IF_ANY,
	  .per_row = true,
	  .what = "khugepaged ran on CPU {cpu}",
	  .fix = "`taskset -pc {hk} {pid}`; and `echo madvise > "
		 "/sys/kernel/mm/transparent_hugepage/enabled`",
	  .caveat =
		  "With THP on madvise, only mappings that ask get huge pages.",
	  .verify = "a new run has no thread:khugepaged row",
	  .ref = "Documentation/admin-guide/mm/transhuge.rst",
	  .needs = JR_KF(JR_KF_THP),
	  .instead = "`taskset -pc {hk} {pid}`" },
	{ .id = "rt-throttling",
	  .source = "thread:*",
	  .cond = JR_IF_RT_THROTTLE_FIFO,
	  .shares = true,
	  .what = "RT throttling can take CPU {cpu} from its FIFO task for other "
		  "tasks",
	  .fix = "`sysctl -w kernel.sched_rt_runtime_us=-1`",
	  .caveat =
		  "A runaway FIFO task can then hang its CPU: keep housekeeping "
		  "CPUs for everything else.",
	  .verify = "`sysctl kernel.sched_rt_runtime_us` reads -1",
	  .ref = "Documentation/scheduler/sched-rt-group.rst" },
	{ .id = "kthread-affinity",
	  .source = "thread:*",
	  .cond = JR_IF_MOVABLE_KTHREAD,
	  .per_row = true,
	  .what = "kernel thread {comm} (pid {pid}) ran on CPU {cpu}",
	  .fix = "`taskset -pc {hk} {pid}`",
	  .caveat = "Per-CPU kernel threads cannot move; this one may run "
		    "elsewhere.",
	  .verify =
		  "`taskset -pc {pid}` shows {hk}; a new run has no row for it",
	  .ref = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst" },
	{ .id = "task-affinity",
	  .source = "thread:*",
	  .cond = JR_IF_USER_TASK,
	  .per_row = true,
	  .what = "task {comm} (pid {pid}) ran on CPU {cpu}",
	  .fix = "`taskset -pc {hk} {pid}`; start it outside {cpu} (taskset, a "
		 "cpuset, systemd CPUAffinity=)",
	  .caveat = "isolcpus=domain,{cpu} keeps new tasks off the CPU unless "
		    "asked.",
	  .verify =
		  "`taskset -pc {pid}` shows {hk}; a new run has no row for it",
	  .ref = "taskset(1); systemd.exec(5) CPUAffinity=" },
	{ .id = "work-item",
	  .source = "thread:kworker/*",
	  .detail = "work:*",
	  .cond = JR_IF_ANY,
	  .per_row = true,
	  .what = "work item {fn} runs on CPU {cpu}",
	  .fix = "find who queues it: `trace-cmd record -e "
		 "workqueue:workqueue_queue_work -f 'function == {fn}'`, then "
		 "stop or move that queuer",
	  .caveat =
		  "Per-CPU work follows the CPU it is queued on; unbound work "
		  "follows the workqueue cpumask.",
	  .verify = "a new run has no work:{fn} row",
	  .ref = "Documentation/core-api/workqueue.rst",
	  .needs = JR_KF(JR_KF_TRACE_EVENTS),
	  .instead =
		  "find who queues it with the function tracer: `trace-cmd "
		  "record -p function -l __queue_work --func-stack`, then stop "
		  "or move that queuer",
	  .instead_needs = JR_KF(JR_KF_FTRACE_FILTER) },
	{ .id = "timer-callback",
	  .source = "softirq:*",
	  .detail = "*timer:*",
	  .cond = JR_IF_ANY,
	  .per_row = true,
	  .what = "timer callback {fn} fires on CPU {cpu}",
	  .fix = "find who arms it: `trace-cmd record -e timer:timer_start -e "
		 "timer:hrtimer_start -f 'function == {fn}'`, then stop or move "
		 "that user",
	  .caveat = "A pinned timer fires where it was armed, whatever "
		    "timer_migration says.",
	  .verify = "a new run has no timer row for {fn}",
	  .ref = "Documentation/timers/timers-howto.rst",
	  .needs = JR_KF(JR_KF_TRACE_EVENTS),
	  .instead =
		  "find who arms it with the function tracer: `trace-cmd record "
		  "-p function -l add_timer -l mod_timer -l "
		  "hrtimer_start_range_ns --func-stack`, then stop or move that "
		  "user",
	  .instead_needs = JR_KF(JR_KF_FTRACE_FILTER) },
	{ .id = "ipi-function",
	  .source = "irq:call_function*",
	  .detail = "ipi:*",
	  .cond = JR_IF_ANY,
	  .per_row = true,
	  .what = "{from} makes CPU {cpu} run {fn} by IPI",
	  .fix = "find what asks for it: `trace-cmd record -e csd:csd_queue_cpu "
		 "-f 'cpu == {cpu}' -T` (the stack of each request), then stop "
		 "that task or keep it off the memory and CPUs of CPU {cpu}'s "
		 "task",
	  .caveat =
		  "perf and monitoring agents counting on CPU {cpu} send "
		  "remote_function; a process whose threads share memory with "
		  "CPU {cpu}'s task sends TLB flushes (flush_tlb_func) when it "
		  "unmaps or changes protection.",
	  .verify = "a new run has no ipi:{fn} row",
	  .ref = "include/trace/events/csd.h; "
		 "Documentation/admin-guide/kernel-per-CPU-kthreads.rst",
	  .needs = JR_KF(JR_KF_CSD_EVENTS),
	  .instead =
		  "find what asks for it with the function tracer (this kernel "
		  "has no csd events): `trace-cmd record -p function -l "
		  "smp_call_function_single -l smp_call_function_many_cond "
		  "--func-stack`, then stop that task or keep it off the memory "
		  "and CPUs of CPU {cpu}'s task",
	  .instead_needs = JR_KF(JR_KF_FTRACE_FILTER) },
	{ .id = "governor",
	  .source = "hw:unknown",
	  .cond = JR_IF_GOVERNOR,
	  .shares = true,
	  .what = "CPU {cpu} scales its frequency",
	  .fix = "`cpupower -c {cpu} frequency-set -g performance`",
	  .caveat = "More power and heat; turbo changes still happen.",
	  .verify =
		  "`cat "
		  "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor` "
		  "reads performance",
	  .ref = "Documentation/admin-guide/pm/cpufreq.rst",
	  .needs = JR_NEED_PERF_GOVERNOR,
	  .instead =
		  "this CPU's cpufreq driver offers no performance governor: "
		  "keep it at its top speed instead, `cat "
		  "/sys/devices/system/cpu/cpu{cpu}/cpufreq/cpuinfo_max_freq > "
		  "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_min_freq`" },
	{ .id = "c-states",
	  .source = "hw:unknown",
	  .cond = JR_IF_DEEP_IDLE,
	  .shares = true,
	  .what = "CPU {cpu} may enter deep idle states",
	  .fix = "`cpupower -c {cpu} idle-set -D 10` (or boot with "
		 "processor.max_cstate=1 intel_idle.max_cstate=0)",
	  .caveat =
		  "A busy-polling thread never idles: this matters for threads "
		  "that sleep and wake. More power.",
	  .verify = "`cpupower -c {cpu} idle-info` lists the deep states as "
		    "disabled",
	  .ref = "Documentation/admin-guide/pm/cpuidle.rst" },
	{ .id = "smt-sibling",
	  .source = "hw:unknown",
	  .cond = JR_IF_SIBLING_BUSY,
	  .shares = true,
	  .what = "CPU {cpu}'s SMT sibling {sib} is busy and shares its core",
	  .fix = "keep CPU {sib} idle, or `echo 0 > "
		 "/sys/devices/system/cpu/cpu{sib}/online` (or boot with nosmt)",
	  .caveat = "Offlining a sibling halves that core's threads.",
	  .verify =
		  "`cat /sys/devices/system/cpu/cpu{sib}/online` reads 0, or the "
		  "sibling is idle in a new run",
	  .ref = "Documentation/admin-guide/hw-vuln/core-scheduling.rst" },
	{ .id = "smi",
	  .source = "hw:smi",
	  .cond = JR_IF_ANY,
	  .what = "System Management Interrupts stole CPU {cpu} from the OS",
	  .fix = "in the firmware setup, turn off what runs in SMM: OS-visible "
		 "power management left to firmware, USB legacy emulation, "
		 "memory error scrubbing by firmware",
	  .caveat =
		  "SMIs cannot be masked by the OS; some are needed for thermal "
		  "protection.",
	  .verify = "hw:smi falls in a new run (MSR 0x34 counts SMIs on Intel)",
	  .ref = "IBM, OS jitter mitigation; rtla hwnoise",
	  .outside = true },
	{ .id = "steal",
	  .source = "hw:steal",
	  .cond = JR_IF_ANY,
	  .what = "the hypervisor ran something else on CPU {cpu}'s host core",
	  .fix = "pin this vCPU to a dedicated, isolated host core (libvirt "
		 "vcpupin, KVM with isolated host CPUs), or use a "
		 "dedicated-core instance",
	  .caveat =
		  "Steal is invisible inside the guest but for the steal clock.",
	  .verify = "hw:steal falls in a new run",
	  .ref = "KVM steal time; Red Hat real-time virtualization tuning",
	  .outside = true },
	{ .id = "hw-hypervisor",
	  .source = "hw:unknown",
	  .cond = JR_IF_VIRTUAL,
	  .what = "no kernel code ran in these gaps of CPU {cpu}, and this is a "
		  "virtual machine ({hv}): the hypervisor took them (vCPU "
		  "preemption, exits, host interrupts)",
	  .fix = "give each measured vCPU a host core of its own that nothing "
		 "else runs on: pin it (libvirt vcpupin and emulatorpin, or the "
		 "VMM's own CPU affinity), isolate that core on the host and "
		 "keep the host's IRQs and threads off it; in a cloud, a "
		 "dedicated-host or bare-metal instance",
	  .caveat = "{tell}",
	  .verify =
		  "hw:unknown's share falls in a new run; on the host, the vCPU "
		  "thread's nonvoluntary_ctxt_switches in /proc/PID/status stop "
		  "rising",
	  .ref = "Red Hat, real-time virtualization tuning; KVM steal time",
	  .outside = true },
	{ .id = "hw-firmware",
	  .source = "hw:unknown",
	  .cond = JR_IF_BARE_METAL,
	  .what = "no kernel code ran in these gaps of CPU {cpu} on bare metal: "
		  "SMIs, firmware and power management took them",
	  .fix = "measure them with hwlatdetect (rt-tests) while the CPUs are "
		 "idle; in the firmware setup, turn off what runs in SMM and "
		 "the power saving left to firmware (package C-states, P-state "
		 "control, USB legacy emulation); keep the performance governor "
		 "and shallow idle states (jitread audit)",
	  .caveat = "{tell}",
	  .verify =
		  "hwlatdetect finds fewer or shorter gaps; hw:unknown's share "
		  "falls in a new run",
	  .ref = "IBM, OS jitter mitigation; rtla hwnoise; hwlatdetect(8)",
	  .outside = true },
	{ .id = "hw-unknown",
	  .source = "hw:unknown",
	  .cond = JR_IF_PLATFORM_UNKNOWN,
	  .what = "no kernel code ran in these gaps of CPU {cpu}: a hypervisor "
		  "took them, or on bare metal SMIs and firmware",
	  .fix = "run jitread audit on the machine measured and advise with it "
		 "(--audit): it tells a virtual machine from bare metal, and "
		 "the advice then names what to change",
	  .caveat = "{tell}",
	  .verify = "the advice names the hypervisor or the firmware",
	  .ref = "rtla hwnoise; hwlatdetect(8)",
	  .outside = true },
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
		return x && x->idle_latency_us > JR_DEEP_IDLE_US;
	case JR_IF_SIBLING_BUSY:
		return x && x->sibling_busy_pct > JR_SIBLING_BUSY_PCT;
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
