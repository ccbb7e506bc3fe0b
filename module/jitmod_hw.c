// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_hw.c - what took the CPU when no kernel code did.
 *
 * A gap with no interrupt, softirq, NMI or thread inside it was taken by
 * something below the kernel.  Two such takers leave a trace we can read:
 *  - System Management Mode: Intel CPUs count SMIs in MSR_SMI_COUNT (0x34).
 *    The MSR may be absent (AMD, most hypervisors, TCG), so it is probed
 *    once per CPU with the fault-safe accessor and only used if it reads.
 *  - A hypervisor that ran something else: KVM shares a per-CPU steal-time
 *    record with the guest.  Its address is in MSR_KVM_STEAL_TIME, which
 *    the guest kernel itself wrote at boot; the kernel's own accessor is a
 *    static call that modules cannot reach, so we read the record directly,
 *    under the same version protocol the kernel uses.
 * What neither explains is "unknown".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/kvm_para.h>
#include <asm/msr.h>
#include "jitmod_hw.h"
#include "jitmod_kcompat.h"

/* jit_hw_steal_ns - the hypervisor's steal total for this CPU, or 0. */
static u64 jit_hw_steal_ns(struct jit_cpu *jc)
{
	struct kvm_steal_time *st = jc->steal_st;
	u32 version;
	u64 steal;

	if (!st)
		return 0;
	/* The host bumps version to odd, writes, then bumps it to even. */
	do {
		version = READ_ONCE(st->version);
		virt_rmb(); /* read version before the payload */
		steal = READ_ONCE(st->steal);
		virt_rmb(); /* read the payload before re-checking version */
	} while ((version & 1) || version != READ_ONCE(st->version));
	return steal;
}

/* jit_hw_init_cpu - find out which hardware counters this CPU offers. */
void jit_hw_init_cpu(struct jit_cpu *jc)
{
	u64 val;

	jc->smi_ok = !jit_rdmsr_safe_on_cpu(jc->cpu, MSR_SMI_COUNT, &val);
	jc->last_smi = jc->smi_ok ? val : 0;
	jc->steal_st = NULL;
	/*
	 * kvm_para_has_feature() is not exported; the MSR is KVM's own index
	 * range, it faults elsewhere, and its enable bit says the guest
	 * kernel registered the record.
	 */
	if (boot_cpu_has(X86_FEATURE_HYPERVISOR) &&
	    !jit_rdmsr_safe_on_cpu(jc->cpu, MSR_KVM_STEAL_TIME, &val) &&
	    (val & KVM_MSR_ENABLED))
		jc->steal_st = phys_to_virt(val & KVM_STEAL_VALID_BITS);
	jc->last_steal_ns = jit_hw_steal_ns(jc);
}

/*
 * jit_hw_read_delta - SMIs and steal time since the previous call.
 *
 * Called on the sampled CPU itself, at the start of each period and for
 * each gap of JIT_HW_FLOOR_NS or more, so a change is charged to the first
 * such gap after it.
 * Either output may be NULL to just resynchronise.
 */
void jit_hw_read_delta(struct jit_cpu *jc, u32 *smi, u64 *steal_ns)
{
	u64 val, steal;

	if (jc->smi_ok && !jit_rdmsr_safe(MSR_SMI_COUNT, &val)) {
		if (smi)
			*smi = (u32)(val - jc->last_smi);
		jc->last_smi = val;
	}
	steal = jit_hw_steal_ns(jc);
	if (steal_ns)
		*steal_ns = steal - jc->last_steal_ns;
	jc->last_steal_ns = steal;
}
