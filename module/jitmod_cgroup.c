// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_cgroup.c - the cgroup_pid parameter: the samplers join every
 * cgroup of that task (rtla's -C, as jitread gives it); 0 leaves them
 * where kthreads are born.
 *
 * A sampler is a kthread bound to its CPU, which cgroup.procs refuses to
 * move; cgroup_attach_task_all() is the kernel's own way in, as vhost
 * uses it for its workers.  Each start moves the new samplers before they
 * are woken, from the writer's context and outside the hotplug lock, so
 * that an offline's kthread_stop() never waits on a sampler that waits
 * for that lock.  A CPU that comes online later gets a sampler that stays
 * where it was born, and the log says so.  A destination with the cpuset
 * controller refuses a bound kthread: the write then fails with the
 * kernel's error, and the samplers sample where they are.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/cpu.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include "jitmod.h"

static struct pid *jit_cg_pid;	/* changed only while no sampler runs */
static int jit_cg_nr;		/* the number written, read back as is */
static int jit_cg_err;		/* the last start's, for the write to return */

/* jit_cgroup_move - the samplers of mask into jit_cg_pid's cgroups */
static int jit_cgroup_move(const struct cpumask *mask)
{
	struct task_struct *from, **t;
	unsigned int cpu;
	int i, n = 0, ret = 0;

	if (!jit_cg_pid)
		return 0;
	from = get_pid_task(jit_cg_pid, PIDTYPE_PID);
	if (!from) {
		pr_err("cgroup_pid: task %d is gone; the samplers stay where they are\n",
		       jit_cg_nr);
		return -ESRCH;
	}
	t = kcalloc(nr_cpu_ids, sizeof(*t), GFP_KERNEL);
	if (!t) {
		ret = -ENOMEM;
		goto out_put_from;
	}
	cpus_read_lock();
	for_each_cpu(cpu, mask) {
		struct jit_cpu *jc = jit_cpu_get(cpu);

		if (jc->task) {
			get_task_struct(jc->task);
			t[n++] = jc->task;
		}
	}
	cpus_read_unlock();
	for (i = 0; i < n; i++) {
		if (!ret)
			ret = jit_cgroup_attach(from, t[i]);
		put_task_struct(t[i]);
	}
	if (ret)
		pr_err("cgroup_pid: the samplers cannot join the cgroups of task %d: %d\n",
		       jit_cg_nr, ret);
	kfree(t);
out_put_from:
	put_task_struct(from);
	return ret;
}

/* jit_cgroup_join_all - at each start, under jit_lock, samplers unwoken */
void jit_cgroup_join_all(const struct cpumask *mask)
{
	jit_cg_err = jit_cgroup_move(mask);
}

/* jit_cgroup_online - a sampler started by hotplug is not moved */
void jit_cgroup_online(unsigned int cpu)
{
	if (jit_cg_pid)
		pr_info("cpu %u: its sampler stays out of the cgroups of task %d (started by hotplug)\n",
			cpu, jit_cg_nr);
}

struct jit_cg_change {
	struct pid *pid;
	int nr;
};

static void jit_apply_cg(void *arg)
{
	struct jit_cg_change *c = arg;

	put_pid(jit_cg_pid);
	jit_cg_pid = c->pid;
	jit_cg_nr = c->nr;
	jit_cg_err = 0;
}

static int jit_set_cgroup_pid(const char *val, const struct kernel_param *kp)
{
	struct jit_cg_change c = { };

	if (kstrtoint(val, 0, &c.nr) || c.nr < 0) {
		pr_err("cgroup_pid: '%s' is not a pid (0: none)\n",
		       strim((char *)val));
		return -EINVAL;
	}
	if (c.nr && !jit_cgroup_attach_ok()) {
		pr_err("cgroup_pid: this kernel does not export cgroup_attach_task_all()\n");
		return -EOPNOTSUPP;
	}
	if (c.nr) {
		c.pid = find_get_pid(c.nr);
		if (!c.pid) {
			pr_err("cgroup_pid: no task %d\n", c.nr);
			return -ESRCH;
		}
	}
	return jit_restart(jit_apply_cg, &c) ?: jit_cg_err;
}

static int jit_get_cgroup_pid(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", jit_cg_nr);
}

static const struct kernel_param_ops jit_cg_ops = {
	.set = jit_set_cgroup_pid,
	.get = jit_get_cgroup_pid,
};

module_param_cb(cgroup_pid, &jit_cg_ops, NULL, 0600);
MODULE_PARM_DESC(cgroup_pid, "The samplers join every cgroup of this task at each start (0: none, the default)");

/* jit_cgroup_exit - at unload, once no sampler runs */
void jit_cgroup_exit(void)
{
	put_pid(jit_cg_pid);
	jit_cg_pid = NULL;
}
