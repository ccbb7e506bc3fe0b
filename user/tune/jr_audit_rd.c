// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_rd.c - an audit written as JSON (jitread audit --json, or the
 * audit block of a report) read back, so that advice is judged against
 * the machine as it was when it was measured.  Only what the JSON holds
 * is filled; the rest stays as jr_audit_read() leaves an unknown item.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tune/jr_audit.h"

static void jr_str_of(json_t *obj, const char *key, char *buf, size_t len)
{
	const char *v = json_string_value(json_object_get(obj, key));

	snprintf(buf, len, "%s", v ? v : "");
}

/* the most of anything an audit counts: IRQs, tasks, an IRQ's number */
#define JR_AUDIT_MAX_COUNT (1L << 24)

static long jr_long_of(json_t *obj, const char *key, long unknown)
{
	json_t *v = json_object_get(obj, key);

	return json_is_integer(v) ? (long)json_integer_value(v) : unknown;
}

static bool jr_bool_of(json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key));
}

/* jr_tri_of - true, false, or anything else (null, absent) unknown */
static signed char jr_tri_of(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_true(v) ? JR_YES : json_is_false(v) ? JR_NO : JR_UNKNOWN;
}

/*
 * jr_audit_kfeats_of - the kernel's options; an audit from before they
 * were written knows only NO_HZ_FULL, as kernel_nohz_full.
 */
static void jr_audit_kfeats_of(json_t *sys, struct jr_audit *a)
{
	json_t *kf = json_object_get(sys, "kernel_features");
	int f;

	for (f = 0; f < JR_KF_NR; f++)
		a->kfeat[f] = jr_tri_of(kf, jr_kfeat_key(f));
	if (!json_is_object(kf))
		a->kfeat[JR_KF_NO_HZ_FULL] = jr_tri_of(sys, "kernel_nohz_full");
}

static void jr_audit_sys_of(json_t *sys, struct jr_audit *a)
{
	jr_str_of(sys, "cmdline", a->cmdline, sizeof(a->cmdline));
	jr_str_of(sys, "isolcpus", a->isolcpus, sizeof(a->isolcpus));
	jr_str_of(sys, "nohz_full", a->nohz_full, sizeof(a->nohz_full));
	jr_str_of(sys, "rcu_nocbs", a->rcu_nocbs, sizeof(a->rcu_nocbs));
	jr_str_of(sys, "irqaffinity", a->irqaffinity, sizeof(a->irqaffinity));
	jr_str_of(sys, "clocksource", a->clocksource, sizeof(a->clocksource));
	jr_str_of(sys, "workqueue_cpumask", a->wq_mask, sizeof(a->wq_mask));
	jr_str_of(sys, "thp", a->thp, sizeof(a->thp));
	a->managed_irq = jr_bool_of(sys, "managed_irq");
	a->skew_tick = jr_bool_of(sys, "skew_tick");
	jr_audit_kfeats_of(sys, a);
	a->virt = jr_tri_of(sys, "virtual");
	jr_str_of(sys, "hypervisor", a->hypervisor, sizeof(a->hypervisor));
	jr_str_of(sys, "cpu_vendor", a->cpu_vendor, sizeof(a->cpu_vendor));
	a->tsc_reliable = jr_bool_of(sys, "tsc_reliable");
	a->irqbalance_pid = (int)jr_long_of(sys, "irqbalance_pid", 0);
	a->stat_interval = jr_long_of(sys, "vm.stat_interval", -1);
	a->timer_migration = jr_long_of(sys, "kernel.timer_migration", -1);
	a->nmi_watchdog = jr_long_of(sys, "kernel.nmi_watchdog", -1);
	a->rt_runtime_us = jr_long_of(sys, "sched_rt_runtime_us", -1);
	a->rt_period_us = jr_long_of(sys, "sched_rt_period_us", -1);
}

/*
 * jr_count_of - obj's key as a count from 0 to max; absent is 0.  Anything
 * else is refused naming the field: an audit is a file from elsewhere.
 */
static int jr_count_of(json_t *obj, const char *key, long max, int *v,
		       struct jr_err *e)
{
	json_t *x = json_object_get(obj, key);

	*v = 0;
	if (!x)
		return 0;
	if (!json_is_integer(x) || json_integer_value(x) < 0 ||
	    json_integer_value(x) > max)
		return jr_fail(e, -EINVAL,
			       "audit: cpus: %s: not a count of 0-%ld", key,
			       max);
	*v = (int)json_integer_value(x);
	return 0;
}

static int jr_audit_cpu_of(json_t *c, struct jr_audit_cpu *x, struct jr_err *e)
{
	json_int_t cpu = json_integer_value(json_object_get(c, "cpu"));
	json_t *irqs = json_object_get(c, "irqs");
	size_t i;

	if (!json_is_integer(json_object_get(c, "cpu")) || cpu < 0 ||
	    cpu >= JR_MAX_CPUS)
		return jr_fail(e, -EINVAL,
			       "audit: cpus: cpu: not a CPU number below %d",
			       JR_MAX_CPUS);
	x->cpu = (int)cpu;
	if (jr_count_of(c, "nr_irqs", JR_AUDIT_MAX_COUNT, &x->nr_irq, e) ||
	    jr_count_of(c, "nr_kthreads", JR_AUDIT_MAX_COUNT, &x->nr_kthreads,
			e) ||
	    jr_count_of(c, "nr_tasks", JR_AUDIT_MAX_COUNT, &x->nr_tasks, e))
		return -EINVAL;
	if (json_array_size(irqs) > (size_t)x->nr_irq)
		return jr_fail(e, -EINVAL,
			       "audit: cpus: irqs: more than nr_irqs");
	x->isolated = jr_bool_of(c, "isolated");
	x->nohz_full = jr_bool_of(c, "nohz_full");
	x->rcu_nocb = jr_bool_of(c, "rcu_nocb");
	x->in_wq_mask = jr_bool_of(c, "in_workqueue_cpumask");
	for (i = 0; i < json_array_size(irqs) && i < JR_AUDIT_IRQS; i++) {
		json_t *q = json_array_get(irqs, i);
		long irq = jr_long_of(q, "irq", -1);

		if (irq < 0 || irq > JR_AUDIT_MAX_COUNT)
			return jr_fail(
				e, -EINVAL,
				"audit: cpus: irqs: irq: not an IRQ number");
		x->irq[i].irq = (int)irq;
		jr_str_of(q, "name", x->irq[i].name, sizeof(x->irq[i].name));
		x->irq[i].count = (uint64_t)jr_long_of(q, "count", 0);
	}
	jr_str_of(c, "kthreads", x->kthreads, sizeof(x->kthreads));
	jr_str_of(c, "tasks", x->tasks, sizeof(x->tasks));
	jr_str_of(c, "governor", x->governor, sizeof(x->governor));
	x->cur_khz = (uint64_t)jr_long_of(c, "cur_khz", 0);
	jr_str_of(c, "idle_states", x->idle, sizeof(x->idle));
	x->idle_latency_us = (uint64_t)jr_long_of(c, "idle_latency_us", 0);
	jr_str_of(c, "pm_qos_resume_latency_us", x->resume_latency,
		  sizeof(x->resume_latency));
	jr_str_of(c, "smt_siblings", x->siblings, sizeof(x->siblings));
	x->sibling_busy_pct = (int)jr_long_of(c, "sibling_busy_pct", -1);
	if (x->sibling_busy_pct < -1 || x->sibling_busy_pct > 100 ||
	    jr_long_of(c, "sibling_busy_pct", -1) != x->sibling_busy_pct)
		return jr_fail(
			e, -EINVAL,
			"audit: cpus: sibling_busy_pct: not -1 or 0-100");
	x->perf_governor = jr_tri_of(c, "performance_governor");
	x->steal_ms = jr_long_of(c, "steal_ms", -1);
	return 0;
}

/*
 * jr_audit_parse - fill a from an audit's JSON text.  0, or -EINVAL with
 * e saying why; a is to be freed with jr_audit_free() either way.
 */
int jr_audit_parse(struct jr_audit *a, const char *text, struct jr_err *e)
{
	json_t *root, *cpus;
	json_error_t je;
	size_t i;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->root = "";
	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return jr_fail(e, -EINVAL, "audit: not JSON: line %d: %s",
			       je.line, je.text);
	cpus = json_object_get(root, "cpus");
	if (jr_long_of(root, "audit_version", 0) != 1 || !json_is_array(cpus) ||
	    !json_is_object(json_object_get(root, "system"))) {
		ret = jr_fail(e, -EINVAL,
			      "audit: not an audit of audit_version 1");
		goto out;
	}
	jr_audit_sys_of(json_object_get(root, "system"), a);
	if (json_array_size(cpus) > JR_MAX_CPUS) {
		ret = jr_fail(e, -EINVAL, "audit: cpus: more than %d CPUs",
			      JR_MAX_CPUS);
		goto out;
	}
	a->nr_cpu = (int)json_array_size(cpus);
	a->cpu = calloc(a->nr_cpu ? a->nr_cpu : 1, sizeof(*a->cpu));
	if (!a->cpu) {
		ret = jr_fail(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < (size_t)a->nr_cpu; i++) {
		ret = jr_audit_cpu_of(json_array_get(cpus, i), &a->cpu[i], e);
		if (!ret && i && a->cpu[i].cpu <= a->cpu[i - 1].cpu)
			ret = jr_fail(
				e, -EINVAL,
				"audit: cpus: cpu: not in ascending order");
		if (ret)
			goto out;
	}
out:
	json_decref(root);
	return ret;
}
