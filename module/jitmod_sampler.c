// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_sampler.c - the per-CPU TSC sampling loop.
 *
 * Each sampled CPU runs one kthread that reads the TSC in a tight loop with
 * interrupts enabled.  Whenever two consecutive reads are further apart than
 * the threshold, something took the CPU away: the probes in jitmod_probes.c
 * tell what, and the gap becomes a jitmod:gap event.
 *
 * With irqs_off set, the loop runs with local interrupts disabled for the
 * whole runtime, as the osnoise tracer does under rtla hwnoise: no
 * interrupt, softirq or other task can take the CPU, so a gap is an NMI or
 * something below the kernel (SMM, the hypervisor, the hardware).  The
 * interrupts that arrive meanwhile wait, and are taken when the window
 * ends: the summary counts them as held, never as gaps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include "jitmod.h"
#include "jitmod_hw.h"
#include "jitmod_trace.h"

/* Sleep used when runtime_us == period_us, so the thread still yields. */
#define JIT_MIN_SLEEP_US 100
/* a sleep longer than this is cut short by a duty write */
#define JIT_DUTY_PROMPT_US 1000000ULL
/*
 * Look outside the loop (a stop, a new duty, the runtime's end) once per
 * this much time: a stop waits at most this long.  The poll is a compare
 * of the clock read the loop makes anyway, against a deadline kept in a
 * register, so it costs the loop nothing until it is due.
 */
#define JIT_POLL_NS 10000
/*
 * Report an RCU quiescent state once per this many + 1 polls: about
 * 0.3 ms, far inside the delay after which RCU forces one, and rare
 * enough that its cost (interrupts off and on, an atomic) stays out of
 * the loop's average.
 */
#define JIT_RCU_QS_MASK 0x1fU
/*
 * Gaps shorter than this are not checked for SMIs or steal time.  Reading
 * MSR_SMI_COUNT is itself a VM exit of a microsecond or more under a
 * hypervisor, so reading it for every small gap would make noise.  And
 * neither cause fits in less: entering and leaving SMM saves and restores
 * the whole CPU state (several microseconds before any SMI handler runs),
 * and a vCPU that a host deschedules is away for at least a host context
 * switch plus a VM exit and entry.  Counts from shorter gaps are not lost:
 * they are charged to the next gap above the floor.  Gaps with
 * interference are read too, so an SMI that shares a gap with an
 * interrupt is counted in that gap, not in a later quiet one.
 */
#define JIT_HW_FLOOR_NS 5000

/* struct jit_snap - per-class totals at one instant of the loop. */
struct jit_snap {
	u64 count[JIT_NR_INTF];
	u64 net_cyc[JIT_NR_INTF];
};

/* struct jit_period - what one period accumulates for its summary. */
struct jit_period {
	u32 counts[JIT_NOISE_NR];
	bool irqs_off;			/* sampled with interrupts off */
	u32 held;			/* irqs taken when that window ended */
	u64 runtime_cyc;
	u64 noise_cyc;
	u64 self_cyc;			/* jitmod's own slow path */
	u64 max_gap_cyc;
	u64 iterations;
	u64 min_delta_cyc;
	u64 anomalies;			/* jc->anomalies at period start */
	struct jit_duty duty;		/* the duty in force at its start */
	unsigned long duty_gen;		/* and its jit_duty_gen */
};

/*
 * jit_stamp - read the TSC together with the interference counter.
 *
 * The pair must describe one instant: if an interrupt slipped in between
 * the two reads, the counter would be charged to the wrong loop delta and
 * a gap caused by an interrupt would look like hardware noise.  Re-reading
 * the counter after the TSC and retrying on a change closes that window.
 */
static __always_inline u64 jit_stamp(struct jit_cpu *jc, u64 *cnt)
{
	u64 c, t;

	do {
		c = READ_ONCE(jc->int_count);
		barrier();
		t = jit_cycles();
		barrier();
	} while (unlikely(c != READ_ONCE(jc->int_count)));
	*cnt = c;
	return t;
}

/* jit_snapshot - copy the per-class totals; false if they moved meanwhile. */
static bool jit_snapshot(struct jit_cpu *jc, u64 cnt, struct jit_snap *s)
{
	int i;

	for (i = 0; i < JIT_NR_INTF; i++) {
		s->count[i] = READ_ONCE(jc->count[i]);
		s->net_cyc[i] = READ_ONCE(jc->net_cyc[i]);
	}
	barrier();
	return READ_ONCE(jc->int_count) == cnt;
}

/*
 * jit_gap_class - the class a gap is filed under.
 *
 * With interference, the class with the most net time wins; the event still
 * carries every class's count and time.  Without any, the gap is hardware
 * noise, split by what the SMI counter and the steal clock say.
 */
static int jit_gap_class(const u64 *net_ns, bool quiet, u32 smi, u64 steal)
{
	int i, best = JIT_NOISE_IRQ;

	if (quiet) {
		if (smi)
			return JIT_NOISE_HW_SMI;
		return steal ? JIT_NOISE_HW_STEAL : JIT_NOISE_HW_UNKNOWN;
	}
	for (i = 1; i < JIT_NR_INTF; i++)
		if (net_ns[i] > net_ns[best])
			best = i;
	return best;
}

/* jit_stop_all - freeze sampling on every CPU and keep the trace. */
static void jit_stop_all(int reason, u64 value_ns, u64 limit_ns)
{
	trace_stop(reason, value_ns, limit_ns);
	WRITE_ONCE(jit_stopped, true);
	pr_info("stopped: %s noise %llu ns > %llu ns\n",
		reason == JIT_STOP_SINGLE ? "single" : "period", value_ns,
		limit_ns);
}

/* jit_record_gap - emit one gap and fold it into the period's totals. */
static void jit_record_gap(struct jit_cpu *jc, u64 delta, bool quiet,
			   const struct jit_snap *now,
			   const struct jit_snap *then, struct jit_period *per)
{
	u64 net_ns[JIT_NR_INTF], steal_ns = 0, ns = jit_cyc_to_ns(delta);
	u64 explained_ns = 0;
	u32 counts[JIT_NR_INTF], smi = 0;
	int i, cls;

	for (i = 0; i < JIT_NR_INTF; i++) {
		counts[i] = now->count[i] - then->count[i];
		net_ns[i] = jit_cyc_to_ns(now->net_cyc[i] - then->net_cyc[i]);
		explained_ns += net_ns[i];
	}
	if (ns >= JIT_HW_FLOOR_NS)
		jit_hw_read_delta(jc, &smi, &steal_ns);
	cls = jit_gap_class(net_ns, quiet, smi, steal_ns);
	trace_gap(ns, net_ns, counts, cls, smi, steal_ns,
		  ns > explained_ns ? ns - explained_ns : 0);
	if (quiet)
		per->counts[cls]++;
	per->noise_cyc += delta;
	if (delta > per->max_gap_cyc)
		per->max_gap_cyc = delta;
	if (per->duty.stop_us && ns > per->duty.stop_us * NSEC_PER_USEC)
		jit_stop_all(JIT_STOP_SINGLE, ns,
			     per->duty.stop_us * NSEC_PER_USEC);
}

/*
 * jit_yield_if_needed - let a waiting task preempt us on any kernel.
 *
 * Under voluntary or no preemption (Debian's generic kernel boots
 * PREEMPT_DYNAMIC in voluntary mode) a kthread is never preempted at
 * interrupt exit, so a woken
 * task would wait out the whole runtime and its noise would land in our
 * sleep, unseen.  Offering the CPU at cond_resched() models what that task
 * does to a real workload.  Checking only after an interrupt is enough: a
 * wakeup sets need_resched through one (reschedule IPI, timer, irq_work),
 * and the time we are away is charged to the next delta as thread noise.
 */
static __always_inline void jit_yield_if_needed(void)
{
	if (unlikely(need_resched()))
		cond_resched();		/* a no-op under full preemption */
}

/*
 * jit_rcu_qs - report a quiescent state to RCU.
 *
 * On a nohz_full CPU the tick stops while the sampler is its only task,
 * and a busy kernel thread passes no quiescent state that preemptible RCU
 * can see, so every grace period waits until RCU forces one: measured
 * under TCG with CPU 1 sampled, synchronize_rcu() from CPU 0 went from
 * 15 ms to 310 ms (p90).  Like osnoise, report a zero-length extended
 * quiescent state; without preemptible RCU, cond_resched() reports one.
 * With interrupts off (irqs_off) the loop cannot schedule: without
 * preemptible RCU the grace period waits for the window's end, at most
 * JIT_IRQS_OFF_MAX_US, far inside RCU's stall timeout.
 */
static void jit_rcu_qs(bool irqs_off)
{
	unsigned long flags;

	if (IS_ENABLED(CONFIG_PREEMPT_RCU)) {
		local_irq_save(flags);
		jit_rcu_momentary_eqs();
		local_irq_restore(flags);
	} else if (!irqs_off) {
		cond_resched();
	}
}

/*
 * jit_restamp - after jitmod's own work in the loop, start the next delta
 * afresh and count the time in self_cyc, unless interference arrived
 * meanwhile (the counter moved past @c), which the next delta must show.
 */
static __always_inline u64 jit_restamp(struct jit_cpu *jc,
				       struct jit_period *per, u64 t, u64 c)
{
	u64 c2, t2 = jit_stamp(jc, &c2);

	if (c2 != c)
		return t;
	per->self_cyc += t2 - t;
	return t2;
}

/*
 * jit_reset_windows - forget every window left open by the last period.
 *
 * Probes act only while this CPU samples, so an exit that came while it
 * slept was never seen: a window left open then (on PREEMPT_RT, a softirq
 * still running in a preempted task when the period ended) would keep its
 * depth forever and swallow that class on this CPU until reload.  Like
 * osnoise's osn_var_reset_all(), start each period from a clean state.
 * sampling is still false here, so no probe touches the fields meanwhile.
 */
static void jit_reset_windows(struct jit_cpu *jc)
{
	memset(&jc->irq, 0, sizeof(jc->irq));
	memset(&jc->softirq, 0, sizeof(jc->softirq));
	memset(&jc->thread, 0, sizeof(jc->thread));
	jc->softirq_owner = NULL;
	jc->softirq_paused = 0;
	jc->softirq_pushed = 0;
	memset(jc->softirq_park, 0, sizeof(jc->softirq_park));
	jc->nmi_mark = 0;
	jc->work_start = 0;
	jc->timer_start = 0;
	jc->hrt_start[0] = 0;
	jc->hrt_start[1] = 0;
	jc->tick_dep = 0;
}

/*
 * jit_irqs_on - end an irqs_off window: take the interrupts it held.
 *
 * They arrived while interrupts were off and are taken here, as soon as
 * interrupts are on again.  The CPU still samples, so the probes count
 * them; the difference in its irq entries is what the window held.
 */
static u32 jit_irqs_on(struct jit_cpu *jc)
{
	u64 before = READ_ONCE(jc->count[JIT_NOISE_IRQ]);

	barrier();
	local_irq_enable();
	barrier();
	return READ_ONCE(jc->count[JIT_NOISE_IRQ]) - before;
}

/*
 * jit_duty_again - a duty published during the window: the period takes
 * it for what is left (its sleep, its stop limits), and a shorter runtime
 * ends the window now; a longer one waits for the next period.
 */
static u64 jit_duty_again(struct jit_period *per, u64 run_cyc)
{
	per->duty_gen = jit_duty_get(&per->duty);
	return min(run_cyc,
		   jit_ns_to_cyc(per->duty.runtime_us * NSEC_PER_USEC));
}

/* jit_sample_begin - open the window: the probes act from here on. */
static void jit_sample_begin(struct jit_cpu *jc, struct jit_period *per,
			     bool irqs_off)
{
	jit_reset_windows(jc);
	per->irqs_off = irqs_off;
	per->anomalies = READ_ONCE(jc->anomalies);
	barrier();
	WRITE_ONCE(jc->sampling, true);
	barrier();
	if (irqs_off)
		local_irq_disable();
	jit_hw_read_delta(jc, NULL, NULL);
}

/* jit_sample_end - close the window; the period's counts since @first. */
static void jit_sample_end(struct jit_cpu *jc, struct jit_period *per,
			   const struct jit_snap *first)
{
	int i;

	for (i = 0; i < JIT_NR_INTF; i++)
		per->counts[i] = READ_ONCE(jc->count[i]) - first->count[i];
	if (per->irqs_off)
		per->held = jit_irqs_on(jc);
	barrier();
	WRITE_ONCE(jc->sampling, false);
}

/*
 * jit_poll - the loop's look outside, once per JIT_POLL_NS; false to end
 * the window.  rmmod, a restart or an offline must not wait out the
 * runtime; a new duty may shorten it (@end).  The RCU quiescent state
 * is reported only between deltas (@prev at @t), and its time moved to
 * self_cyc.
 */
static __always_inline bool jit_poll(struct jit_cpu *jc,
				     struct jit_period *per, u64 start,
				     u64 *end, u64 *t, u64 *prev, u64 last_c,
				     unsigned int *polls)
{
	if (*t >= *end || kthread_should_stop() ||
	    READ_ONCE(jit_halting) || READ_ONCE(jit_stopped))
		return false;
	if (READ_ONCE(jit_duty_gen) != per->duty_gen) {
		*end = start + jit_duty_again(per, *end - start);
		if (*t >= *end)
			return false;
	}
	if (!(++*polls & JIT_RCU_QS_MASK) && *prev == *t) {
		jit_rcu_qs(per->irqs_off);
		*t = jit_restamp(jc, per, *t, last_c);
		*prev = *t;
	}
	return true;
}

/*
 * jit_sample - busy-sample for runtime_us, recording every gap.
 *
 * One turn of the loop reads the TSC, then the interference counter, and
 * makes three compares: the counter against the last one seen, the delta
 * against the threshold, the TSC against the next poll's deadline.  So its
 * own cost, the resolution, stays close to a bare rdtsc loop.
 *
 * The counter is read after the TSC, so an interrupt between the two is
 * counted before its time shows in a delta.  Where the counter moved, the
 * slow path stamps again with jit_stamp(), whose pair describes one
 * instant, and takes the delta up to that stamp: every interference
 * counted then lies inside it.  Where the counter did not move since the
 * last stamp, nothing interfered between that stamp and this read, which
 * follows the TSC, so the delta is clean.
 *
 * Everything else happens on the slow path: when interference was seen,
 * when the delta crossed the threshold, and at each poll, once per
 * JIT_POLL_NS, which looks for a stop and a new duty and, once in
 * JIT_RCU_QS_MASK + 1 polls, reports an RCU quiescent state.  The slow
 * path's and the quiescent state's time is jitmod's own, not the next
 * delta's: jit_restamp() moves it to self_cyc.  With irqs_off the whole
 * loop runs with interrupts disabled and never yields.
 */
static void jit_sample(struct jit_cpu *jc, struct jit_period *per)
{
	u64 thr_cyc = jit_ns_to_cyc(per->duty.threshold_ns);
	u64 run_cyc = jit_ns_to_cyc(per->duty.runtime_us * NSEC_PER_USEC);
	u64 poll_cyc = jit_ns_to_cyc(JIT_POLL_NS);
	u64 start, end, poll_at, prev, t, c, last_c, delta;
	u64 min_delta = U64_MAX, iters = 0;
	bool irqs_off = jit_params.irqs_off;
	struct jit_snap first, then, now;
	unsigned int polls = 0;

	jit_sample_begin(jc, per, irqs_off);
	do {
		prev = jit_stamp(jc, &last_c);
	} while (!jit_snapshot(jc, last_c, &then));
	start = prev;
	end = start + run_cyc;
	poll_at = min(end, start + poll_cyc);
	first = then;

	for (;;) {
		t = jit_cycles();
		barrier();
		c = READ_ONCE(jc->int_count);
		delta = t - prev;
		iters++;
		if (delta < min_delta)
			min_delta = delta;
		if (likely(c == last_c && delta < thr_cyc && t < poll_at)) {
			prev = t;
			continue;
		}
		if (c != last_c) {
			t = jit_stamp(jc, &c);
			delta = t - prev;
		}
		if (unlikely((s64)delta < 0)) {
			/* keep t - start the time sampled so far */
			jit_anomaly(jc, JIT_ANOM_TSC_BACK);
			start -= prev - t;
			end -= prev - t;
			poll_at -= prev - t;
			prev = t;
			continue;
		}
		if (c != last_c || delta >= thr_cyc) {
			/* An interrupt after the stamp: the delta goes on. */
			if (!jit_snapshot(jc, c, &now))
				goto poll;
			if (delta >= thr_cyc) {
				jit_record_gap(jc, delta, c == last_c, &now,
					       &then, per);
				t = jit_restamp(jc, per, t, c);
			}
			then = now;
			last_c = c;
			if (!irqs_off)
				jit_yield_if_needed();
		}
		prev = t;
poll:
		if (t < poll_at)
			continue;
		if (!jit_poll(jc, per, start, &end, &t, &prev, last_c, &polls))
			break;
		poll_at = min(end, t + poll_cyc);
	}

	per->runtime_cyc = t - start;	/* short if a stop condition hit */
	per->iterations = iters;
	per->min_delta_cyc = min_delta == U64_MAX ? 0 : min_delta;
	jit_sample_end(jc, per, &first);
}

/*
 * jit_warmup - spin for warmup_us after the sleep, recording nothing.
 *
 * Waking from the sleep between periods costs the CPU something a task
 * that never sleeps does not pay: the idle exit, the tick starting again,
 * work deferred while it slept, a vCPU the hypervisor had descheduled.
 * That is the duty cycle's cost, not the CPU's noise, so serve asks for a
 * warm-up, and the period's runtime starts after it (jitread-serve(1),
 * "The window's edge").  The loop yields and reports RCU quiescent states
 * as the sampling loop does, so deferred work runs now, not in the window.
 * It spins as that loop does too, without a pause: a pause would give an
 * SMT sibling the core, a state the window never runs in (and under
 * QEMU's TCG each one leaves the translated code).
 */
static void jit_warmup(const struct jit_period *per)
{
	u64 poll_cyc = jit_ns_to_cyc(JIT_POLL_NS), t = jit_cycles();
	u64 end = t + jit_ns_to_cyc(per->duty.warmup_us * NSEC_PER_USEC);
	u64 poll_at = t;
	unsigned int polls = 0;

	while (t < end) {
		jit_yield_if_needed();
		t = jit_cycles();
		if (t < poll_at)
			continue;
		if (kthread_should_stop() || READ_ONCE(jit_halting) ||
		    READ_ONCE(jit_stopped))
			return;
		if (!(++polls & JIT_RCU_QS_MASK))
			jit_rcu_qs(false);
		poll_at = t + poll_cyc;
	}
}

/* jit_summarise - emit the period's summary and check stop_total_us. */
static void jit_summarise(struct jit_cpu *jc, const struct jit_period *per)
{
	u64 noise_ns = jit_cyc_to_ns(per->noise_cyc);
	u64 limit_ns = per->duty.stop_total_us * NSEC_PER_USEC;
	u64 anomalies = READ_ONCE(jc->anomalies) - per->anomalies;
	u32 mask = READ_ONCE(jc->anomaly_mask);

	if (anomalies)
		pr_warn_ratelimited("CPU %u: %llu measurement anomalies (kinds 0x%x), see jitmod:summary\n",
				    jc->cpu, anomalies, mask);
	trace_summary(jit_cyc_to_ns(per->runtime_cyc), noise_ns,
		      jit_cyc_to_ns(per->max_gap_cyc), per->counts,
		      per->iterations, jit_cyc_to_ps(per->min_delta_cyc),
		      jit_cyc_to_ns(per->self_cyc), anomalies,
		      anomalies ? mask : 0, per->irqs_off, per->held);
	if (anomalies)
		WRITE_ONCE(jc->anomaly_mask, 0);
	if (limit_ns && noise_ns > limit_ns && !READ_ONCE(jit_stopped))
		jit_stop_all(JIT_STOP_TOTAL, noise_ns, limit_ns);
}

/*
 * jit_sleep - give the CPU up for the rest of the period.
 *
 * The sleep is not optional.  A kthread that never schedules never passes
 * through an RCU-tasks quiescent state, so every synchronize_rcu_tasks()
 * caller (BPF trampolines, ftrace and kprobe detach) would wait for it, and
 * on a kernel without preemption the soft-lockup watchdog would fire.
 *
 * The timer is pinned: an unpinned one armed on a nohz_full CPU goes to a
 * housekeeping CPU, whose wake-up of the sampler is an IPI every period.
 */
static void jit_sleep(struct jit_cpu *jc, u64 sleep_us)
{
	u64 ns = max_t(u64, sleep_us, JIT_MIN_SLEEP_US) * NSEC_PER_USEC;
	ktime_t kt = ns_to_ktime(ns);

	WRITE_ONCE(jc->sleep_end_ns, ktime_get_ns() + ns);
	set_current_state(TASK_INTERRUPTIBLE);
	if (kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(jc->sleep_end_ns, 0);
		return;
	}
	schedule_hrtimeout(&kt, HRTIMER_MODE_REL_PINNED);
	WRITE_ONCE(jc->sleep_end_ns, 0);
}

/*
 * jit_duty_wake - wake each sampler whose sleep would outlast a new
 * period of period_us, or JIT_DUTY_PROMPT_US, so that it starts a period
 * under the new duty now: a new setting is in force within the shorter
 * of the two.  The caller holds jit_lock, so no restart frees a sampler
 * meanwhile, and cpus_read_lock() keeps CPU hotplug from doing so.  A
 * sampler that samples, or sleeps less, is left alone: its CPU sees
 * nothing.
 */
void jit_duty_wake(u64 period_us)
{
	u64 by = ktime_get_ns() +
		 min(period_us, JIT_DUTY_PROMPT_US) * NSEC_PER_USEC;
	unsigned int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct jit_cpu *jc = jit_cpu_get(cpu);

		if (jc->task && READ_ONCE(jc->sleep_end_ns) > by)
			wake_up_process(jc->task);
	}
	cpus_read_unlock();
}

/* jit_sleep_us - the rest of the period, after the warm-up and runtime */
static u64 jit_sleep_us(const struct jit_period *per)
{
	u64 busy = per->duty.runtime_us + per->duty.warmup_us;

	return busy < per->duty.period_us ? per->duty.period_us - busy : 0;
}

/* jit_sampler_fn - body of kthread jitmod/N: sample, summarise, sleep. */
int jit_sampler_fn(void *data)
{
	struct jit_cpu *jc = data;

	while (!kthread_should_stop()) {
		struct jit_period per = { };

		per.duty_gen = jit_duty_get(&per.duty);
		if (READ_ONCE(jit_stopped) || READ_ONCE(jit_halting)) {
			jit_sleep(jc, per.duty.period_us);
			continue;
		}
		if (per.duty.warmup_us)
			jit_warmup(&per);
		jit_sample(jc, &per);
		jit_summarise(jc, &per);
		jit_sleep(jc, jit_sleep_us(&per));
	}
	return 0;
}
