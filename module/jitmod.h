/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitmod.h - state shared by the sampler, the probes and the lifecycle code.
 */
#ifndef JITMOD_H
#define JITMOD_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "jitmod_abi.h"
#include "jitmod_arch.h"
#include "jitmod_kcompat.h"

struct kvm_steal_time;

/* Classes that have a probe-driven window; the hw classes have none. */
#define JIT_NR_INTF (JIT_NOISE_THREAD + 1)

/*
 * struct jit_window - one interference class's open window on a CPU.
 * @delta_start: TSC from which its own time counts; a nested, higher
 *               priority window pushes it forward by its own length, so
 *               that the duration on exit is net of nesting.
 * @depth:       entries not yet exited (a window opens at depth 0 only).
 */
/* IPI senders remembered per sampled CPU: queued but not yet run */
#define JIT_CSD_Q 8
#define JIT_SOFTIRQ_PARK 4

/*
 * struct jit_softirq_park - a softirq window of a task switched out in
 * the middle of it (PREEMPT_RT), kept aside while other tasks run.
 */
struct jit_softirq_park {
	struct task_struct *owner;	/* NULL: free */
	u64 delta_start;
	int depth;
	u64 paused;
	u64 pushed;
};

struct jit_window {
	u64 delta_start;
	int depth;
};

/*
 * struct jit_cpu - everything jitmod keeps for one CPU.
 *
 * The probes write the interference fields only on their own CPU, in
 * interrupt, NMI or scheduler context; the sampler kthread pinned to that
 * CPU reads them.  Hence no locks: READ_ONCE/WRITE_ONCE and compiler
 * barriers are enough, because writer and reader share one CPU.  The one
 * exception is csd_q, which the CPUs that queue IPI functions for this
 * one write (jitmod_detail.c).
 */
struct jit_cpu {
	struct task_struct *task;
	bool sampling;			/* probes act only while set */
	u64 sleep_end_ns;		/* ktime the sleep ends, 0 awake */
	unsigned int cpu;

	/* Interference bookkeeping, written by probes on this CPU. */
	u64 int_count;			/* any interference entered */
	u64 count[JIT_NR_INTF];		/* entries per class */
	u64 net_cyc[JIT_NR_INTF];	/* net time per class, TSC cycles */
	struct jit_window irq;
	struct jit_window softirq;
	struct jit_window thread;
	pid_t thread_pid;
	char thread_comm[TASK_COMM_LEN];
	/* PREEMPT_RT: the task running the open softirq window */
	struct task_struct *softirq_owner;
	u64 softirq_paused;		/* TSC when that task was switched out */
	u64 softirq_pushed;		/* its time already taken off threads */
	/* the softirqs of other tasks switched out inside theirs */
	struct jit_softirq_park softirq_park[JIT_SOFTIRQ_PARK];
	u64 anomalies;			/* impossible states seen, jit_anomaly() */
	u32 anomaly_mask;		/* their kinds, BIT(enum jit_anomaly) */
	u64 nmi_mark;			/* TSC up to which NMI time is counted */
	bool smi_ok;			/* MSR_SMI_COUNT is readable here */
	u64 last_smi;
	struct kvm_steal_time *steal_st;	/* KVM's record, or NULL */
	u64 last_steal_ns;

	/* Details (jitmod_detail.c): the callback running in each window. */
	u64 work_start;			/* TSC at the work item's start, or 0 */
	void *work_fn;
	pid_t work_pid;
	u64 timer_start;
	void *timer_fn;
	u64 hrt_start[2];		/* [0] in hard irq, [1] in a softirq */
	void *hrt_fn[2];
	u32 tick_dep;			/* what kept the tick since the last */
					/* local_timer interrupt, TICK_DEP_MASK_* */
	u64 csd_start;			/* the IPI function running, or 0 */
	void *csd_fn;
	u32 csd_from;			/* the CPU that asked, or U32_MAX */
	/* who queued csds for this CPU, written by the queueing CPUs */
	struct jit_csd_from {
		void *csd;
		u32 cpu;
	} csd_q[JIT_CSD_Q];
	atomic_t csd_seq;
};

DECLARE_PER_CPU(struct jit_cpu, jit_cpus);

struct jit_cpu *jit_cpu_get(unsigned int cpu);

/*
 * jit_this_cpu - this CPU's state, for probes, which must not be preempted
 * or migrated while they use it.  Up to 6.x a tracepoint disables
 * preemption around its probes; from 7.x (tracepoint.h's
 * guard(srcu_fast_notrace)) it does not, so a probe that can be called
 * from task context (a work item's kworker, and on PREEMPT_RT a softirq or
 * timer callback in its thread) disables preemption itself.
 */
static __always_inline struct jit_cpu *jit_this_cpu(void)
{
	return this_cpu_ptr(&jit_cpus);
}

/*
 * JIT_PINNED_HOOK - define hook_NAME(PROTO), which calls jit_NAME(ARGS)
 * with preemption disabled, for a tracepoint that may call it preemptible.
 */
#define JIT_PINNED_HOOK(name, proto, args)	\
	static void hook_##name proto		\
	{					\
		preempt_disable_notrace();	\
		jit_##name args;		\
		preempt_enable_notrace();	\
	}

/*
 * The duty: what a write changes without a restart (jitmod_duty.c).  Each
 * sampler takes a copy when a period starts (jit_duty_get()).
 */
struct jit_duty {
	u64 threshold_ns;
	u64 period_us;
	u64 runtime_us;
	u64 stop_us;
	u64 stop_total_us;
	u64 warmup_us;
};

/* Parameters, in their units; the rest restart the samplers. */
struct jit_params {
	struct jit_duty duty;
	unsigned int prio;
	bool irqs_off;			/* sample with interrupts disabled */
};

/*
 * The longest runtime_us with irqs_off: rtla hwnoise's default runtime.
 * The soft and hard lockup watchdogs fire after 10 s or more without
 * interrupts, RCU's stall warning after 21 s.
 */
#define JIT_IRQS_OFF_MAX_US	1000000ULL

extern struct jit_params jit_params;
extern bool jit_stopped;
extern bool jit_halting;

/*
 * jit_anomaly - count a state that cannot happen, without WARN.
 *
 * A measuring tool must not taint or, under panic_on_warn, panic the
 * machine it measures.  Like osnoise_taint(), the state is counted and
 * reported: the period's summary event carries the count and the kinds,
 * and the sampler logs one rate-limited line.  Probes call this in NMI
 * and scheduler context, where printk is not safe, so it only counts.
 */
static __always_inline void jit_anomaly(struct jit_cpu *jc,
					enum jit_anomaly kind)
{
	WRITE_ONCE(jc->anomalies, jc->anomalies + 1);
	WRITE_ONCE(jc->anomaly_mask, jc->anomaly_mask | BIT(kind));
}

void jit_conv_init(void);
u64 jit_cyc_to_ns(u64 cyc);
u64 jit_cyc_to_ps(u64 cyc);
u64 jit_ns_to_cyc(u64 ns);
int jit_sampler_fn(void *data);

/* struct jit_tp - one tracepoint we attach to. */
struct jit_tp {
	char name[40];
	void *probe;
	void *data;
	bool required;
	struct tracepoint *tp;
	bool hooked;
};

int jit_tps_hook(struct jit_tp *tps, int nr);
void jit_tps_unhook(struct jit_tp *tps, int nr);
int jit_probes_hook(void);
void jit_probes_unhook(void);

extern struct mutex jit_lock;
extern bool jit_ready;
int jit_restart(void (*apply)(void *), void *arg);

/* jitmod_duty.c */
extern unsigned long jit_duty_gen;
unsigned long jit_duty_get(struct jit_duty *d);
void jit_duty_wake(u64 period_us);
bool jit_runtime_fits(u64 runtime_us, u64 period_us);
bool jit_irqs_off_fits(u64 runtime_us, bool irqs_off);
bool jit_duty_fits(const struct jit_duty *d, bool irqs_off);

void jit_cgroup_join_all(const struct cpumask *mask);
void jit_cgroup_online(unsigned int cpu);
void jit_cgroup_exit(void);

int jit_detail_hook(void);
void jit_detail_unhook(void);
void jit_detail_tick(struct jit_cpu *jc);
int jit_detail_names(char *buf, size_t len);

#endif /* JITMOD_H */
