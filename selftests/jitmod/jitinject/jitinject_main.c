// SPDX-License-Identifier: GPL-2.0
/*
 * jitinject_main.c - test-only noise injector for the jitmod selftests.
 *
 * Never installed.  On the CPU in /sys/module/jitinject/parameters/cpu it
 * makes one interruption of a known class that busy-waits for a known time:
 *
 *   echo "hrtimer 200" > /sys/module/jitinject/parameters/inject
 *
 * Classes (the duration is in us, 0..1000000; at 0 the handler spins not
 * at all, so what is measured is the class's own cost):
 *   hrtimer  a pinned hard hrtimer, armed on the CPU itself: irq:local_timer
 *   ipi      smp_call_function_single(): irq:call_function_single
 *   softirq  a timer_list queued with add_timer_on(): softirq:TIMER
 *   nmi      an NMI IPI whose handler (jinj_nmi) claims it and spins
 *   work     a work item (jinj_work_fn) queued on the CPU's system
 *            workqueue: a thread:kworker/N:M window
 *   thread   a SCHED_FIFO kthread "jitinject/N"; its pid is in last_pid
 *   nest     that thread spins D of its own while an hrtimer it armed
 *            spins D/2 inside it, to test that nested time is subtracted
 *   softpre  the TIMER softirq spins D/4, wakes a SCHED_FIFO "jitinject/N"
 *            that spins D/2, then spins D/4 more.  On PREEMPT_RT the
 *            thread preempts the softirq in the middle (ktimers/N is
 *            preemptible); elsewhere it runs after it.  Either way each
 *            has D/2 of its own.
 *   softnest as softpre, but the thread spins nothing itself: it queues
 *            a tasklet (jinj_tasklet_fn) that spins D/2 and runs it at
 *            its local_bh_enable(), so its TASKLET softirq runs in its own
 *            context.  On a PREEMPT_RT kernel without a BH lock
 *            (PREEMPT_RT_NEEDS_BH_LOCK unset, as 7.x) that is while the
 *            preempted TIMER softirq of ktimers/N is still open: two tasks
 *            in softirq on one CPU.  With a BH lock the thread waits for
 *            the TIMER softirq to end; elsewhere it runs after it.  Each
 *            softirq has D/2 of its own, the thread none.
 *   softlock the writer takes a spinlock_t and queues the TIMER softirq
 *            on the CPU, whose callback takes the lock and returns.  The
 *            writer holds the lock for D from the moment the callback
 *            reaches it.  On PREEMPT_RT a SCHED_FIFO "jitinject/N" on the
 *            writer's CPU preempts the writer for that time: spinlock_t
 *            waiters spin while the owner runs, but sleep while it is
 *            preempted, so ktimers/N blocks inside the softirq and its CPU
 *            runs other tasks.  Elsewhere the callback spins on the lock.
 *
 * Writing N to smi sends the CPU N SMIs through its local APIC, which the
 * firmware takes with no kernel code; smi_count reads its MSR_SMI_COUNT
 * (jitinject_smi.c).
 *
 * Reading sync_rcu_ns runs one synchronize_rcu() and gives how long it
 * took, so that a test can see whether sampling delays grace periods.
 *
 * The write returns once the injection has run, or -ETIMEDOUT.  Then
 * late_ns holds how far its spins ran past what they were asked: a spin
 * ends by the clock, so a stall of the CPU (a host descheduling a vCPU)
 * that straddles the end of a spin lengthens it, and the tests allow for
 * that instead of failing on it.  And nested_ns holds how much of the
 * source's own spin (the thread's, where the class has one, else the
 * handler's) went to interrupts nested in it: the steps of its loop in
 * which the CPU's interrupt counts moved.  That time rightly comes off
 * the source's net time, and under TCG a host stall inside a nested tick
 * makes it any length, so a test's lower bound subtracts it.  After
 * softnest, own_ns holds how long the thread took by the clock from its
 * local_bh_disable() to the return of its local_bh_enable(), less its
 * tasklet's run: its own time, with any stall of the vCPU in it, which an
 * upper bound on what the thread is charged adds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <asm/apic.h>
#include <asm/hardirq.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include "jitmod_kcompat.h"
#include "jitinject.h"

#define JINJ_MAX_US		1000000U
#define JINJ_ARM_DELAY_US	50
#define JINJ_SLACK_MS		5000
#define JINJ_POLL_AFTER_US	100

unsigned int jinj_cpu = 1;
static int jinj_last_pid;
DEFINE_MUTEX(jinj_lock);		/* one injection at a time */
static atomic_t jinj_done;		/* injections that have finished */
static atomic_t jinj_nmi_pending;	/* an NMI we sent, not yet claimed */
static u64 jinj_spin_ns;		/* what the handler spins */
static u64 jinj_irq_ns;			/* what the hrtimer spins */
static atomic64_t jinj_late_ns;		/* this injection's spins' overrun */
static atomic64_t jinj_nested_ns;	/* interrupts in the source's spin */
static atomic64_t jinj_tasklet_ns;	/* softnest: the tasklet's run */
static atomic64_t jinj_own_ns;		/* softnest: the thread's, net */
static bool jinj_has_thread;		/* the injection's source is a thread */
static struct hrtimer jinj_hrtimer;
static struct timer_list jinj_timer;
static struct work_struct jinj_work;
static struct task_struct *jinj_waiter;	/* softpre: woken by the timer */
static DEFINE_SPINLOCK(jinj_slock);	/* softlock: held by the writer */
static atomic_t jinj_at_lock;		/* softlock: the callback reached it */
static bool jinj_softlock;		/* the timer runs softlock's callback */
static int jinj_go;			/* softpre: the timer has woken it */

enum jinj_thread_mode { JINJ_SPIN, JINJ_NEST, JINJ_WAIT, JINJ_SOFTNEST };

/*
 * jinj_irq_events - this CPU's count of interrupts taken: device irqs,
 * the system vectors that can land in a spin, and NMIs.
 */
static unsigned long jinj_irq_events(void)
{
	return this_cpu_read(kstat.irqs_sum) + jit_irq_counts();
}

/*
 * jinj_spin - busy-wait for @ns and add the overrun to jinj_late_ns; if
 * the caller is the injection's source (@src), add the loop's steps in
 * which an interrupt was taken to jinj_nested_ns.  The count is read
 * after the clock, so an interrupt between the two shows one step early:
 * the step after a moved count is taken too.  NMI-safe, so any context
 * may call it.  It reads the clock back to back, with no pause between:
 * under QEMU's TCG a pause leaves the translated code, which on the
 * icount clock costs far more host time than the guest time it stands
 * for.
 */
static void jinj_spin(u64 ns, bool src)
{
	u64 prev = ktime_get_mono_fast_ns();
	u64 end = prev + ns, nested = 0, now;
	unsigned long seen = jinj_irq_events(), cnt;
	bool hit = false, was;

	do {
		now = ktime_get_mono_fast_ns();
		cnt = jinj_irq_events();
		was = hit;
		hit = cnt != seen;
		if (hit || was)
			nested += now - prev;
		seen = cnt;
		prev = now;
	} while (now < end);
	atomic64_add(now - end, &jinj_late_ns);
	if (src)
		atomic64_add(nested, &jinj_nested_ns);
}

/* jinj_handler_is_src - a handler is the source unless a thread is. */
static bool jinj_handler_is_src(void)
{
	return !READ_ONCE(jinj_has_thread);
}

static enum hrtimer_restart jinj_hrtimer_fn(struct hrtimer *t)
{
	jinj_spin(READ_ONCE(jinj_irq_ns), jinj_handler_is_src());
	atomic_inc(&jinj_done);
	return HRTIMER_NORESTART;
}

/* jinj_arm_hrtimer - runs on the target CPU, so the timer fires there. */
static void jinj_arm_hrtimer(void *delay)
{
	hrtimer_start(&jinj_hrtimer, ns_to_ktime(*(u64 *)delay),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void jinj_ipi_fn(void *unused)
{
	jinj_spin(READ_ONCE(jinj_spin_ns), true);
	atomic_inc(&jinj_done);
}

static void jinj_timer_fn(struct timer_list *t)
{
	struct task_struct *w = READ_ONCE(jinj_waiter);
	u64 ns = READ_ONCE(jinj_spin_ns);

	if (READ_ONCE(jinj_softlock)) {
		atomic_set(&jinj_at_lock, 1);
		spin_lock(&jinj_slock);
		spin_unlock(&jinj_slock);
		atomic_inc(&jinj_done);
		return;
	}
	if (!w) {
		jinj_spin(ns, true);
		atomic_inc(&jinj_done);
		return;
	}
	jinj_spin(ns / 4, false);
	WRITE_ONCE(jinj_go, 1);
	wake_up_process(w);
	jinj_spin(ns / 4, false);
	atomic_inc(&jinj_done);
}

static void jinj_tasklet_fn(struct tasklet_struct *t)
{
	u64 t0 = ktime_get_mono_fast_ns();

	jinj_spin(READ_ONCE(jinj_irq_ns), true);
	atomic64_set(&jinj_tasklet_ns, ktime_get_mono_fast_ns() - t0);
	atomic_inc(&jinj_done);
}

static DECLARE_TASKLET(jinj_tasklet, jinj_tasklet_fn);

static void jinj_work_fn(struct work_struct *w)
{
	jinj_spin(READ_ONCE(jinj_spin_ns), true);
	atomic_inc(&jinj_done);
}

/* jinj_nmi - claim only the NMI we sent, and only on the target CPU. */
static int jinj_nmi(unsigned int type, struct pt_regs *regs)
{
	if (smp_processor_id() != READ_ONCE(jinj_cpu) ||
	    atomic_cmpxchg(&jinj_nmi_pending, 1, 0) != 1)
		return NMI_DONE;
	jinj_spin(READ_ONCE(jinj_spin_ns), true);
	atomic_inc(&jinj_done);
	return NMI_HANDLED;
}

/* jinj_park - sleep until kthread_stop(); a kthread's exit code. */
static int jinj_park(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * jinj_thread_fn - spin, then park until stopped.  In nest mode it arms the
 * hrtimer on its own CPU first and spins the hrtimer's time on top of its
 * own, so that its net time is still jinj_spin_ns.  In wait mode it sleeps
 * until the softpre timer wakes it, then spins jinj_irq_ns; in softnest
 * mode it waits the same way, then runs jinj_tasklet in its own context.
 */
static int jinj_thread_fn(void *arg)
{
	enum jinj_thread_mode mode = (long)arg;
	u64 spin = READ_ONCE(jinj_spin_ns);

	if (mode == JINJ_NEST) {
		u64 delay = spin / 4;

		jinj_arm_hrtimer(&delay);
		spin += READ_ONCE(jinj_irq_ns);
	} else if (mode == JINJ_WAIT || mode == JINJ_SOFTNEST) {
		set_current_state(TASK_INTERRUPTIBLE);
		while (!READ_ONCE(jinj_go) && !kthread_should_stop()) {
			schedule();
			set_current_state(TASK_INTERRUPTIBLE);
		}
		__set_current_state(TASK_RUNNING);
		if (!READ_ONCE(jinj_go))
			return 0;
		spin = READ_ONCE(jinj_irq_ns);
	}
	if (mode == JINJ_SOFTNEST) {
		u64 t0;

		local_bh_disable();	/* with a BH lock, may wait for TIMER */
		t0 = ktime_get_mono_fast_ns();
		tasklet_schedule(&jinj_tasklet);
		local_bh_enable();	/* runs it here */
		atomic64_set(&jinj_own_ns, ktime_get_mono_fast_ns() - t0 -
			     atomic64_read(&jinj_tasklet_ns));
		return jinj_park();
	}
	jinj_spin(spin, true);
	atomic_inc(&jinj_done);
	return jinj_park();
}

/* jinj_start_thread - start the FIFO spinner; the caller must put it. */
static struct task_struct *jinj_start_thread(unsigned int cpu,
					     enum jinj_thread_mode mode)
{
	struct task_struct *t;

	t = jit_kthread_on_cpu(jinj_thread_fn, (void *)(long)mode, cpu,
			       "jitinject/%u");
	if (IS_ERR(t))
		return t;
	sched_set_fifo(t);
	get_task_struct(t);
	WRITE_ONCE(jinj_last_pid, t->pid);
	wake_up_process(t);
	return t;
}

/*
 * jinj_wait - wait until @want injections have finished: the first
 * @start_ns from now, @spin_ns long in all (twice that is allowed).
 *
 * The writer sleeps out the injection before it looks, so that its CPU
 * does nothing while the injection runs.  On deterministic time (QEMU's
 * icount, one host thread for every vCPU) any work of another vCPU is
 * time in which the injected one runs nothing: a writer that polled every
 * half millisecond put tens of microseconds into some injections' windows,
 * and one woken by the injection ran hundreds while the window was still
 * closing (accuracy.py).
 */
static int jinj_wait(int want, u64 start_ns, u64 spin_ns)
{
	unsigned long end = jiffies + msecs_to_jiffies(JINJ_SLACK_MS) +
			    nsecs_to_jiffies(start_ns + 2 * spin_ns);

	fsleep(div_u64(start_ns + spin_ns, NSEC_PER_USEC) + JINJ_POLL_AFTER_US);
	while (atomic_read(&jinj_done) < want) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(500, 1000);
	}
	return 0;
}

/* jinj_preempt_fn - softlock on PREEMPT_RT: keep the lock's owner off. */
static int jinj_preempt_fn(void *arg)
{
	jinj_spin(READ_ONCE(jinj_spin_ns), false);
	return jinj_park();
}

/*
 * jinj_fire_softlock - hold jinj_slock for @ns from the moment the TIMER
 * callback on @cpu reaches it, preempted by a FIFO thread on PREEMPT_RT.
 * The wait for the callback spins, because the lock is held (a spinning
 * lock, off PREEMPT_RT).  The writer stays on one CPU throughout, so that
 * the preempting thread, bound there before the lock is taken, runs on it.
 */
static int jinj_fire_softlock(unsigned int cpu, u64 ns)
{
	u64 end = ktime_get_mono_fast_ns() + JINJ_SLACK_MS * NSEC_PER_MSEC;
	struct task_struct *t = NULL;
	int ret = 0;

	atomic_set(&jinj_at_lock, 0);
	WRITE_ONCE(jinj_softlock, true);
	migrate_disable();
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		t = jit_kthread_on_cpu(jinj_preempt_fn, NULL,
				       smp_processor_id(), "jitinject/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto out;
		}
		sched_set_fifo(t);
	}
	spin_lock(&jinj_slock);
	jinj_timer.expires = jiffies + 1;
	add_timer_on(&jinj_timer, cpu);
	while (!atomic_read(&jinj_at_lock)) {
		if (ktime_get_mono_fast_ns() > end) {
			ret = -ETIMEDOUT;
			break;
		}
		cpu_relax();
	}
	if (!ret && t)
		wake_up_process(t);	/* runs now, and for ns */
	else if (!ret)
		jinj_spin(ns, false);
	spin_unlock(&jinj_slock);
	if (ret)
		jit_timer_delete_sync(&jinj_timer);
	else
		ret = jinj_wait(1, 0, ns);
	if (t)
		kthread_stop(t);
out:
	migrate_enable();
	WRITE_ONCE(jinj_softlock, false);
	return ret;
}

/* jinj_fire - make one interruption of @cls on @cpu and wait for it. */
static int jinj_fire(const char *cls, unsigned int cpu, u64 ns)
{
	u64 delay = JINJ_ARM_DELAY_US * NSEC_PER_USEC, start = 0;
	struct task_struct *t = NULL;
	int want = 1, ret = 0;
	bool softnest;

	atomic_set(&jinj_done, 0);
	atomic64_set(&jinj_late_ns, 0);
	atomic64_set(&jinj_nested_ns, 0);
	atomic64_set(&jinj_tasklet_ns, 0);
	atomic64_set(&jinj_own_ns, 0);
	WRITE_ONCE(jinj_has_thread, !strcmp(cls, "thread") ||
		   !strcmp(cls, "nest") || !strcmp(cls, "softpre"));
	softnest = !strcmp(cls, "softnest");
	WRITE_ONCE(jinj_spin_ns, ns);
	WRITE_ONCE(jinj_irq_ns, ns);
	if (!strcmp(cls, "hrtimer")) {
		start = delay;
		ret = smp_call_function_single(cpu, jinj_arm_hrtimer, &delay, 1);
	} else if (!strcmp(cls, "ipi")) {
		ret = smp_call_function_single(cpu, jinj_ipi_fn, NULL, 1);
	} else if (!strcmp(cls, "softirq")) {
		jinj_timer.expires = jiffies + 1;
		start = 2 * TICK_NSEC;	/* the timer wheel's granularity */
		add_timer_on(&jinj_timer, cpu);
	} else if (!strcmp(cls, "work")) {
		queue_work_on(cpu, system_wq, &jinj_work);
	} else if (!strcmp(cls, "softlock")) {
		return jinj_fire_softlock(cpu, ns);
	} else if (!strcmp(cls, "nmi")) {
		atomic_set(&jinj_nmi_pending, 1);
		apic->send_IPI(cpu, NMI_VECTOR);
	} else if (jinj_has_thread || softnest) {
		enum jinj_thread_mode mode = softnest ? JINJ_SOFTNEST :
					     cls[0] == 't' ? JINJ_SPIN :
					     cls[0] == 'n' ? JINJ_NEST :
							     JINJ_WAIT;

		WRITE_ONCE(jinj_irq_ns, ns / 2);
		want = mode == JINJ_SPIN ? 1 : 2;
		WRITE_ONCE(jinj_go, 0);
		t = jinj_start_thread(cpu, mode);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			t = NULL;
		} else if (mode == JINJ_WAIT || mode == JINJ_SOFTNEST) {
			WRITE_ONCE(jinj_waiter, t);
			jinj_timer.expires = jiffies + 1;
			start = 2 * TICK_NSEC;
			add_timer_on(&jinj_timer, cpu);
		}
	} else {
		pr_err("inject: unknown class '%s' (hrtimer ipi softirq softlock nmi work thread nest softpre softnest)\n",
		       cls);
		return -EINVAL;
	}
	if (!ret)
		ret = jinj_wait(want, start, ns);
	if (ret == -ETIMEDOUT && !strcmp(cls, "softirq"))
		jit_timer_delete_sync(&jinj_timer); /* the next add_timer_on() */
	if (t) {
		if (t == jinj_waiter)
			jit_timer_delete_sync(&jinj_timer);
		WRITE_ONCE(jinj_waiter, NULL);
		kthread_stop(t);
		put_task_struct(t);
	}
	if (ret == -ETIMEDOUT)
		pr_err("inject: %s on cpu %u did not run within %u ms\n", cls,
		       cpu, JINJ_SLACK_MS);
	return ret;
}

/* "inject": "<class> <duration_us>"; the write runs the injection. */
static int jinj_inject_set(const char *val, const struct kernel_param *kp)
{
	char cls[16];
	unsigned int us, cpu;
	int ret;

	if (sscanf(val, "%15s %u", cls, &us) != 2 || us > JINJ_MAX_US) {
		pr_err("inject: want '<class> <duration_us>' with 0..%u us\n",
		       JINJ_MAX_US);
		return -EINVAL;
	}
	mutex_lock(&jinj_lock);
	cpus_read_lock();
	cpu = READ_ONCE(jinj_cpu);
	if (!cpu_online(cpu)) {
		pr_err("inject: cpu %u is offline\n", cpu);
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = jinj_fire(cls, cpu, (u64)us * NSEC_PER_USEC);
out_unlock:
	cpus_read_unlock();
	mutex_unlock(&jinj_lock);
	return ret;
}

static const struct kernel_param_ops jinj_inject_ops = {
	.set = jinj_inject_set,
};
module_param_cb(inject, &jinj_inject_ops, NULL, 0200);
MODULE_PARM_DESC(inject, "write '<class> <duration_us>' to inject once");

static int jinj_cpu_set(const char *val, const struct kernel_param *kp)
{
	unsigned int cpu;

	if (kstrtouint(val, 0, &cpu) || cpu >= nr_cpu_ids ||
	    !cpu_online(cpu)) {
		pr_err("cpu: '%s' is not an online CPU\n", strim((char *)val));
		return -EINVAL;
	}
	WRITE_ONCE(jinj_cpu, cpu);
	return 0;
}

static const struct kernel_param_ops jinj_cpu_ops = {
	.set = jinj_cpu_set,
	.get = param_get_uint,
};
module_param_cb(cpu, &jinj_cpu_ops, &jinj_cpu, 0600);
MODULE_PARM_DESC(cpu, "the CPU to inject on (default 1)");
module_param_named(last_pid, jinj_last_pid, int, 0400);
MODULE_PARM_DESC(last_pid, "pid of the last injector thread");

/* jinj_atomic64_get - a read-only parameter backed by an atomic64_t. */
static int jinj_atomic64_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%lld\n",
			 (long long)atomic64_read((atomic64_t *)kp->arg));
}

static const struct kernel_param_ops jinj_atomic64_ops = {
	.get = jinj_atomic64_get,
};

/* jinj_sync_rcu_get - time one synchronize_rcu() from the reader's CPU. */
static int jinj_sync_rcu_get(char *buf, const struct kernel_param *kp)
{
	u64 t0 = ktime_get_ns();

	synchronize_rcu();
	return scnprintf(buf, PAGE_SIZE, "%llu\n", ktime_get_ns() - t0);
}

static const struct kernel_param_ops jinj_sync_rcu_ops = {
	.get = jinj_sync_rcu_get,
};
module_param_cb(sync_rcu_ns, &jinj_sync_rcu_ops, NULL, 0400);
MODULE_PARM_DESC(sync_rcu_ns, "a read runs synchronize_rcu() and gives its ns");

module_param_cb(late_ns, &jinj_atomic64_ops, &jinj_late_ns, 0400);
MODULE_PARM_DESC(late_ns, "ns the last injection's spins ran past their time");
module_param_cb(nested_ns, &jinj_atomic64_ops, &jinj_nested_ns, 0400);
MODULE_PARM_DESC(nested_ns, "ns of interrupts nested in the last injection's source spin");
module_param_cb(own_ns, &jinj_atomic64_ops, &jinj_own_ns, 0400);
MODULE_PARM_DESC(own_ns, "softnest: ns the thread ran around its tasklet, by the clock");

static int __init jinj_init(void)
{
	int ret;

	jit_hrtimer_setup(&jinj_hrtimer, jinj_hrtimer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_HARD);
	timer_setup(&jinj_timer, jinj_timer_fn, TIMER_PINNED);
	INIT_WORK(&jinj_work, jinj_work_fn);
	jinj_smi_init();
	ret = register_nmi_handler(NMI_LOCAL, jinj_nmi, 0, "jitinject");
	if (ret)
		pr_err("cannot register the NMI handler: %d\n", ret);
	return ret;
}

static void __exit jinj_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "jitinject");
	hrtimer_cancel(&jinj_hrtimer);
	jinj_smi_exit();
	jit_timer_delete_sync(&jinj_timer);
	cancel_work_sync(&jinj_work);
	tasklet_kill(&jinj_tasklet);
}

module_init(jinj_init);
module_exit(jinj_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("jitmod selftest noise injector (test only)");
