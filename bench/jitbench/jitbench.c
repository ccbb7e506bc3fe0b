// SPDX-License-Identifier: GPL-2.0
/*
 * jitbench.c - test-only reference loops for `make bench`.  Never installed.
 *
 * Each write to /sys/module/jitbench/parameters/run does one measurement
 * and returns when it is over; the figures are then in the read-only
 * "result" parameter as key=value pairs.
 *
 *   bare MS     a kthread pinned to "cpu" reads the TSC in a loop for MS ms,
 *               with interrupts on, and does nothing else: the floor that
 *               jitmod's sampling loop is measured against
 *   probed MS   the same loop, but each turn also calls rcu_momentary_eqs()
 *               with interrupts off, as the osnoise tracer's loop does on
 *               PREEMPT_RCU kernels: with and without a kprobe on it, this
 *               gives the kprobe's cost, which the bench then takes off the
 *               osnoise turns that the same kprobe counts
 *   spin MS     the bare loop for MS ms in the background (the write
 *               returns at once; "spin 0" stops it early): a CPU that
 *               reads the TSC as often as jitmod does, without its hooks
 *   ipi N       N synchronous smp_call_function_single() calls to "cpu"
 *               with an empty function, timed one by one from the writer's
 *               CPU: what a tracer's interrupt hooks add to an interrupt
 *
 * Writing a symbol to "probe" puts a kprobe on it that counts the calls
 * made on "cpu" into "hits" (writing "-" removes it).  A kprobe of our own,
 * not a kprobe event: kprobe events refuse notrace functions, and
 * rcu_momentary_eqs() is one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <asm/tsc.h>
#include "jitmod_kcompat.h"

#define JB_MAX_MS	5000U	/* a spinning kthread must not trip lockup checks */
#define JB_MAX_IPIS	100000U
#define JB_RESULT_LEN	160

static unsigned int jb_cpu = 1;
static char jb_result[JB_RESULT_LEN];
static DEFINE_MUTEX(jb_lock);
static struct kprobe jb_kp;
static char jb_kp_sym[KSYM_NAME_LEN];
static bool jb_kp_on;
static atomic64_t jb_hits;

struct jb_loop {
	u64 run_cyc;
	bool probed;
	u64 iters;
	u64 runtime_cyc;
	u64 min_delta_cyc;
	struct completion done;
};

static int jb_loop_fn(void *arg)
{
	struct jb_loop *l = arg;
	u64 start, prev, t, delta, min_delta = U64_MAX, iters = 0;
	u64 run = READ_ONCE(l->run_cyc);

	start = rdtsc();
	prev = start;
	do {
		if (l->probed) {
			/* one turn of osnoise's loop on PREEMPT_RCU kernels */
			local_irq_disable();
			jit_rcu_momentary_eqs();
			local_irq_enable();
		}
		t = rdtsc();
		delta = t - prev;
		if (delta < min_delta)
			min_delta = delta;
		iters++;
		prev = t;
		/* like jitmod, look outside the loop every 1024 turns */
		if (unlikely(!(iters & 0x3ff)))
			run = READ_ONCE(l->run_cyc);
	} while (t - start < run);
	l->iters = iters;
	l->runtime_cyc = t - start;
	l->min_delta_cyc = min_delta;
	complete(&l->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static u64 jb_cyc_to_ps(u64 cyc)
{
	return mul_u64_u32_div(cyc, 1000000000U, tsc_khz);
}

/* jb_start - set @l up for @ms and start its loop on @cpu; caller puts it. */
static struct task_struct *jb_start(struct jb_loop *l, unsigned int cpu,
				    unsigned int ms)
{
	struct task_struct *t;

	l->run_cyc = (u64)ms * tsc_khz;
	init_completion(&l->done);
	t = jit_kthread_on_cpu(jb_loop_fn, l, cpu, "jitbench/%u");
	if (IS_ERR(t))
		return t;
	get_task_struct(t);
	wake_up_process(t);
	return t;
}

/* jb_run_loop - run one loop on jb_cpu for @ms and publish its figures. */
static int jb_run_loop(unsigned int cpu, unsigned int ms, bool probed)
{
	struct jb_loop l = { .probed = probed };
	struct task_struct *t;

	t = jb_start(&l, cpu, ms);
	if (IS_ERR(t))
		return PTR_ERR(t);
	wait_for_completion(&l.done);
	kthread_stop(t);
	put_task_struct(t);
	scnprintf(jb_result, sizeof(jb_result),
		  "mode=%s cpu=%u iterations=%llu runtime_ns=%llu min_delta_ps=%llu\n",
		  probed ? "probed" : "bare", cpu, l.iters,
		  jb_cyc_to_ps(l.runtime_cyc) / 1000,
		  jb_cyc_to_ps(l.min_delta_cyc));
	return 0;
}

static struct jb_loop jb_spin;
static struct task_struct *jb_spin_task;

/* jb_spin_stop - end a background spin, if any. */
static void jb_spin_stop(void)
{
	if (!jb_spin_task)
		return;
	WRITE_ONCE(jb_spin.run_cyc, 0);
	kthread_stop(jb_spin_task);
	put_task_struct(jb_spin_task);
	jb_spin_task = NULL;
}

/* jb_spin_start - the bare loop on @cpu for @ms, without waiting for it. */
static int jb_spin_start(unsigned int cpu, unsigned int ms)
{
	struct task_struct *t;

	jb_spin_stop();
	if (!ms)
		return 0;
	memset(&jb_spin, 0, sizeof(jb_spin));
	t = jb_start(&jb_spin, cpu, ms);
	if (IS_ERR(t))
		return PTR_ERR(t);
	jb_spin_task = t;
	return 0;
}

static void jb_nop(void *unused)
{
}

static int jb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* jb_run_ipis - time @n synchronous IPIs to @cpu; publish min/median/mean. */
static int jb_run_ipis(unsigned int cpu, unsigned int n)
{
	u64 *cyc, t0, sum = 0;
	unsigned int i;
	int ret = 0;

	cyc = kvmalloc_array(n, sizeof(*cyc), GFP_KERNEL);
	if (!cyc)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		t0 = rdtsc_ordered();
		ret = smp_call_function_single(cpu, jb_nop, NULL, 1);
		cyc[i] = rdtsc_ordered() - t0;
		if (ret)
			goto out_free;
		sum += cyc[i];
	}
	sort(cyc, n, sizeof(*cyc), jb_cmp_u64, NULL);
	scnprintf(jb_result, sizeof(jb_result),
		  "mode=ipi cpu=%u n=%u min_ns=%llu median_ns=%llu mean_ns=%llu\n",
		  cpu, n, jb_cyc_to_ps(cyc[0]) / 1000,
		  jb_cyc_to_ps(cyc[n / 2]) / 1000,
		  jb_cyc_to_ps(div_u64(sum, n)) / 1000);
out_free:
	kvfree(cyc);
	return ret;
}

/* "run": "bare MS", "probed MS" or "ipi N"; the write does the work. */
static int jb_run_set(const char *val, const struct kernel_param *kp)
{
	char mode[8];
	unsigned int arg, cpu;
	int ret;

	if (sscanf(val, "%7s %u", mode, &arg) != 2 ||
	    (!arg && strcmp(mode, "spin"))) {
		pr_err("run: want 'bare MS', 'probed MS', 'spin MS' or 'ipi N'\n");
		return -EINVAL;
	}
	mutex_lock(&jb_lock);
	cpus_read_lock();
	cpu = READ_ONCE(jb_cpu);
	jb_result[0] = '\0';
	if (!cpu_online(cpu)) {
		pr_err("run: cpu %u is offline\n", cpu);
		ret = -EINVAL;
	} else if (!strcmp(mode, "spin") && arg <= JB_MAX_MS) {
		ret = jb_spin_start(cpu, arg);
	} else if (!strcmp(mode, "ipi") && arg <= JB_MAX_IPIS) {
		ret = jb_run_ipis(cpu, arg);
	} else if (strcmp(mode, "ipi") && arg <= JB_MAX_MS &&
		   (!strcmp(mode, "bare") || !strcmp(mode, "probed"))) {
		ret = jb_run_loop(cpu, arg, mode[0] == 'p');
	} else {
		pr_err("run: '%s %u': loops take 1..%u ms, ipi 1..%u calls\n",
		       mode, arg, JB_MAX_MS, JB_MAX_IPIS);
		ret = -EINVAL;
	}
	cpus_read_unlock();
	mutex_unlock(&jb_lock);
	return ret;
}

static const struct kernel_param_ops jb_run_ops = {
	.set = jb_run_set,
};
module_param_cb(run, &jb_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write 'bare MS', 'probed MS', 'spin MS' or 'ipi N'");

static int jb_cpu_set(const char *val, const struct kernel_param *kp)
{
	unsigned int cpu;

	if (kstrtouint(val, 0, &cpu) || cpu >= nr_cpu_ids ||
	    !cpu_online(cpu)) {
		pr_err("cpu: '%s' is not an online CPU\n", strim((char *)val));
		return -EINVAL;
	}
	WRITE_ONCE(jb_cpu, cpu);
	return 0;
}

static const struct kernel_param_ops jb_cpu_ops = {
	.set = jb_cpu_set,
	.get = param_get_uint,
};
module_param_cb(cpu, &jb_cpu_ops, &jb_cpu, 0600);
MODULE_PARM_DESC(cpu, "the CPU the loops run on and the IPIs go to (default 1)");
module_param_string(result, jb_result, sizeof(jb_result), 0400);
MODULE_PARM_DESC(result, "figures of the last run, key=value");

static int jb_kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (raw_smp_processor_id() == READ_ONCE(jb_cpu))
		atomic64_inc(&jb_hits);
	return 0;
}

/* "probe": a symbol to count the calls to on "cpu", or "-" for none. */
static int jb_probe_set(const char *val, const struct kernel_param *kp)
{
	char sym[KSYM_NAME_LEN];
	int ret = 0;

	if (sscanf(val, "%127s", sym) != 1) {
		pr_err("probe: want a symbol or '-'\n");
		return -EINVAL;
	}
	mutex_lock(&jb_lock);
	if (jb_kp_on) {
		unregister_kprobe(&jb_kp);
		jb_kp_on = false;
	}
	atomic64_set(&jb_hits, 0);
	if (strcmp(sym, "-")) {
		strscpy(jb_kp_sym, sym, sizeof(jb_kp_sym));
		memset(&jb_kp, 0, sizeof(jb_kp));
		jb_kp.symbol_name = jb_kp_sym;
		jb_kp.pre_handler = jb_kp_pre;
		ret = register_kprobe(&jb_kp);
		if (ret)
			pr_err("probe: cannot probe '%s': %d\n", sym, ret);
		jb_kp_on = !ret;
	}
	mutex_unlock(&jb_lock);
	return ret;
}

static int jb_probe_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", jb_kp_on ? jb_kp_sym : "-");
}

static const struct kernel_param_ops jb_probe_ops = {
	.set = jb_probe_set,
	.get = jb_probe_get,
};
module_param_cb(probe, &jb_probe_ops, NULL, 0600);
MODULE_PARM_DESC(probe, "a symbol whose calls on cpu to count, or -");

static int jb_hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&jb_hits));
}

static const struct kernel_param_ops jb_hits_ops = {
	.get = jb_hits_get,
};
module_param_cb(hits, &jb_hits_ops, NULL, 0400);
MODULE_PARM_DESC(hits, "calls to the probed symbol on cpu so far");

static void __exit jb_exit(void)
{
	jb_spin_stop();
	if (jb_kp_on)
		unregister_kprobe(&jb_kp);
}
module_exit(jb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("jitmod benchmark reference loops (test only)");
