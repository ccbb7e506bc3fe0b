// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_duty.c - the duty parameters: threshold, period, runtime, warm-up
 * and the stop limits, each a u64 with its bounds and unit.
 *
 * A write to one of them, or to duty (several at once), changes no
 * tracepoint and no sampler: the values are checked, then published, and
 * each sampler copies them when its next period starts.  Stopping the
 * samplers to change a value would unhook and re-hook every probe, and each
 * hook patches kernel text, which synchronises every CPU with function-call
 * IPIs: hundreds on the sampled CPU for every value written, in the middle
 * of what it measures.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include "jitmod.h"

#define MAX_THRESHOLD_NS	NSEC_PER_SEC
#define MAX_PERIOD_US		(60ULL * USEC_PER_SEC)

/*
 * A duty parameter: its bounds, its unit and its place in struct jit_duty
 * (not const: a kernel_param's arg is a plain pointer).
 */
struct jit_duty_param {
	const char *name;
	size_t off;
	u64 min;
	u64 max;
	const char *unit;
};

#define JIT_DUTY(n, lo, hi, u)						\
	{ .name = #n, .off = offsetof(struct jit_duty, n),		\
	  .min = lo, .max = hi, .unit = u }

enum { JIT_D_THRESHOLD, JIT_D_PERIOD, JIT_D_RUNTIME, JIT_D_STOP,
	JIT_D_STOP_TOTAL, JIT_D_WARMUP, JIT_D_NR };

static struct jit_duty_param jit_duty_params[JIT_D_NR] = {
	[JIT_D_THRESHOLD] = JIT_DUTY(threshold_ns, 1, MAX_THRESHOLD_NS, "ns"),
	[JIT_D_PERIOD] = JIT_DUTY(period_us, 10, MAX_PERIOD_US, "us"),
	[JIT_D_RUNTIME] = JIT_DUTY(runtime_us, 1, MAX_PERIOD_US, "us"),
	[JIT_D_STOP] = JIT_DUTY(stop_us, 0, MAX_PERIOD_US, "us"),
	[JIT_D_STOP_TOTAL] = JIT_DUTY(stop_total_us, 0, MAX_PERIOD_US, "us"),
	[JIT_D_WARMUP] = JIT_DUTY(warmup_us, 0, MAX_PERIOD_US, "us"),
};

/* guards jit_params.duty while a write publishes it or a sampler copies it */
static DEFINE_RAW_SPINLOCK(jit_duty_lock);
/* how many duties were published: a window polls it to see a change */
unsigned long jit_duty_gen;

static u64 *jit_duty_field(struct jit_duty *d, const struct jit_duty_param *p)
{
	return (u64 *)((char *)d + p->off);
}

/* jit_duty_get - the duty in force, as one consistent copy; its gen. */
unsigned long jit_duty_get(struct jit_duty *d)
{
	unsigned long flags, gen;

	raw_spin_lock_irqsave(&jit_duty_lock, flags);
	*d = jit_params.duty;
	gen = jit_duty_gen;
	raw_spin_unlock_irqrestore(&jit_duty_lock, flags);
	return gen;
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

/* jit_duty_fits - both rules across parameters, for d with irqs_off. */
bool jit_duty_fits(const struct jit_duty *d, bool irqs_off)
{
	return jit_runtime_fits(d->runtime_us, d->period_us) &&
	       jit_irqs_off_fits(d->runtime_us, irqs_off);
}

/* jit_duty_parse - one value of p, checked against its bounds. */
static int jit_duty_parse(const struct jit_duty_param *p, char *val, u64 *out)
{
	int ret = kstrtou64(strim(val), 0, out);

	if (ret) {
		pr_err("%s: '%s' is not a number%s\n", p->name, strim(val),
		       ret == -ERANGE ? " (overflow)" : "");
		return -EINVAL;
	}
	if (*out < p->min || *out > p->max) {
		pr_err("%s: %llu out of range %llu..%llu %s\n", p->name, *out,
		       p->min, p->max, p->unit);
		return -EINVAL;
	}
	return 0;
}

/*
 * jit_duty_commit - check d as a whole and make it the duty in force.
 *
 * A sampler takes it at its next period; one asleep past the end of a
 * new period is woken now (jit_duty_wake), and a window longer than the
 * new runtime ends at its next poll, so that a shorter duty never waits
 * out an old one (a 60 s period, say).
 *
 * Under jit_lock, so that two writers cannot each pass the runtime <=
 * period rule against a value the other is replacing, and irqs_off's
 * bound is checked against the irqs_off in force.  Before init the values
 * are only stored: insmod sets them in any order, and jit_init() checks
 * them together.
 */
static int jit_duty_commit(const struct jit_duty *d)
{
	unsigned long flags;

	lockdep_assert_held(&jit_lock);
	if (jit_ready && !jit_duty_fits(d, jit_params.irqs_off))
		return -EINVAL;
	raw_spin_lock_irqsave(&jit_duty_lock, flags);
	jit_params.duty = *d;
	WRITE_ONCE(jit_duty_gen, jit_duty_gen + 1);
	raw_spin_unlock_irqrestore(&jit_duty_lock, flags);
	if (jit_ready)
		jit_duty_wake(d->period_us);
	return 0;
}

static int jit_set_u64(const char *val, const struct kernel_param *kp)
{
	const struct jit_duty_param *p = kp->arg;
	char buf[32];
	struct jit_duty d;
	u64 v;
	int ret;

	if (strscpy(buf, val, sizeof(buf)) < 0) {
		pr_err("%s: '%s' is not a number\n", p->name, strim((char *)val));
		return -EINVAL;
	}
	if (jit_duty_parse(p, buf, &v))
		return -EINVAL;
	mutex_lock(&jit_lock);
	d = jit_params.duty;
	*jit_duty_field(&d, p) = v;
	ret = jit_duty_commit(&d);
	mutex_unlock(&jit_lock);
	return ret;
}

static int jit_get_u64(char *buf, const struct kernel_param *kp)
{
	const struct jit_duty_param *p = kp->arg;

	return sysfs_emit(buf, "%llu\n", *jit_duty_field(&jit_params.duty, p));
}

static const struct kernel_param_ops jit_u64_ops = {
	.set = jit_set_u64,
	.get = jit_get_u64,
};

#define JIT_U64_PARAM(n, idx, desc)					\
	module_param_cb(n, &jit_u64_ops, &jit_duty_params[idx], 0600);	\
	MODULE_PARM_DESC(n, desc)

JIT_U64_PARAM(threshold_ns, JIT_D_THRESHOLD,
	      "Smallest gap recorded, ns (default 1000)");
JIT_U64_PARAM(period_us, JIT_D_PERIOD,
	      "Sampling period, us (default 1000000)");
JIT_U64_PARAM(runtime_us, JIT_D_RUNTIME,
	      "Sampling time per period, us; the rest is slept (default 900000)");
JIT_U64_PARAM(stop_us, JIT_D_STOP,
	      "Stop when one gap exceeds this, us (0: never)");
JIT_U64_PARAM(stop_total_us, JIT_D_STOP_TOTAL,
	      "Stop when the noise in one period exceeds this, us (0: never)");
JIT_U64_PARAM(warmup_us, JIT_D_WARMUP,
	      "Spin this long after each sleep before sampling, us, unrecorded: the wake-up's own cost is not the CPU's noise (default 0)");

/* jit_duty_find - the duty parameter called name, or NULL. */
static const struct jit_duty_param *jit_duty_find(const char *name)
{
	int i;

	for (i = 0; i < JIT_D_NR; i++)
		if (!strcmp(jit_duty_params[i].name, name))
			return &jit_duty_params[i];
	return NULL;
}

/*
 * jit_set_duty - "name=value ..." (spaces or commas between): every value
 * checked, then all of them published at once, so that no period runs
 * with half of a change, and runtime and period can move past each other
 * in one write.
 */
static int jit_set_duty(const char *val, const struct kernel_param *kp)
{
	const struct jit_duty_param *p;
	char buf[256], *rest = buf, *tok, *eq;
	struct jit_duty d;
	u64 v[JIT_D_NR];
	bool set[JIT_D_NR] = { };
	int i, n = 0, ret;

	if (strscpy(buf, val, sizeof(buf)) < 0) {
		pr_err("duty: longer than %zu bytes\n", sizeof(buf) - 1);
		return -EINVAL;
	}
	while ((tok = strsep(&rest, " \t\n,"))) {
		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		p = jit_duty_find(tok);
		if (!eq || !p) {
			pr_err("duty: '%s' is not NAME=VALUE with NAME one of threshold_ns, period_us, runtime_us, stop_us, stop_total_us, warmup_us\n",
			       tok);
			return -EINVAL;
		}
		i = p - jit_duty_params;
		if (jit_duty_parse(p, eq + 1, &v[i]))
			return -EINVAL;
		set[i] = true;
		n++;
	}
	if (!n) {
		pr_err("duty: no NAME=VALUE given\n");
		return -EINVAL;
	}
	mutex_lock(&jit_lock);
	d = jit_params.duty;
	for (i = 0; i < JIT_D_NR; i++)
		if (set[i])
			*jit_duty_field(&d, &jit_duty_params[i]) = v[i];
	ret = jit_duty_commit(&d);
	mutex_unlock(&jit_lock);
	return ret;
}

static int jit_get_duty(char *buf, const struct kernel_param *kp)
{
	struct jit_duty d;
	int i, len = 0;

	jit_duty_get(&d);
	for (i = 0; i < JIT_D_NR; i++)
		len += sysfs_emit_at(buf, len, "%s%s=%llu", i ? " " : "",
				     jit_duty_params[i].name,
				     *jit_duty_field(&d, &jit_duty_params[i]));
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops jit_duty_ops = {
	.set = jit_set_duty,
	.get = jit_get_duty,
};

module_param_cb(duty, &jit_duty_ops, NULL, 0600);
MODULE_PARM_DESC(duty, "Several duty parameters in one change: NAME=VALUE pairs, e.g. 'period_us=100000 runtime_us=90000'; reads all of them");
