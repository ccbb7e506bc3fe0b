// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_conv.c - counter cycles to and from ns and ps, at jit_cyc_khz().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/time64.h>
#include "jitmod.h"

/*
 * The largest cycle counts that convert to ns and ps without overflow.
 * mul_u64_u32_div() is a 128-bit multiply and a divide on x86-64, and the
 * divide traps when the quotient does not fit in 64 bits: with a TSC
 * slower than 1 GHz, a wrapped delta near 2^64 would take the machine
 * down.  Larger counts are saturated instead; the sampler never produces
 * them, because it drops a TSC that steps backwards (JIT_ANOM_TSC_BACK).
 */
static u64 jit_max_cyc_ns, jit_max_cyc_ps;

/* jit_conv_init - the conversion limits for the counter's frequency. */
void jit_conv_init(void)
{
	jit_max_cyc_ns = jit_cyc_khz() >= USEC_PER_SEC ? U64_MAX :
			 div_u64(U64_MAX, USEC_PER_SEC) * jit_cyc_khz();
	jit_max_cyc_ps = div_u64(U64_MAX, NSEC_PER_SEC) * jit_cyc_khz();
}

u64 jit_cyc_to_ns(u64 cyc)
{
	if (unlikely(cyc >= jit_max_cyc_ns))
		return U64_MAX;
	return mul_u64_u32_div(cyc, USEC_PER_SEC, jit_cyc_khz());
}

u64 jit_cyc_to_ps(u64 cyc)
{
	if (unlikely(cyc >= jit_max_cyc_ps))
		return U64_MAX;
	return mul_u64_u32_div(cyc, NSEC_PER_SEC, jit_cyc_khz());
}

u64 jit_ns_to_cyc(u64 ns)
{
	return mul_u64_u32_div(ns, jit_cyc_khz(), USEC_PER_SEC);
}
