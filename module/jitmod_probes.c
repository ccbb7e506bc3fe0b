// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_probes.c - tracepoint probes that tell what interrupted a sampler.
 *
 * Every probe does its bookkeeping only while its own CPU is sampling and
 * returns at once elsewhere.  Durations are net of nesting, in the manner
 * of the kernel's osnoise tracer: each class keeps the TSC from which its
 * own time counts (delta_start), and when a higher-priority class exits it
 * pushes the open lower windows forward by its own net length.  The order
 * is NMI > IRQ > softirq > thread.
 *
 * The tracepoints are not exported to modules as symbols, so they are found
 * by name with for_each_kernel_tracepoint().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/nmi.h>
#include "jitmod.h"
#include "jitmod_trace.h"

/* jit_push - move an open window's start forward by nested time. */
static __always_inline void jit_push(struct jit_window *w, u64 cyc)
{
	if (w->depth)
		w->delta_start += cyc;
}

/*
 * jit_push_softirq - push the softirq window by nested time, unless its
 * task is switched out (PREEMPT_RT): what runs then nests in another
 * task's window, and the softirq's resume already leaves out the whole
 * paused interval, so pushing it too would take that time off twice.
 */
static __always_inline void jit_push_softirq(struct jit_cpu *jc, u64 cyc)
{
	if (!jc->softirq_paused)
		jit_push(&jc->softirq, cyc);
}

/*
 * jit_open_at - start an open window's own time at the clock, as of one
 * instant with the interference counter; with @resume, also resume the
 * paused softirq (PREEMPT_RT) at that instant.
 *
 * The window is marked open first, so an NMI after this pushes it; one
 * between the clock read and the store would have pushed the old start
 * instead and left its own time inside the window (charged twice: to the
 * NMI and to this class), so that case reads the clock again.  A resumed
 * softirq's start moves past the whole paused interval; it stays marked
 * paused until the same instant, so that nothing pushes it meanwhile.
 */
static __always_inline void jit_open_at(struct jit_cpu *jc,
					struct jit_window *w, bool resume)
{
	u64 c, t, base = jc->softirq.delta_start, paused = jc->softirq_paused;

	do {
		c = READ_ONCE(jc->int_count);
		barrier();
		t = jit_cycles();
		WRITE_ONCE(w->delta_start, t);
		if (resume) {
			WRITE_ONCE(jc->softirq.delta_start, base + t - paused);
			WRITE_ONCE(jc->softirq_paused, 0);
		}
		barrier();
	} while (unlikely(c != READ_ONCE(jc->int_count)));
}

/* jit_enter - open (or nest into) a window and count the interference. */
static __always_inline void jit_enter(struct jit_cpu *jc,
				      struct jit_window *w, int cls)
{
	if (w->depth++ == 0)
		jit_open_at(jc, w, false);
	jc->count[cls]++;
	WRITE_ONCE(jc->int_count, jc->int_count + 1);
}

/*
 * jit_net_of - @now - @start for a window, or 0 and an anomaly when the
 * start lies past the clock: windows are pushed only by time that nested
 * inside them, so a start can never overtake a clock read after it.
 */
static __always_inline u64 jit_net_of(struct jit_cpu *jc, u64 now, u64 start)
{
	if (likely(now >= start))
		return now - start;
	jit_anomaly(jc, JIT_ANOM_WINDOW);
	return 0;
}

/*
 * jit_safe_net - the cycles from a window's delta_start to now.
 *
 * A probe reads the clock and then delta_start.  An NMI (or, where the
 * probe runs with interrupts on, an interrupt) that lands between the two
 * pushes delta_start forward by its own length, possibly past the clock
 * just read, so the difference would be short or negative.  As osnoise's
 * get_int_safe_duration() does, read both with the interference counter
 * unchanged around them, and retry when it moved.  Anything that arrives
 * after the pair was read lies after the clock read, so it cannot be in
 * the result.
 */
static __always_inline u64 jit_safe_net(struct jit_cpu *jc,
					struct jit_window *w)
{
	u64 c, now, start;

	do {
		c = READ_ONCE(jc->int_count);
		barrier();
		now = jit_cycles();
		start = READ_ONCE(w->delta_start);
		barrier();
	} while (unlikely(c != READ_ONCE(jc->int_count)));
	return jit_net_of(jc, now, start);
}

/*
 * jit_window_close - close a window; return its net cycles, or 0 while
 * it is still open.
 * The net time is taken before the window is marked closed, so that an
 * NMI in between still pushes this window and not the time it reports.
 */
static __always_inline u64 jit_window_close(struct jit_cpu *jc,
					    struct jit_window *w, int cls)
{
	u64 net;

	if (!w->depth)
		return 0;
	if (w->depth > 1) {
		w->depth--;
		return 0;
	}
	net = jit_safe_net(jc, w);
	w->depth = 0;
	WRITE_ONCE(jc->net_cyc[cls], jc->net_cyc[cls] + net);
	return net;
}

/* x86 system vectors with an entry/exit tracepoint pair (irq_vectors). */
static const char *const jit_vectors[JIT_VEC_NR] = JIT_VECTORS(JIT_X_NAME);

/* IRQs: device interrupts and x86 system vectors share one window. */

static void jit_irq_enter(void)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (READ_ONCE(jc->sampling))
		jit_enter(jc, &jc->irq, JIT_NOISE_IRQ);
}

static void jit_irq_exit(int irq, int vector, const char *name)
{
	struct jit_cpu *jc = jit_this_cpu();
	u64 net;

	if (!READ_ONCE(jc->sampling))
		return;
	net = jit_window_close(jc, &jc->irq, JIT_NOISE_IRQ);
	if (!net)
		return;
	jit_push_softirq(jc, net);
	jit_push(&jc->thread, net);
	if (name == jit_vectors[JIT_VEC_local_timer])
		jit_detail_tick(jc);
	trace_irq_noise(irq, vector, name, jit_cyc_to_ns(net));
}

static void hook_irq_entry(void *data, int irq, struct irqaction *action)
{
	jit_irq_enter();
}

static void hook_irq_exit(void *data, int irq, struct irqaction *action,
			  int ret)
{
	jit_irq_exit(irq, -1, action && action->name ? action->name : "?");
}

static void hook_vector_entry(void *data, int vector)
{
	jit_irq_enter();
}

static void hook_vector_exit(void *data, int vector)
{
	jit_irq_exit(-1, vector, data);
}

/*
 * Softirqs.  On PREEMPT_RT they run in task context (ksoftirqd, or the
 * thread that re-enabled bottom halves) and can be preempted, so a softirq
 * window is owned by a task: while that task is switched out its window is
 * paused.  The owner's thread window, which the softirq nests in, may then
 * close before the softirq does, so the softirq's time so far is taken off
 * that window as it closes, and softirq_pushed remembers how much was, so
 * that the thread window opened on resume loses only the rest.
 *
 * Without a BH lock (PREEMPT_RT_NEEDS_BH_LOCK unset, as on 7.x) another
 * task may enter softirq processing on the CPU while the first is switched
 * out inside its own.  So a switched-out owner's window is parked in
 * softirq_park, and the CPU's softirq window is free for the next task;
 * the owner gets its window back when it is switched in again.
 */

static void jit_softirq_entry(unsigned int vec_nr)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (!READ_ONCE(jc->sampling))
		return;
	if (!jc->softirq.depth) {
		jc->softirq_owner = current;
		jc->softirq_paused = 0;
		jc->softirq_pushed = 0;
	}
	jit_enter(jc, &jc->softirq, JIT_NOISE_SOFTIRQ);
}

static void jit_softirq_exit(unsigned int vec_nr)
{
	struct jit_cpu *jc = jit_this_cpu();
	u64 net;

	if (!READ_ONCE(jc->sampling))
		return;
	net = jit_window_close(jc, &jc->softirq, JIT_NOISE_SOFTIRQ);
	if (!net)
		return;
	if (net > jc->softirq_pushed)
		jit_push(&jc->thread, net - jc->softirq_pushed);
	jc->softirq_pushed = 0;
	trace_softirq_noise(vec_nr, jit_cyc_to_ns(net));
}

/* On PREEMPT_RT these may be called preemptible: see jit_this_cpu(). */
JIT_PINNED_HOOK(softirq_entry, (void *data, unsigned int vec_nr), (vec_nr))
JIT_PINNED_HOOK(softirq_exit, (void *data, unsigned int vec_nr), (vec_nr))

/*
 * jit_softirq_park_prev - park the paused softirq window of @prev, which
 * owns it, so that the window is free for other tasks.  With every slot
 * taken it stays where it is, as with a BH lock: a second task's softirq
 * then nests in it and is counted with it.
 */
static void jit_softirq_park_prev(struct jit_cpu *jc, struct task_struct *prev)
{
	struct jit_softirq_park *p;
	int i;

	for (i = 0; i < JIT_SOFTIRQ_PARK; i++) {
		p = &jc->softirq_park[i];
		if (p->owner)
			continue;
		p->owner = prev;
		p->delta_start = jc->softirq.delta_start;
		p->depth = jc->softirq.depth;
		p->paused = jc->softirq_paused;
		p->pushed = jc->softirq_pushed;
		jc->softirq.depth = 0;
		jc->softirq_owner = NULL;
		jc->softirq_paused = 0;
		jc->softirq_pushed = 0;
		return;
	}
}

/*
 * jit_softirq_unpark - give @next its parked softirq window back, still
 * paused; return whether it had one.  The CPU's window is free here.
 */
static bool jit_softirq_unpark(struct jit_cpu *jc, struct task_struct *next)
{
	struct jit_softirq_park *p;
	int i;

	for (i = 0; i < JIT_SOFTIRQ_PARK; i++) {
		p = &jc->softirq_park[i];
		if (p->owner != next)
			continue;
		jc->softirq.delta_start = p->delta_start;
		jc->softirq.depth = p->depth;
		jc->softirq_owner = next;
		jc->softirq_paused = p->paused;
		jc->softirq_pushed = p->pushed;
		p->owner = NULL;
		return true;
	}
	return false;
}

/* Threads: any task other than the sampler that holds the CPU. */

/*
 * jit_thread_open - open a thread window for @next, from now; if @next
 * owns a paused softirq (PREEMPT_RT), resume it at the same instant.
 */
static void jit_thread_open(struct jit_cpu *jc, struct task_struct *next,
			    bool resume)
{
	jc->thread.depth = 1;
	jit_open_at(jc, &jc->thread, resume);
	jc->thread_pid = next->pid;
	memcpy(jc->thread_comm, next->comm, TASK_COMM_LEN);
	jc->count[JIT_NOISE_THREAD]++;
	WRITE_ONCE(jc->int_count, jc->int_count + 1);
}

/*
 * hook_sched_switch - pause or resume a preempted softirq (PREEMPT_RT),
 * close the window of the task leaving and open one for the task coming.
 *
 * The clock and both windows' starts are read as of one instant, with the
 * same retry as jit_safe_net(): this probe runs with interrupts off, but
 * an NMI can still land in it and push the windows.  The next task's
 * window is opened before the closed one's event is written, so that an
 * NMI during that write pushes the new window instead of landing in it;
 * the write itself is jitmod's own time and stays in the gap's rest.
 */
static void hook_sched_switch(JIT_SWITCH_ARGS)
{
	struct jit_cpu *jc = jit_this_cpu();
	u64 c, now, thread_start, softirq_start, thread_net, so_far, held;
	char comm[TASK_COMM_LEN];
	bool resume = false;
	pid_t pid = -1;

	if (!READ_ONCE(jc->sampling))
		return;
	do {
		c = READ_ONCE(jc->int_count);
		barrier();
		now = jit_cycles();
		thread_start = READ_ONCE(jc->thread.delta_start);
		softirq_start = READ_ONCE(jc->softirq.delta_start);
		barrier();
	} while (unlikely(c != READ_ONCE(jc->int_count)));
	thread_net = jc->thread.depth ? jit_net_of(jc, now, thread_start) : 0;
	if (jc->softirq.depth) {
		if (prev == jc->softirq_owner) {
			/* the softirq's time since it last paused is not prev's */
			so_far = jit_net_of(jc, now, softirq_start);
			held = so_far > jc->softirq_pushed ?
			       so_far - jc->softirq_pushed : 0;
			if (held > thread_net && jc->thread.depth) {
				jit_anomaly(jc, JIT_ANOM_WINDOW);
				held = thread_net;
			}
			thread_net -= min(held, thread_net);
			jc->softirq_pushed = so_far;
			jc->softirq_paused = now;
			jit_softirq_park_prev(jc, prev);
		} else if (next == jc->softirq_owner && jc->softirq_paused) {
			resume = true;
		}
	}
	if (!jc->softirq.depth)
		resume = jit_softirq_unpark(jc, next);
	if (prev != jc->task && jc->thread.depth) {
		jc->thread.depth = 0;
		WRITE_ONCE(jc->net_cyc[JIT_NOISE_THREAD],
			   jc->net_cyc[JIT_NOISE_THREAD] + thread_net);
		pid = jc->thread_pid;
		memcpy(comm, jc->thread_comm, TASK_COMM_LEN);
	}
	if (next != jc->task) {
		jit_thread_open(jc, next, resume);
	} else if (resume) {	/* the sampler itself ran the softirq */
		jc->softirq.delta_start += now - jc->softirq_paused;
		jc->softirq_paused = 0;
	}
	if (pid >= 0)
		trace_thread_noise(comm, pid, jit_cyc_to_ns(thread_net));
}

/*
 * NMIs.  There is no NMI entry/exit tracepoint a module can use, so two
 * hooks share the work: our own NMI_LOCAL handler, registered first in the
 * chain, marks the arrival and counts the NMI (it never claims it); then
 * nmi:nmi_handler, which fires after each handler, charges the time since
 * the previous mark to that handler.  What runs after the last handler (the
 * NMI exit path) is not charged and stays in the gap's unexplained rest.
 */

static int jit_nmi_first(unsigned int type, struct pt_regs *regs)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (READ_ONCE(jc->sampling)) {
		jc->nmi_mark = jit_cycles();
		jc->count[JIT_NOISE_NMI]++;
		WRITE_ONCE(jc->int_count, jc->int_count + 1);
	}
	return NMI_DONE;
}

static void hook_nmi_handler(void *data, void *handler, s64 delta_ns,
			     int handled)
{
	struct jit_cpu *jc = jit_this_cpu();
	u64 now, d;

	if (!READ_ONCE(jc->sampling) || !jc->nmi_mark)
		return;
	now = jit_cycles();
	d = now - jc->nmi_mark;
	jc->nmi_mark = now;
	WRITE_ONCE(jc->net_cyc[JIT_NOISE_NMI], jc->net_cyc[JIT_NOISE_NMI] + d);
	jit_push(&jc->irq, d);
	jit_push_softirq(jc, d);
	jit_push(&jc->thread, d);
	if ((unsigned long)handler != (unsigned long)jit_nmi_first)
		trace_nmi_noise(handler, jit_cyc_to_ns(d));
}

#define JIT_FIXED_TPS 6

static struct jit_tp jit_tps[JIT_FIXED_TPS + 2 * ARRAY_SIZE(jit_vectors)] = {
	{ "irq_handler_entry", hook_irq_entry, NULL, true },
	{ "irq_handler_exit", hook_irq_exit, NULL, true },
	{ "softirq_entry", hook_softirq_entry, NULL, true },
	{ "softirq_exit", hook_softirq_exit, NULL, true },
	{ "sched_switch", hook_sched_switch, NULL, true },
	{ "nmi_handler", hook_nmi_handler, NULL, false },
	/* then an _entry/_exit pair per jit_vectors[], by jit_tps_fill() */
};

/* jit_tps_fill - add the vector pairs; the probe data is the name. */
static void jit_tps_fill(void)
{
	struct jit_tp *t = &jit_tps[JIT_FIXED_TPS];
	int i;

	for (i = 0; i < ARRAY_SIZE(jit_vectors); i++, t += 2) {
		snprintf(t[0].name, sizeof(t[0].name), "%s_entry",
			 jit_vectors[i]);
		t[0].probe = hook_vector_entry;
		t[0].data = (void *)jit_vectors[i];
		snprintf(t[1].name, sizeof(t[1].name), "%s_exit",
			 jit_vectors[i]);
		t[1].probe = hook_vector_exit;
		t[1].data = (void *)jit_vectors[i];
	}
}

/*
 * Set once jit_nmi_first is registered, so that unhooking after a failure
 * does not unregister a handler that was never there.
 */
static bool jit_nmi_hooked;

struct jit_tp_set {
	struct jit_tp *tps;
	int nr;
};

static void jit_find_tp(struct tracepoint *tp, void *priv)
{
	struct jit_tp_set *set = priv;
	int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(tp->name, set->tps[i].name))
			set->tps[i].tp = tp;
}

/* jit_tps_unhook - detach the probes of @tps that are attached. */
void jit_tps_unhook(struct jit_tp *tps, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (!tps[i].hooked)
			continue;
		tracepoint_probe_unregister(tps[i].tp, tps[i].probe,
					    tps[i].data);
		tps[i].hooked = false;
	}
}

/*
 * jit_tps_hook - attach each probe of @tps whose tracepoint exists; a
 * missing one is an error only when it is required.  On error, what was
 * attached stays attached: the caller unhooks.
 */
int jit_tps_hook(struct jit_tp *tps, int nr)
{
	struct jit_tp_set set = { tps, nr };
	int i, ret;

	for_each_kernel_tracepoint(jit_find_tp, &set);
	for (i = 0; i < nr; i++) {
		if (!tps[i].tp) {
			if (!tps[i].required)
				continue;
			pr_err("tracepoint %s not found\n", tps[i].name);
			return -ENOENT;
		}
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe,
						tps[i].data);
		if (ret) {
			pr_err("cannot hook %s: %d\n", tps[i].name, ret);
			return ret;
		}
		tps[i].hooked = true;
	}
	return 0;
}

/* jit_probes_unhook - detach every probe and wait until none runs. */
void jit_probes_unhook(void)
{
	jit_tps_unhook(jit_tps, ARRAY_SIZE(jit_tps));
	jit_detail_unhook();
	if (jit_nmi_hooked) {
		unregister_nmi_handler(NMI_LOCAL, "jitmod");
		jit_nmi_hooked = false;
	}
	tracepoint_synchronize_unregister();
}

/* jit_probes_hook - attach to every tracepoint we know of that exists. */
int jit_probes_hook(void)
{
	int ret;

	jit_tps_fill();
	ret = jit_tps_hook(jit_tps, ARRAY_SIZE(jit_tps));
	if (ret)
		goto err_unhook;
	ret = jit_detail_hook();
	if (ret)
		goto err_unhook;
	ret = register_nmi_handler(NMI_LOCAL, jit_nmi_first, NMI_FLAG_FIRST,
				   "jitmod");
	if (ret) {
		pr_err("cannot register the NMI handler: %d\n", ret);
		goto err_unhook;
	}
	jit_nmi_hooked = true;
	return 0;

err_unhook:
	jit_probes_unhook();
	return ret;
}
