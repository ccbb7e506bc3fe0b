// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_duty.c - the duty parameters: threshold, period, runtime, warm-up
 * and the stop limits, each a u64 with its bounds and unit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "jitmod.h"

#define MAX_THRESHOLD_NS	NSEC_PER_SEC
#define MAX_PERIOD_US		(60ULL * USEC_PER_SEC)

/* A u64 parameter with its bounds and the field it sets. */
struct jit_u64_param {
	const char *name;
	u64 *field;
	u64 min;
	u64 max;
	const char *unit;
};

struct jit_u64_change {
	u64 *field;
	u64 val;
};

static void jit_apply_u64(void *arg)
{
	struct jit_u64_change *c = arg;

	*c->field = c->val;
}

/* jit_runtime_fits - runtime_us must not exceed period_us. */
bool jit_runtime_fits(u64 runtime_us, u64 period_us)
{
	if (runtime_us <= period_us)
		return true;
	pr_err("runtime_us: %llu exceeds period_us %llu\n", runtime_us,
	       period_us);
	return false;
}

/* jit_irqs_off_fits - with irqs_off, runtime_us is bounded. */
bool jit_irqs_off_fits(u64 runtime_us, bool irqs_off)
{
	if (!irqs_off || runtime_us <= JIT_IRQS_OFF_MAX_US)
		return true;
	pr_err("runtime_us: %llu exceeds %llu, the most irqs_off allows\n",
	       runtime_us, JIT_IRQS_OFF_MAX_US);
	return false;
}

static int jit_set_u64(const char *val, const struct kernel_param *kp)
{
	const struct jit_u64_param *p = kp->arg;
	struct jit_u64_change c = { .field = p->field };
	int ret;

	ret = kstrtou64(val, 0, &c.val);
	if (ret) {
		pr_err("%s: '%s' is not a number%s\n", p->name, strim((char *)val),
		       ret == -ERANGE ? " (overflow)" : "");
		return -EINVAL;
	}
	if (c.val < p->min || c.val > p->max) {
		pr_err("%s: %llu out of range %llu..%llu %s\n", p->name, c.val,
		       p->min, p->max, p->unit);
		return -EINVAL;
	}
	if (jit_ready) {
		if (p->field == &jit_params.runtime_us &&
		    !jit_runtime_fits(c.val, jit_params.period_us))
			return -EINVAL;
		if (p->field == &jit_params.period_us &&
		    !jit_runtime_fits(jit_params.runtime_us, c.val))
			return -EINVAL;
		if (p->field == &jit_params.runtime_us &&
		    !jit_irqs_off_fits(c.val, jit_params.irqs_off))
			return -EINVAL;
	}
	return jit_restart(jit_apply_u64, &c);
}

static int jit_get_u64(char *buf, const struct kernel_param *kp)
{
	const struct jit_u64_param *p = kp->arg;

	return sysfs_emit(buf, "%llu\n", *p->field);
}

static const struct kernel_param_ops jit_u64_ops = {
	.set = jit_set_u64,
	.get = jit_get_u64,
};

#define JIT_U64_PARAM(n, lo, hi, u, desc)				\
	static struct jit_u64_param jit_p_##n = {			\
		.name = #n, .field = &jit_params.n,			\
		.min = lo, .max = hi, .unit = u,			\
	};								\
	module_param_cb(n, &jit_u64_ops, &jit_p_##n, 0600);		\
	MODULE_PARM_DESC(n, desc)

JIT_U64_PARAM(threshold_ns, 1, MAX_THRESHOLD_NS, "ns",
	      "Smallest gap recorded, ns (default 1000)");
JIT_U64_PARAM(period_us, 10, MAX_PERIOD_US, "us",
	      "Sampling period, us (default 1000000)");
JIT_U64_PARAM(runtime_us, 1, MAX_PERIOD_US, "us",
	      "Sampling time per period, us; the rest is slept (default 900000)");
JIT_U64_PARAM(stop_us, 0, MAX_PERIOD_US, "us",
	      "Stop when one gap exceeds this, us (0: never)");
JIT_U64_PARAM(stop_total_us, 0, MAX_PERIOD_US, "us",
	      "Stop when the noise in one period exceeds this, us (0: never)");
JIT_U64_PARAM(warmup_us, 0, MAX_PERIOD_US, "us",
	      "Spin this long after each sleep before sampling, us, unrecorded: the wake-up's own cost is not the CPU's noise (default 0)");
