/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitmod_arch.h - the CPU's free-running cycle counter, which the loop
 * and the probes read, and its frequency.  On x86-64 it is the TSC, at
 * the kernel's calibration (tsc_khz).
 */
#ifndef JITMOD_ARCH_H
#define JITMOD_ARCH_H

#include <linux/types.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/tsc.h>

/* jit_cycles - the counter now, unordered: the loop's one read */
static __always_inline u64 jit_cycles(void)
{
	return rdtsc();
}

/* jit_cyc_khz - the counter's frequency, in kHz */
static inline u32 jit_cyc_khz(void)
{
	return tsc_khz;
}

/* jit_cycles_usable - whether this CPU has the counter, calibrated */
static inline bool jit_cycles_usable(void)
{
	return boot_cpu_has(X86_FEATURE_TSC) && tsc_khz;
}

#endif /* JITMOD_ARCH_H */
