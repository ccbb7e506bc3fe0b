// SPDX-License-Identifier: GPL-2.0
/*
 * jitinject_smi.c - the injector's SMIs: the smi and smi_count parameters
 * (see jitinject_main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/moduleparam.h>
#include <asm/apic.h>
#include <asm/msr.h>
#include "jitmod_kcompat.h"
#include "jitinject.h"

#define JINJ_MAX_SMI		100
#define JINJ_SMI_GAP_MS		20	/* each SMI a gap of its own */
/* far longer than a timer of JINJ_SMI_GAP_MS takes, even under TCG */
#define JINJ_SMI_WAIT		(10 * HZ)

static struct hrtimer jinj_smi_timer;
static DECLARE_COMPLETION(jinj_smi_sent);

/* jinj_smi_fn - raise one SMI at the target, from the writer's CPU. */
static enum hrtimer_restart jinj_smi_fn(struct hrtimer *t)
{
	/* in hard irq, interrupts off: the xAPIC's ICR is two writes */
	apic->icr_write(APIC_DM_SMI | APIC_DEST_PHYSICAL,
			cpu_physical_id(READ_ONCE(jinj_cpu)));
	complete(&jinj_smi_sent);
	return HRTIMER_NORESTART;
}

/*
 * "smi": N SMIs, delivery mode SMI, as a chipset or another CPU raises
 * them, JINJ_SMI_GAP_MS apart.  Each comes from a pinned hard hrtimer on
 * the writer's CPU, whose task sleeps meanwhile: nothing else runs there
 * between the timer interrupt and the SMI, so under QEMU's icount, where
 * one host thread runs the vCPUs in turn, the target's gap holds that
 * CPU's way from its timer interrupt to the ICR write besides the SMM
 * handler, not the writer's own system call.  A nohz_full writer's CPU
 * keeps the timer: a pinned one is not moved to a housekeeping CPU, which
 * irqs_off would hold to its window's end.
 */
static int jinj_smi_set(const char *val, const struct kernel_param *kp)
{
	unsigned long left = 1;
	unsigned int n, i;

	if (kstrtouint(val, 0, &n) || !n || n > JINJ_MAX_SMI) {
		pr_err("smi: want a count of 1..%u\n", JINJ_MAX_SMI);
		return -EINVAL;
	}
	mutex_lock(&jinj_lock);
	cpus_read_lock();
	for (i = 0; i < n && left && cpu_online(READ_ONCE(jinj_cpu)); i++) {
		reinit_completion(&jinj_smi_sent);
		hrtimer_start(&jinj_smi_timer, ms_to_ktime(JINJ_SMI_GAP_MS),
			      HRTIMER_MODE_REL_PINNED_HARD);
		left = wait_for_completion_timeout(&jinj_smi_sent,
						   JINJ_SMI_WAIT);
	}
	hrtimer_cancel(&jinj_smi_timer);
	cpus_read_unlock();
	mutex_unlock(&jinj_lock);
	if (!left)
		pr_err("smi: the timer for SMI %u did not fire\n", i);
	else if (i < n)
		pr_err("smi: cpu %u is offline\n", READ_ONCE(jinj_cpu));
	return i < n || !left ? -EINVAL : 0;
}

static const struct kernel_param_ops jinj_smi_ops = {
	.set = jinj_smi_set,
};
module_param_cb(smi, &jinj_smi_ops, NULL, 0200);
MODULE_PARM_DESC(smi, "write N to send the CPU N SMIs through its local APIC");

static int jinj_smi_count_get(char *buf, const struct kernel_param *kp)
{
	u64 val;

	if (jit_rdmsr_safe_on_cpu(READ_ONCE(jinj_cpu), MSR_SMI_COUNT, &val))
		return -EIO;
	return scnprintf(buf, PAGE_SIZE, "%llu\n", val);
}

static const struct kernel_param_ops jinj_smi_count_ops = {
	.get = jinj_smi_count_get,
};
module_param_cb(smi_count, &jinj_smi_count_ops, NULL, 0400);
MODULE_PARM_DESC(smi_count, "the CPU's MSR_SMI_COUNT (-EIO if it faults)");

void jinj_smi_init(void)
{
	jit_hrtimer_setup(&jinj_smi_timer, jinj_smi_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_HARD);
}

void jinj_smi_exit(void)
{
	hrtimer_cancel(&jinj_smi_timer);
}
