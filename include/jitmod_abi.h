/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * jitmod_abi.h - what the kernel module, jitread, its BPF classifier and
 * the Python tools agree on, each table written once.
 *
 * Each table is an X-macro: a braced list of X(...) entries that a user
 * expands with an X of its own into an enum (JIT_DECLARE_ENUM) or an
 * array initializer;
 * JIT_NR() counts it.  jitpy/abi.py reads the same lists for Python,
 * and jitmod_events.c checks the trace formats' symbol lists against them.  The noise
 * classes double as the histogram classes on the reader side, so their
 * numbering is part of the event ABI: append, never renumber.
 */
#ifndef JITMOD_ABI_H
#define JITMOD_ABI_H

/* The noise classes: X(ENUM_SUFFIX, "name") */
#define JIT_NOISE_CLASSES(X)		\
	{				\
		X(IRQ, "irq"),		\
		X(SOFTIRQ, "softirq"),	\
		X(NMI, "nmi"),		\
		X(THREAD, "thread"),	\
		X(HW_SMI, "hw:smi"),	\
		X(HW_STEAL, "hw:steal"),	\
		X(HW_UNKNOWN, "hw:unknown"), \
	}

/* The softirq vectors, in the kernel's order: X(NAME) */
#define JIT_SOFTIRQS(X)		\
	{			\
		X(HI),		\
		X(TIMER),	\
		X(NET_TX),	\
		X(NET_RX),	\
		X(BLOCK),	\
		X(IRQ_POLL),	\
		X(TASKLET),	\
		X(SCHED),	\
		X(HRTIMER),	\
		X(RCU),		\
	}

/*
 * The x86 system vectors with an entry/exit tracepoint pair in
 * irq_vectors, hooked by jitmod and the BPF classifier: X(name)
 */
#define JIT_VECTORS(X)				\
	{					\
		X(local_timer),			\
		X(spurious_apic),		\
		X(error_apic),			\
		X(x86_platform_ipi),		\
		X(irq_work),			\
		X(reschedule),			\
		X(call_function),		\
		X(call_function_single),		\
		X(threshold_apic),		\
		X(deferred_error_apic),		\
		X(thermal_apic),			\
	}

/*
 * Measurement anomalies (jitmod:summary's anomaly_mask bits): states the
 * accounting cannot explain, counted instead of warned about.
 * X(ENUM_SUFFIX, "name"): WINDOW, a window's start lay past its end;
 * TSC_BACK, the TSC stepped backwards.
 */
#define JIT_ANOMALIES(X)		\
	{				\
		X(WINDOW, "window"),	\
		X(TSC_BACK, "tsc_back"),	\
	}

/*
 * What jitmod:detail names inside a window: X(ENUM_SUFFIX, "name").
 * WORK, a work item in a thread window; TIMER, a timer_list callback in a
 * softirq window; HRTIMER, an hrtimer callback in an irq or softirq
 * window; TICK, what kept the tick on a nohz_full CPU, given with the
 * local_timer interrupt that followed; IPI, a function another CPU asked
 * this one to run (smp_call_function*), in the call_function or
 * call_function_single interrupt's window, with the CPU that asked (dep;
 * U32_MAX when its queueing was not seen).
 */
#define JIT_DETAILS(X)			\
	{				\
		X(WORK, "work"),	\
		X(TIMER, "timer"),	\
		X(HRTIMER, "hrtimer"),	\
		X(TICK, "tick"),	\
		X(IPI, "ipi"),		\
	}

/*
 * The tracepoints each detail needs, hooked by jitmod and the BPF
 * classifier: X(ENUM_SUFFIX of JIT_DETAILS, tracepoint).  A kind is
 * named on a kernel that has all of its tracepoints.
 */
#define JIT_DETAIL_TPS(X)				\
	{						\
		X(WORK, workqueue_execute_start),	\
		X(WORK, workqueue_execute_end),		\
		X(TIMER, timer_expire_entry),		\
		X(TIMER, timer_expire_exit),		\
		X(HRTIMER, hrtimer_expire_entry),	\
		X(HRTIMER, hrtimer_expire_exit),	\
		X(TICK, tick_stop),			\
		X(IPI, csd_queue_cpu),			\
		X(IPI, csd_function_entry),		\
		X(IPI, csd_function_exit),		\
	}


/*
 * The tick's dependencies, by bit, in the kernel's order (enum
 * tick_dep_bits in linux/tick.h): X(NAME)
 */
#define JIT_TICK_DEPS(X)		\
	{				\
		X(POSIX_TIMER),		\
		X(PERF_EVENTS),		\
		X(SCHED),		\
		X(CLOCK_UNSTABLE),	\
		X(RCU),			\
		X(RCU_EXP),		\
	}

#define JIT_X_NOISE_ENUM(n, s) JIT_NOISE_##n
#define JIT_X_ANOM_ENUM(n, s) JIT_ANOM_##n
#define JIT_X_DETAIL_ENUM(n, s) JIT_DETAIL_##n
#define JIT_X_SOFTIRQ_ENUM(n) JIT_SOFTIRQ_##n
#define JIT_X_VECTOR_ENUM(n) JIT_VEC_##n
#define JIT_X_NAME2(n, s) s
#define JIT_X_DETAIL_TP_KIND(k, tp) JIT_DETAIL_##k
#define JIT_X_DETAIL_TP_NAME(k, tp) #tp
#define JIT_X_NAME(n) #n

/* the number of entries in a table */
#define JIT_NR(table, x) \
	((int)(sizeof((const char *const[])table(x)) / sizeof(const char *)))

/* an enum whose body is a table */
#define JIT_DECLARE_ENUM(name, table, x) enum name table(x)

JIT_DECLARE_ENUM(jit_noise_class, JIT_NOISE_CLASSES, JIT_X_NOISE_ENUM);
JIT_DECLARE_ENUM(jit_anomaly, JIT_ANOMALIES, JIT_X_ANOM_ENUM);
JIT_DECLARE_ENUM(jit_detail, JIT_DETAILS, JIT_X_DETAIL_ENUM);
JIT_DECLARE_ENUM(jit_softirq, JIT_SOFTIRQS, JIT_X_SOFTIRQ_ENUM);
JIT_DECLARE_ENUM(jit_vector, JIT_VECTORS, JIT_X_VECTOR_ENUM);

#define JIT_NOISE_NR JIT_NR(JIT_NOISE_CLASSES, JIT_X_NAME2)
#define JIT_ANOM_NR JIT_NR(JIT_ANOMALIES, JIT_X_NAME2)
#define JIT_DETAIL_NR JIT_NR(JIT_DETAILS, JIT_X_NAME2)
#define JIT_TICK_DEP_NR JIT_NR(JIT_TICK_DEPS, JIT_X_NAME)
#define JIT_SOFTIRQ_NR JIT_NR(JIT_SOFTIRQS, JIT_X_NAME)
#define JIT_VEC_NR JIT_NR(JIT_VECTORS, JIT_X_NAME)
#define JIT_DETAIL_TP_NR JIT_NR(JIT_DETAIL_TPS, JIT_X_DETAIL_TP_NAME)

/* Why sampling stopped (jitmod:stop). */
enum jit_stop_reason {
	JIT_STOP_SINGLE = 0,	/* one gap exceeded stop_us */
	JIT_STOP_TOTAL = 1,	/* noise in one period exceeded stop_total_us */
};

#endif /* JITMOD_ABI_H */
