// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_detail.c - name what ran inside a noise window.
 *
 * A row such as thread:kworker/2:1 or softirq:TIMER says where the time
 * went but not what to change.  These probes name the work function or
 * timer callback that ran inside an open window, and what kept the tick
 * on a nohz_full CPU.  Each detail is written as a jitmod:detail event
 * when the callback returns, inside its window, so it comes before that
 * window's own event on the same CPU; jitread attaches it there.  A
 * callback that started before sampling did, or outside a window of its
 * class, is not named.
 *
 * The tracepoints are optional: where a kernel lacks one, that detail is
 * missing and the read-only parameter "details" does not list it (6.1 has
 * no csd tracepoints, so no IPI detail).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "jitmod.h"
#include "jitmod_trace.h"

/* jit_detail_emit - write one detail that started at TSC @start. */
static void jit_detail_emit(int kind, int cls, void *fn, u64 start)
{
	trace_detail(kind, cls, fn, 0, jit_cyc_to_ns(jit_cycles() - start));
}

/* Work items: they run in a kworker's thread window. */

static void jit_workqueue_execute_start(void *data, struct work_struct *work)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (!READ_ONCE(jc->sampling) || !jc->thread.depth)
		return;
	jc->work_fn = work->func;
	jc->work_pid = current->pid;
	jc->work_start = jit_cycles();
}

/* The work item may be freed by now: only what the start saved is used. */
static void jit_workqueue_execute_end(void *data, struct work_struct *work,
				      void *fn)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (!READ_ONCE(jc->sampling) || !jc->work_start)
		return;
	if (jc->thread.depth && jc->work_pid == current->pid)
		jit_detail_emit(JIT_DETAIL_WORK, JIT_NOISE_THREAD,
				jc->work_fn, jc->work_start);
	jc->work_start = 0;
}

/* timer_list callbacks: they run in the TIMER softirq's window. */

static void jit_timer_expire_entry(void *data, struct timer_list *timer,
				   unsigned long baseclk)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (!READ_ONCE(jc->sampling) || !jc->softirq.depth)
		return;
	jc->timer_fn = timer->function;
	jc->timer_start = jit_cycles();
}

static void jit_timer_expire_exit(void *data, struct timer_list *timer)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (!READ_ONCE(jc->sampling) || !jc->timer_start)
		return;
	if (jc->softirq.depth)
		jit_detail_emit(JIT_DETAIL_TIMER, JIT_NOISE_SOFTIRQ,
				jc->timer_fn, jc->timer_start);
	jc->timer_start = 0;
}

/*
 * hrtimer callbacks: hard ones in the local_timer interrupt's window,
 * soft ones in the HRTIMER softirq's.  A hard one can nest in a soft one,
 * so each has its own slot.
 */

static struct jit_window *jit_hrt_window(struct jit_cpu *jc, int *slot,
					 int *cls)
{
	bool hard = hardirq_count();

	*slot = hard ? 0 : 1;
	*cls = hard ? JIT_NOISE_IRQ : JIT_NOISE_SOFTIRQ;
	return hard ? &jc->irq : &jc->softirq;
}

static void jit_hrtimer_expire_entry(void *data, struct hrtimer *t,
				     ktime_t *now)
{
	struct jit_cpu *jc = jit_this_cpu();
	int slot, cls;

	if (!READ_ONCE(jc->sampling) || !jit_hrt_window(jc, &slot, &cls)->depth)
		return;
	jc->hrt_fn[slot] = t->function;
	jc->hrt_start[slot] = jit_cycles();
}

static void jit_hrtimer_expire_exit(void *data, struct hrtimer *t)
{
	struct jit_cpu *jc = jit_this_cpu();
	struct jit_window *w;
	int slot, cls;

	if (!READ_ONCE(jc->sampling))
		return;
	w = jit_hrt_window(jc, &slot, &cls);
	if (!jc->hrt_start[slot])
		return;
	if (w->depth)
		jit_detail_emit(JIT_DETAIL_HRTIMER, cls, jc->hrt_fn[slot],
				jc->hrt_start[slot]);
	jc->hrt_start[slot] = 0;
}

/* These may be called preemptible: see jit_this_cpu(). */
JIT_PINNED_HOOK(workqueue_execute_start,
		(void *data, struct work_struct *work),
		(data, work))
JIT_PINNED_HOOK(workqueue_execute_end,
		(void *data, struct work_struct *work, void *fn),
		(data, work, fn))
JIT_PINNED_HOOK(timer_expire_entry,
		(void *data, struct timer_list *timer, unsigned long baseclk),
		(data, timer, baseclk))
JIT_PINNED_HOOK(timer_expire_exit,
		(void *data, struct timer_list *timer),
		(data, timer))
JIT_PINNED_HOOK(hrtimer_expire_entry,
		(void *data, struct hrtimer *t, ktime_t *now),
		(data, t, now))
JIT_PINNED_HOOK(hrtimer_expire_exit,
		(void *data, struct hrtimer *t),
		(data, t))

/*
 * IPIs: a CPU that queues a function for a sampled CPU leaves the csd and
 * its own number in that CPU's csd_q; the sampled CPU looks the csd up
 * when it runs the function inside its call_function(_single) window.  A
 * slot overwritten before its function ran leaves that sender unnamed.
 */

static void hook_csd_queue_cpu(void *data, unsigned int cpu,
			       unsigned long callsite, smp_call_func_t func,
			       call_single_data_t *csd)
{
	struct jit_cpu *jc;
	struct jit_csd_from *q;

	if (cpu >= nr_cpu_ids)
		return;
	jc = jit_cpu_get(cpu);
	if (!READ_ONCE(jc->sampling))
		return;
	q = &jc->csd_q[(u32)atomic_inc_return(&jc->csd_seq) % JIT_CSD_Q];
	WRITE_ONCE(q->csd, NULL);
	smp_wmb();	/* no reader pairs the old csd with the new sender */
	WRITE_ONCE(q->cpu, raw_smp_processor_id());
	smp_wmb();	/* a reader that sees the csd sees its sender */
	WRITE_ONCE(q->csd, csd);
}

static void hook_csd_function_entry(void *data, smp_call_func_t func,
				    call_single_data_t *csd)
{
	struct jit_cpu *jc = jit_this_cpu();
	int i;

	if (!READ_ONCE(jc->sampling) || !jc->irq.depth)
		return;
	jc->csd_fn = func;
	jc->csd_from = U32_MAX;
	for (i = 0; csd && i < JIT_CSD_Q; i++) {
		if (READ_ONCE(jc->csd_q[i].csd) != csd)
			continue;
		smp_rmb();	/* pairs with hook_csd_queue_cpu() */
		jc->csd_from = READ_ONCE(jc->csd_q[i].cpu);
		WRITE_ONCE(jc->csd_q[i].csd, NULL);
		break;
	}
	jc->csd_start = jit_cycles();
}

static void hook_csd_function_exit(void *data, smp_call_func_t func,
				   call_single_data_t *csd)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (!READ_ONCE(jc->sampling) || !jc->csd_start)
		return;
	if (jc->irq.depth)
		trace_detail(JIT_DETAIL_IPI, JIT_NOISE_IRQ, jc->csd_fn,
			     jc->csd_from,
			     jit_cyc_to_ns(jit_cycles() - jc->csd_start));
	jc->csd_start = 0;
}

/*
 * The tick: on a nohz_full CPU each interrupt exit tries to stop it, and
 * a failed try says which dependency kept it.  That try comes after the
 * local_timer interrupt's window closed, so the dependencies are kept and
 * given with the next local_timer interrupt, the tick they kept.
 */

static void hook_tick_stop(void *data, int success, int dependency)
{
	struct jit_cpu *jc = jit_this_cpu();

	if (!READ_ONCE(jc->sampling))
		return;
	jc->tick_dep = success ? 0 : jc->tick_dep | (u32)dependency;
}

/* jit_detail_tick - before a local_timer window's event: what kept it. */
void jit_detail_tick(struct jit_cpu *jc)
{
	if (!jc->tick_dep)
		return;
	trace_detail(JIT_DETAIL_TICK, JIT_NOISE_IRQ, NULL, jc->tick_dep, 0);
	jc->tick_dep = 0;
}

/* the tracepoints of JIT_DETAIL_TPS, each with its hook_<tracepoint> */
#define JIT_X_DETAIL_TP(k, tp) { #tp, hook_##tp, NULL, false }
static struct jit_tp jit_detail_tps[] = JIT_DETAIL_TPS(JIT_X_DETAIL_TP);

/* which detail each tracepoint above serves */
static const int jit_detail_kind[] = JIT_DETAIL_TPS(JIT_X_DETAIL_TP_KIND);

static const char *const jit_detail_name[JIT_DETAIL_NR] =
	JIT_DETAILS(JIT_X_NAME2);

/*
 * jit_detail_names - the details this kernel gives, comma-separated: a
 * kind is listed when the kernel has every tracepoint it needs.
 */
int jit_detail_names(char *buf, size_t len)
{
	bool ok[JIT_DETAIL_NR];
	int i, n = 0;

	for (i = 0; i < JIT_DETAIL_NR; i++)
		ok[i] = true;
	for (i = 0; i < ARRAY_SIZE(jit_detail_tps); i++)
		if (!jit_detail_tps[i].tp)
			ok[jit_detail_kind[i]] = false;
	for (i = 0; i < JIT_DETAIL_NR; i++)
		if (ok[i])
			n += scnprintf(buf + n, len - n, "%s%s", n ? "," : "",
				       jit_detail_name[i]);
	n += scnprintf(buf + n, len - n, "\n");
	return n;
}

/* jit_detail_hook - attach the detail probes whose tracepoints exist. */
int jit_detail_hook(void)
{
	return jit_tps_hook(jit_detail_tps, ARRAY_SIZE(jit_detail_tps));
}

void jit_detail_unhook(void)
{
	jit_tps_unhook(jit_detail_tps, ARRAY_SIZE(jit_detail_tps));
}
