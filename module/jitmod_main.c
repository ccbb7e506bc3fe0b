// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_main.c - parameters, control and lifecycle of jitmod.
 *
 * Every parameter is a module parameter and also a root-only (0600) file in
 * /sys/module/jitmod/parameters/.  A write to one of those here (cpus,
 * prio, irqs_off, enable) is validated, then the sampler kthreads are
 * stopped, the value is changed and they are started again, so a sampler
 * never sees a half-changed configuration.  The duty parameters change
 * without a restart (jitmod_duty.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/isolation.h>
#include "jitmod.h"
#include "jitmod_hw.h"

#define CREATE_TRACE_POINTS
#include "jitmod_trace.h"

#define DEFAULT_THRESHOLD_NS	1000ULL
#define DEFAULT_PERIOD_US	1000000ULL
#define DEFAULT_RUNTIME_US	900000ULL
#define JIT_MAX_PRIO		99

struct jit_params jit_params = {
	.duty = {
		.threshold_ns = DEFAULT_THRESHOLD_NS,
		.period_us = DEFAULT_PERIOD_US,
		.runtime_us = DEFAULT_RUNTIME_US,
	},
};

bool jit_stopped;
/* set while the samplers are being stopped: they leave their loop at once */
bool jit_halting;

DEFINE_PER_CPU(struct jit_cpu, jit_cpus);
DEFINE_MUTEX(jit_lock);			/* serialises start, stop, params */
static struct cpumask jit_mask;		/* CPUs to sample */
static char jit_cpus_str[256];		/* jit_mask as the user wrote it */
static bool jit_enable = true;
bool jit_ready;				/* init done: writes now take effect */
static int jit_hp_state = -1;		/* cpuhp state while running */
static bool jit_starting;		/* jit_start() wakes the samplers */

/* jit_cpu_get - the one accessor for a CPU's jitmod state. */
struct jit_cpu *jit_cpu_get(unsigned int cpu)
{
	return per_cpu_ptr(&jit_cpus, cpu);
}

/* jit_cpu_online - cpuhp: start the sampler on a CPU we sample. */
static int jit_cpu_online(unsigned int cpu)
{
	struct jit_cpu *jc = jit_cpu_get(cpu);
	struct task_struct *t;

	if (!cpumask_test_cpu(cpu, &jit_mask))
		return 0;
	jc->cpu = cpu;
	jit_hw_init_cpu(jc);
	t = jit_kthread_on_cpu(jit_sampler_fn, jc, cpu, "jitmod/%u");
	if (IS_ERR(t)) {
		pr_err("cpu %u: cannot create the sampler: %ld\n", cpu,
		       PTR_ERR(t));
		return PTR_ERR(t);
	}
	if (jit_params.prio && jit_set_fifo(t, jit_params.prio))
		pr_warn("cpu %u: cannot set SCHED_FIFO %u\n", cpu,
			jit_params.prio);
	jc->task = t;
	/*
	 * This runs in the CPU's hotplug thread, on that CPU.  Under full
	 * preemption a SCHED_FIFO sampler woken here would take the CPU from
	 * that thread before it reports back, and hold it for a whole
	 * runtime: insmod or a parameter write would wait that long.  So
	 * jit_start() wakes the samplers itself once every callback is done;
	 * only a CPU coming online later is woken from here.
	 */
	if (!jit_starting) {
		jit_cgroup_online(cpu);
		wake_up_process(t);
	}
	return 0;
}

/* jit_cpu_offline - cpuhp: stop the sampler before its CPU goes away. */
static int jit_cpu_offline(unsigned int cpu)
{
	struct jit_cpu *jc = jit_cpu_get(cpu);

	if (!jc->task)
		return 0;
	kthread_stop(jc->task);
	jc->task = NULL;
	WRITE_ONCE(jc->sampling, false);
	return 0;
}

/* jit_wake_samplers - start the samplers jit_cpu_online() created. */
static void jit_wake_samplers(void)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_cpu(cpu, &jit_mask) {
		struct jit_cpu *jc = jit_cpu_get(cpu);

		if (cpu_online(cpu) && jc->task)
			wake_up_process(jc->task);
	}
	cpus_read_unlock();
}

/* jit_start - hook the probes and start a sampler on each online CPU. */
static int jit_start(void)
{
	int ret;

	lockdep_assert_held(&jit_lock);
	if (jit_hp_state >= 0 || !jit_enable)
		return 0;
	WRITE_ONCE(jit_stopped, false);
	WRITE_ONCE(jit_halting, false);
	ret = jit_probes_hook();
	if (ret)
		return ret;
	jit_starting = true;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "jitmod:online",
				jit_cpu_online, jit_cpu_offline);
	jit_starting = false;
	if (ret < 0)
		goto err_unhook;
	WRITE_ONCE(jit_hp_state, ret);
	/* moved before they run; a failure leaves them sampling, and says so */
	jit_cgroup_join_all(&jit_mask);
	jit_wake_samplers();
	return 0;

err_unhook:
	jit_probes_unhook();
	return ret;
}

/*
 * jit_stop - stop every sampler, then unhook the probes.
 *
 * cpuhp_remove_state() runs each CPU's teardown in that CPU's cpuhp
 * thread, a SCHED_OTHER task.  A SCHED_FIFO sampler spinning there would
 * keep it off the CPU for the rest of its runtime, stalling the writer or
 * rmmod behind it; jit_halting makes every sampler leave its loop and
 * sleep first, so the teardown runs at once.
 */
static void jit_stop(void)
{
	lockdep_assert_held(&jit_lock);
	if (jit_hp_state < 0)
		return;
	WRITE_ONCE(jit_halting, true);
	cpuhp_remove_state(jit_hp_state);
	WRITE_ONCE(jit_hp_state, -1);
	jit_probes_unhook();
}

/*
 * jit_restart - apply a change: stop, change, start, under jit_lock.
 *
 * jit_ready is tested under the lock, because a parameter write holds no
 * module reference and module_exit() runs while the parameter files still
 * exist: a writer that saw jit_ready before jit_exit() cleared it would
 * otherwise start probes, the NMI handler and kthreads in a module about
 * to be freed.  Before init and after exit a write only sets the value.
 */
static int jit_restart_locked(void (*apply)(void *), void *arg)
{
	int ret = 0;

	lockdep_assert_held(&jit_lock);
	if (jit_ready)
		jit_stop();
	apply(arg);
	if (jit_ready)
		ret = jit_start();
	return ret;
}

int jit_restart(void (*apply)(void *), void *arg)
{
	int ret;

	mutex_lock(&jit_lock);
	ret = jit_restart_locked(apply, arg);
	mutex_unlock(&jit_lock);
	return ret;
}

/*
 * Parameter handling.  Each setter validates, logs one line naming the
 * parameter on failure and returns -EINVAL, then applies through
 * jit_restart().  A rule across parameters (runtime <= period, irqs_off's
 * bound on runtime) is checked under jit_lock, against the values in
 * force: after init by the setter, and by jit_init() itself for what
 * insmod, or a write racing it, stored before (in any order).
 */

/* jit_parse_cpus - parse and check a cpulist against the online CPUs. */
static int jit_parse_cpus(const char *val, struct cpumask *mask)
{
	char buf[sizeof(jit_cpus_str)];
	unsigned int bad;

	if (strscpy(buf, val, sizeof(buf)) < 0) {
		pr_err("cpus: list too long\n");
		return -EINVAL;
	}
	strim(buf);
	if (!buf[0] || cpulist_parse(buf, mask)) {
		pr_err("cpus: '%s' is not a cpu list (e.g. 1-3,5)\n", buf);
		return -EINVAL;
	}
	if (cpumask_empty(mask)) {
		pr_err("cpus: '%s' selects no CPU\n", buf);
		return -EINVAL;
	}
	if (!cpumask_subset(mask, cpu_online_mask)) {
		cpumask_andnot(mask, mask, cpu_online_mask);
		bad = cpumask_first(mask);
		pr_err("cpus: CPU %u does not exist or is offline\n", bad);
		return -EINVAL;
	}
	return 0;
}

struct jit_cpus_change {
	struct cpumask mask;
	const char *str;
};

static void jit_apply_cpus(void *arg)
{
	struct jit_cpus_change *c = arg;

	cpumask_copy(&jit_mask, &c->mask);
	strscpy(jit_cpus_str, c->str, sizeof(jit_cpus_str));
	strim(jit_cpus_str);
}

static int jit_set_cpus(const char *val, const struct kernel_param *kp)
{
	struct jit_cpus_change c = { .str = val };

	if (jit_parse_cpus(val, &c.mask))
		return -EINVAL;
	return jit_restart(jit_apply_cpus, &c);
}

static int jit_get_cpus(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(&jit_mask));
}

static const struct kernel_param_ops jit_cpus_ops = {
	.set = jit_set_cpus,
	.get = jit_get_cpus,
};

module_param_cb(cpus, &jit_cpus_ops, NULL, 0600);
MODULE_PARM_DESC(cpus, "CPUs to sample, a cpulist (default: the isolated CPUs, else all but CPU 0)");

static void jit_apply_prio(void *arg)
{
	jit_params.prio = *(unsigned int *)arg;
}

static int jit_set_prio(const char *val, const struct kernel_param *kp)
{
	unsigned int prio;

	if (kstrtouint(val, 0, &prio) || prio > JIT_MAX_PRIO) {
		pr_err("prio: '%s' is not 0 (SCHED_OTHER) or 1..%d (SCHED_FIFO)\n",
		       strim((char *)val), JIT_MAX_PRIO);
		return -EINVAL;
	}
	if (!jit_fifo_prio_ok(prio)) {
		pr_err("prio: %u needs sched_setattr_nocheck(), which this kernel does not export: use 1 or %d\n",
		       prio, MAX_RT_PRIO / 2);
		return -EINVAL;
	}
	return jit_restart(jit_apply_prio, &prio);
}

static int jit_get_prio(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", jit_params.prio);
}

static const struct kernel_param_ops jit_prio_ops = {
	.set = jit_set_prio,
	.get = jit_get_prio,
};

module_param_cb(prio, &jit_prio_ops, NULL, 0600);
MODULE_PARM_DESC(prio, "Sampler priority: 0 SCHED_OTHER, 1-99 SCHED_FIFO (default 0)");

static void jit_apply_irqs_off(void *arg)
{
	jit_params.irqs_off = *(bool *)arg;
}

static int jit_set_irqs_off(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = -EINVAL;

	if (kstrtobool(val, &on)) {
		pr_err("irqs_off: '%s' is not a boolean\n", strim((char *)val));
		return -EINVAL;
	}
	mutex_lock(&jit_lock);
	if (!jit_ready || jit_irqs_off_fits(jit_params.duty.runtime_us, on))
		ret = jit_restart_locked(jit_apply_irqs_off, &on);
	mutex_unlock(&jit_lock);
	return ret;
}

static int jit_get_irqs_off(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", jit_params.irqs_off);
}

static const struct kernel_param_ops jit_irqs_off_ops = {
	.set = jit_set_irqs_off,
	.get = jit_get_irqs_off,
};

module_param_cb(irqs_off, &jit_irqs_off_ops, NULL, 0600);
MODULE_PARM_DESC(irqs_off, "Sample with interrupts disabled, so that only NMIs and hardware noise remain; runtime_us at most 1000000 (default 0)");

static void jit_apply_enable(void *arg)
{
	jit_enable = *(bool *)arg;
}

static int jit_set_enable(const char *val, const struct kernel_param *kp)
{
	bool on;

	if (kstrtobool(val, &on)) {
		pr_err("enable: '%s' is not a boolean\n", strim((char *)val));
		return -EINVAL;
	}
	return jit_restart(jit_apply_enable, &on);
}

static int jit_get_enable(char *buf, const struct kernel_param *kp)
{
	/* 0 also when a restart failed and nothing samples */
	return sysfs_emit(buf, "%d\n", READ_ONCE(jit_hp_state) >= 0 &&
			  !READ_ONCE(jit_stopped));
}

static const struct kernel_param_ops jit_enable_ops = {
	.set = jit_set_enable,
	.get = jit_get_enable,
};

module_param_cb(enable, &jit_enable_ops, NULL, 0600);
MODULE_PARM_DESC(enable, "1 samples, 0 stops; reads 0 after a stop condition (default 1)");

/* tsc_khz: read-only, so that readers can turn cycles into time too. */
static int jit_set_tsc_khz(const char *val, const struct kernel_param *kp)
{
	pr_err("tsc_khz: read-only (the kernel's TSC calibration)\n");
	return -EINVAL;
}

static int jit_get_tsc_khz(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", jit_cyc_khz());
}

static const struct kernel_param_ops jit_tsc_khz_ops = {
	.set = jit_set_tsc_khz,
	.get = jit_get_tsc_khz,
};

module_param_cb(tsc_khz, &jit_tsc_khz_ops, NULL, 0444);
MODULE_PARM_DESC(tsc_khz, "TSC frequency in kHz (read-only)");

/* details: read-only, what jitmod:detail can name on this kernel. */
static int jit_set_details(const char *val, const struct kernel_param *kp)
{
	pr_err("details: read-only (the tracepoints this kernel has)\n");
	return -EINVAL;
}

static int jit_get_details(char *buf, const struct kernel_param *kp)
{
	return jit_detail_names(buf, PAGE_SIZE);
}

static const struct kernel_param_ops jit_details_ops = {
	.set = jit_set_details,
	.get = jit_get_details,
};

module_param_cb(details, &jit_details_ops, NULL, 0444);
MODULE_PARM_DESC(details, "Details jitmod:detail names here: work,timer,hrtimer,tick (read-only)");

/*
 * jit_default_cpus - the CPUs outside the housekeeping mask, else all but 0.
 *
 * Sampling a housekeeping CPU would measure the noise we ask users to move
 * there, so by default we sample only what isolcpus/nohz_full isolated.
 */
static void jit_default_cpus(void)
{
	cpumask_andnot(&jit_mask, cpu_online_mask,
		       housekeeping_cpumask(JIT_HK_DOMAIN));
	if (cpumask_empty(&jit_mask)) {
		cpumask_copy(&jit_mask, cpu_online_mask);
		cpumask_clear_cpu(0, &jit_mask);
		pr_info("no isolated CPUs; sampling every CPU but 0\n");
	}
	if (cpumask_empty(&jit_mask))
		cpumask_copy(&jit_mask, cpu_online_mask);
}

/*
 * Each of jitmod's own tracepoints keeps two probes that do nothing, from
 * load to unload.  A tracepoint's first probe arms its static key and
 * static call, and its second turns the call into the iterator; each is a
 * text patch, which interrupts every CPU, the sampled ones too.  With two
 * already there, a reader enabling the events in its instance (jitread, at
 * every start and stop) adds a third and patches nothing.  The stub takes
 * no arguments and is called with the event's, as the kernel's own
 * tp_stub_func() is; it costs an event with no reader two empty calls.
 */
static struct tracepoint *const jit_own_tps[] = {
	&__tracepoint_gap, &__tracepoint_irq_noise,
	&__tracepoint_softirq_noise, &__tracepoint_nmi_noise,
	&__tracepoint_thread_noise, &__tracepoint_detail,
	&__tracepoint_summary, &__tracepoint_stop,
};

static int jit_armed_key[2];

static void jit_armed_stub(void)
{
}

#define JIT_ARMED_NR	((int)ARRAY_SIZE(jit_own_tps) * 2)

/* jit_disarm_own - the first nr idle probes taken off again. */
static void jit_disarm_own(int nr)
{
	while (nr-- > 0)
		tracepoint_probe_unregister(jit_own_tps[nr / 2],
					    (void *)jit_armed_stub,
					    &jit_armed_key[nr % 2]);
	tracepoint_synchronize_unregister();
}

/* jit_arm_own - two idle probes on each own tracepoint. */
static int jit_arm_own(void)
{
	int i, ret;

	for (i = 0; i < JIT_ARMED_NR; i++) {
		ret = tracepoint_probe_register(jit_own_tps[i / 2],
						(void *)jit_armed_stub,
						&jit_armed_key[i % 2]);
		if (ret)
			goto err_disarm;
	}
	return 0;

err_disarm:
	jit_disarm_own(i);
	return ret;
}

static int __init jit_init(void)
{
	int ret;

	if (!jit_cycles_usable()) {
		pr_err("no usable TSC\n");
		return -ENODEV;
	}
	/* insmod's own values: refused cheaply, before anything is armed */
	if (!jit_duty_fits(&jit_params.duty, jit_params.irqs_off))
		return -EINVAL;
	jit_conv_init();
	ret = jit_arm_own();
	if (ret) {
		pr_err("cannot arm its own tracepoints: %d\n", ret);
		return ret;
	}
	/* and again under the lock, with whatever a racing write stored */
	mutex_lock(&jit_lock);
	if (!jit_duty_fits(&jit_params.duty, jit_params.irqs_off)) {
		ret = -EINVAL;
		goto err_unlock;
	}
	if (cpumask_empty(&jit_mask))
		jit_default_cpus();
	jit_ready = true;
	ret = jit_start();
	if (ret) {
		jit_ready = false;	/* the module is about to go */
		pr_err("cannot start: %d\n", ret);
		goto err_unlock;
	}
	mutex_unlock(&jit_lock);
	pr_info("sampling CPUs %*pbl, threshold %llu ns, %llu of %llu us, TSC %u kHz\n",
		cpumask_pr_args(&jit_mask), jit_params.duty.threshold_ns,
		jit_params.duty.runtime_us, jit_params.duty.period_us,
		jit_cyc_khz());
	return 0;

err_unlock:
	mutex_unlock(&jit_lock);
	jit_disarm_own(JIT_ARMED_NR);
	return ret;
}

static void __exit jit_exit(void)
{
	mutex_lock(&jit_lock);
	jit_stop();
	jit_ready = false;
	jit_cgroup_exit();
	mutex_unlock(&jit_lock);
	jit_disarm_own(JIT_ARMED_NR);
	pr_info("unloaded\n");
}

module_init(jit_init);
module_exit(jit_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("jitmod developers");
MODULE_DESCRIPTION("Per-CPU OS noise sampler with exact attribution");
MODULE_VERSION(JITMOD_VERSION);
