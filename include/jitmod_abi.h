/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * jitmod_abi.h - what the kernel module and jitread agree on.
 *
 * The noise classes double as the histogram classes on the reader side, so
 * their numbering is part of the event ABI: append, never renumber.
 */
#ifndef JITMOD_ABI_H
#define JITMOD_ABI_H

#define JIT_TRACE_SYSTEM "jitmod"
#define JIT_ABI_VERSION 1

enum jit_noise_class {
	JIT_NOISE_IRQ = 0,
	JIT_NOISE_SOFTIRQ = 1,
	JIT_NOISE_NMI = 2,
	JIT_NOISE_THREAD = 3,
	JIT_NOISE_HW_SMI = 4,
	JIT_NOISE_HW_STEAL = 5,
	JIT_NOISE_HW_UNKNOWN = 6,
	JIT_NOISE_NR = 7,
};

/*
 * Measurement anomalies (jitmod:summary's anomaly_mask bits): states the
 * accounting cannot explain, counted instead of warned about.
 */
enum jit_anomaly {
	JIT_ANOM_WINDOW = 0,	/* a window's start lay past its end */
	JIT_ANOM_TSC_BACK = 1,	/* the TSC stepped backwards */
	JIT_ANOM_NR = 2,
};

/* Why sampling stopped (jitmod:stop). */
enum jit_stop_reason {
	JIT_STOP_SINGLE = 0,	/* one gap exceeded stop_us */
	JIT_STOP_TOTAL = 1,	/* noise in one period exceeded stop_total_us */
};

#endif /* JITMOD_ABI_H */
