// SPDX-License-Identifier: GPL-2.0
/*
 * jitinject_smi.c - the injector's SMIs: the smi and smi_count parameters
 * (see jitinject_main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/moduleparam.h>
#include <asm/apic.h>
#include <asm/msr.h>
#include "jitmod_kcompat.h"
#include "jitinject.h"

#define JINJ_MAX_SMI		100
#define JINJ_SMI_GAP_MS		20	/* each SMI a gap of its own */

/*
 * "smi": N SMIs, delivery mode SMI, as a chipset or another CPU raises
 * them.  Spun between, not slept: a nohz_full CPU's timer runs on a
 * housekeeping CPU, which irqs_off would hold to its window's end.
 */
static int jinj_smi_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i, cpu = READ_ONCE(jinj_cpu);

	if (kstrtouint(val, 0, &n) || !n || n > JINJ_MAX_SMI) {
		pr_err("smi: want a count of 1..%u\n", JINJ_MAX_SMI);
		return -EINVAL;
	}
	mutex_lock(&jinj_lock);
	cpus_read_lock();
	for (i = 0; i < n && cpu_online(cpu); i++) {
		local_irq_disable();	/* the xAPIC's ICR is two writes */
		apic->icr_write(APIC_DM_SMI | APIC_DEST_PHYSICAL,
				cpu_physical_id(cpu));
		local_irq_enable();
		mdelay(JINJ_SMI_GAP_MS);
	}
	cpus_read_unlock();
	mutex_unlock(&jinj_lock);
	if (i < n)
		pr_err("smi: cpu %u is offline\n", cpu);
	return i < n ? -EINVAL : 0;
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
