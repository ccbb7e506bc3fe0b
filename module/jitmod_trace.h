/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitmod_trace.h - the events jitmod writes into ftrace's per-CPU buffers.
 *
 * Every duration is in ns and says so in its field name.  The enums are
 * exported with TRACE_DEFINE_ENUM so that libtraceevent, trace-cmd, perf
 * and bpftrace print names rather than numbers.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM jitmod

#if !defined(_JITMOD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _JITMOD_TRACE_H

#include <linux/tracepoint.h>
#include "jitmod_abi.h"
#include "jitmod_kcompat.h"

TRACE_DEFINE_ENUM(JIT_NOISE_IRQ);
TRACE_DEFINE_ENUM(JIT_NOISE_SOFTIRQ);
TRACE_DEFINE_ENUM(JIT_NOISE_NMI);
TRACE_DEFINE_ENUM(JIT_NOISE_THREAD);
TRACE_DEFINE_ENUM(JIT_NOISE_HW_SMI);
TRACE_DEFINE_ENUM(JIT_NOISE_HW_STEAL);
TRACE_DEFINE_ENUM(JIT_NOISE_HW_UNKNOWN);
TRACE_DEFINE_ENUM(JIT_DETAIL_WORK);
TRACE_DEFINE_ENUM(JIT_DETAIL_TIMER);
TRACE_DEFINE_ENUM(JIT_DETAIL_HRTIMER);
TRACE_DEFINE_ENUM(JIT_DETAIL_TICK);
TRACE_DEFINE_ENUM(JIT_DETAIL_IPI);
TRACE_DEFINE_ENUM(JIT_STOP_SINGLE);
TRACE_DEFINE_ENUM(JIT_STOP_TOTAL);

#define jit_show_class(c)						\
	__print_symbolic(c,						\
			 { JIT_NOISE_IRQ, "irq" },			\
			 { JIT_NOISE_SOFTIRQ, "softirq" },		\
			 { JIT_NOISE_NMI, "nmi" },			\
			 { JIT_NOISE_THREAD, "thread" },		\
			 { JIT_NOISE_HW_SMI, "hw:smi" },		\
			 { JIT_NOISE_HW_STEAL, "hw:steal" },		\
			 { JIT_NOISE_HW_UNKNOWN, "hw:unknown" })

#define jit_show_detail(k)						\
	__print_symbolic(k,						\
			 { JIT_DETAIL_WORK, "work" },			\
			 { JIT_DETAIL_TIMER, "timer" },		\
			 { JIT_DETAIL_HRTIMER, "hrtimer" },		\
			 { JIT_DETAIL_TICK, "tick" },			\
			 { JIT_DETAIL_IPI, "ipi" })

#define jit_show_softirq(v)						\
	__print_symbolic(v, { 0, "HI" }, { 1, "TIMER" }, { 2, "NET_TX" },	\
			 { 3, "NET_RX" }, { 4, "BLOCK" }, { 5, "IRQ_POLL" },	\
			 { 6, "TASKLET" }, { 7, "SCHED" }, { 8, "HRTIMER" },	\
			 { 9, "RCU" })

/*
 * jitmod:gap - the sampler lost the CPU for at least threshold_ns.
 * The per-class times are net of nesting.  @hw_ns is what they do not
 * explain: hardware (SMI, hypervisor), plus the interrupt entry and exit
 * paths outside the tracepoints.  @class is the class with the most net
 * time, or the hardware split when no interference was seen at all.
 */
TRACE_EVENT(gap,
	TP_PROTO(u64 duration_ns, const u64 *net_ns, const u32 *counts,
		 int cls, u32 smi_count, u64 steal_ns, u64 hw_ns),
	TP_ARGS(duration_ns, net_ns, counts, cls, smi_count, steal_ns, hw_ns),
	TP_STRUCT__entry(
		__field(u64, duration_ns)
		__field(u64, hw_ns)
		__field(u64, irq_ns)
		__field(u64, softirq_ns)
		__field(u64, nmi_ns)
		__field(u64, thread_ns)
		__field(u64, steal_ns)
		__field(u32, irq_count)
		__field(u32, softirq_count)
		__field(u32, nmi_count)
		__field(u32, thread_count)
		__field(u32, smi_count)
		__field(int, cls)
	),
	TP_fast_assign(
		__entry->duration_ns = duration_ns;
		__entry->hw_ns = hw_ns;
		__entry->irq_ns = net_ns[JIT_NOISE_IRQ];
		__entry->softirq_ns = net_ns[JIT_NOISE_SOFTIRQ];
		__entry->nmi_ns = net_ns[JIT_NOISE_NMI];
		__entry->thread_ns = net_ns[JIT_NOISE_THREAD];
		__entry->steal_ns = steal_ns;
		__entry->irq_count = counts[JIT_NOISE_IRQ];
		__entry->softirq_count = counts[JIT_NOISE_SOFTIRQ];
		__entry->nmi_count = counts[JIT_NOISE_NMI];
		__entry->thread_count = counts[JIT_NOISE_THREAD];
		__entry->smi_count = smi_count;
		__entry->cls = cls;
	),
	TP_printk("duration_ns=%llu class=%s hw_ns=%llu irq=%u/%lluns softirq=%u/%lluns nmi=%u/%lluns thread=%u/%lluns smi=%u steal_ns=%llu",
		  __entry->duration_ns, jit_show_class(__entry->cls),
		  __entry->hw_ns,
		  __entry->irq_count, __entry->irq_ns,
		  __entry->softirq_count, __entry->softirq_ns,
		  __entry->nmi_count, __entry->nmi_ns,
		  __entry->thread_count, __entry->thread_ns,
		  __entry->smi_count, __entry->steal_ns)
);

/*
 * jitmod:irq_noise - a hard interrupt ran on a sampled CPU.  A device
 * interrupt has @irq >= 0 and its action's name; a system vector has
 * @irq = -1, its @vector and the vector's name.
 */
TRACE_EVENT(irq_noise,
	TP_PROTO(int irq, int vector, const char *name, u64 duration_ns),
	TP_ARGS(irq, vector, name, duration_ns),
	TP_STRUCT__entry(
		__field(u64, duration_ns)
		__field(int, irq)
		__field(int, vector)
		__string(name, name)
	),
	TP_fast_assign(
		__entry->duration_ns = duration_ns;
		__entry->irq = irq;
		__entry->vector = vector;
		jit_assign_str(name, name);
	),
	TP_printk("irq=%d vector=%d name=%s duration_ns=%llu",
		  __entry->irq, __entry->vector, __get_str(name),
		  __entry->duration_ns)
);

/* jitmod:softirq_noise - a softirq vector ran on a sampled CPU. */
TRACE_EVENT(softirq_noise,
	TP_PROTO(unsigned int vec, u64 duration_ns),
	TP_ARGS(vec, duration_ns),
	TP_STRUCT__entry(
		__field(u64, duration_ns)
		__field(unsigned int, vec)
	),
	TP_fast_assign(
		__entry->duration_ns = duration_ns;
		__entry->vec = vec;
	),
	TP_printk("vec=%u [%s] duration_ns=%llu", __entry->vec,
		  jit_show_softirq(__entry->vec), __entry->duration_ns)
);

/* jitmod:nmi_noise - one NMI handler ran on a sampled CPU. */
TRACE_EVENT(nmi_noise,
	TP_PROTO(void *handler, u64 duration_ns),
	TP_ARGS(handler, duration_ns),
	TP_STRUCT__entry(
		__field(u64, duration_ns)
		__field(void *, handler)
	),
	TP_fast_assign(
		__entry->duration_ns = duration_ns;
		__entry->handler = handler;
	),
	TP_printk("handler=%ps duration_ns=%llu", __entry->handler,
		  __entry->duration_ns)
);

/* jitmod:thread_noise - another task held a sampled CPU. */
TRACE_EVENT(thread_noise,
	TP_PROTO(const char *comm, pid_t pid, u64 duration_ns),
	TP_ARGS(comm, pid, duration_ns),
	TP_STRUCT__entry(
		__field(u64, duration_ns)
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, pid)
	),
	TP_fast_assign(
		__entry->duration_ns = duration_ns;
		memcpy(__entry->comm, comm, TASK_COMM_LEN);
		__entry->pid = pid;
	),
	TP_printk("comm=%s pid=%d duration_ns=%llu", __entry->comm,
		  __entry->pid, __entry->duration_ns)
);

/*
 * jitmod:detail - what ran inside the open window of class @cls, written
 * before that window's own event.  @fn is the work function or timer
 * callback and @wall_ns its time from entry to exit, nesting included;
 * for a TICK detail @fn is NULL and @dep the mask of TICK_DEP_BIT_*
 * that kept the tick since the last local_timer interrupt.
 */
TRACE_EVENT(detail,
	TP_PROTO(int kind, int cls, void *fn, u32 dep, u64 wall_ns),
	TP_ARGS(kind, cls, fn, dep, wall_ns),
	TP_STRUCT__entry(
		__field(u64, wall_ns)
		__field(void *, fn)
		__field(u32, dep)
		__field(int, kind)
		__field(int, cls)
	),
	TP_fast_assign(
		__entry->wall_ns = wall_ns;
		__entry->fn = fn;
		__entry->dep = dep;
		__entry->kind = kind;
		__entry->cls = cls;
	),
	TP_printk("kind=%s cls=%s fn=%ps dep=0x%x wall_ns=%llu",
		  jit_show_detail(__entry->kind), jit_show_class(__entry->cls),
		  __entry->fn, __entry->dep, __entry->wall_ns)
);

/*
 * jitmod:summary - one sampling period.  @resolution_ps is the smallest
 * loop delta seen: the finest gap the sampler can resolve.  @irqs_off is
 * 1 for a period sampled with interrupts off, and @held the interrupts
 * that waited for its end.
 */
TRACE_EVENT(summary,
	TP_PROTO(u64 runtime_ns, u64 noise_ns, u64 max_gap_ns,
		 const u32 *counts, u64 iterations, u64 resolution_ps,
		 u64 self_ns, u64 anomalies, u32 anomaly_mask, bool irqs_off,
		 u32 held),
	TP_ARGS(runtime_ns, noise_ns, max_gap_ns, counts, iterations,
		resolution_ps, self_ns, anomalies, anomaly_mask, irqs_off, held),
	TP_STRUCT__entry(
		__field(u64, runtime_ns)
		__field(u64, noise_ns)
		__field(u64, max_gap_ns)
		__field(u64, iterations)
		__field(u64, resolution_ps)
		__field(u64, self_ns)
		__field(u64, anomalies)
		__field(u32, anomaly_mask)
		__field(u32, avail_ppm)
		__field(u32, hw_count)
		__field(u32, nmi_count)
		__field(u32, irq_count)
		__field(u32, softirq_count)
		__field(u32, thread_count)
		__field(u32, irqs_off)
		__field(u32, held)
	),
	TP_fast_assign(
		__entry->runtime_ns = runtime_ns;
		__entry->noise_ns = noise_ns;
		__entry->max_gap_ns = max_gap_ns;
		__entry->iterations = iterations;
		__entry->resolution_ps = resolution_ps;
		__entry->self_ns = self_ns;
		__entry->anomalies = anomalies;
		__entry->anomaly_mask = anomaly_mask;
		__entry->avail_ppm = runtime_ns && noise_ns <= runtime_ns ?
			1000000 - div64_u64(noise_ns * 1000000, runtime_ns) :
			0;
		__entry->hw_count = counts[JIT_NOISE_HW_SMI] +
			counts[JIT_NOISE_HW_STEAL] +
			counts[JIT_NOISE_HW_UNKNOWN];
		__entry->nmi_count = counts[JIT_NOISE_NMI];
		__entry->irq_count = counts[JIT_NOISE_IRQ];
		__entry->softirq_count = counts[JIT_NOISE_SOFTIRQ];
		__entry->thread_count = counts[JIT_NOISE_THREAD];
		__entry->irqs_off = irqs_off;
		__entry->held = held;
	),
	TP_printk("runtime_ns=%llu noise_ns=%llu avail_ppm=%u max_gap_ns=%llu hw=%u nmi=%u irq=%u softirq=%u thread=%u iterations=%llu resolution_ps=%llu self_ns=%llu anomalies=%llu anomaly_mask=0x%x irqs_off=%u held=%u",
		  __entry->runtime_ns, __entry->noise_ns, __entry->avail_ppm,
		  __entry->max_gap_ns, __entry->hw_count, __entry->nmi_count,
		  __entry->irq_count, __entry->softirq_count,
		  __entry->thread_count, __entry->iterations,
		  __entry->resolution_ps, __entry->self_ns,
		  __entry->anomalies, __entry->anomaly_mask,
		  __entry->irqs_off, __entry->held)
);

/* jitmod:stop - a stop condition froze sampling and the trace. */
TRACE_EVENT(stop,
	TP_PROTO(int reason, u64 value_ns, u64 limit_ns),
	TP_ARGS(reason, value_ns, limit_ns),
	TP_STRUCT__entry(
		__field(u64, value_ns)
		__field(u64, limit_ns)
		__field(int, reason)
	),
	TP_fast_assign(
		__entry->value_ns = value_ns;
		__entry->limit_ns = limit_ns;
		__entry->reason = reason;
	),
	TP_printk("reason=%s value_ns=%llu limit_ns=%llu",
		  __print_symbolic(__entry->reason,
				   { JIT_STOP_SINGLE, "single" },
				   { JIT_STOP_TOTAL, "total" }),
		  __entry->value_ns, __entry->limit_ns)
);

#endif /* _JITMOD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE jitmod_trace
#include <trace/define_trace.h>
