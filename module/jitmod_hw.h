/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitmod_hw.h - split hardware noise into SMI, hypervisor steal and unknown.
 */
#ifndef JITMOD_HW_H
#define JITMOD_HW_H

#include "jitmod.h"

void jit_hw_init_cpu(struct jit_cpu *jc);
void jit_hw_read_delta(struct jit_cpu *jc, u32 *smi, u64 *steal_ns);

#endif /* JITMOD_HW_H */
