/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * jr_ubpf_rec.h - what jr_ubpf.bpf.c writes to its ring buffer: one record per
 * interference window that closed on a watched CPU, net of nesting, and
 * one per detail (a work item, timer callback or the tick's dependencies)
 * inside such a window, just before the window's own record.
 */
#ifndef JR_UBPF_H
#define JR_UBPF_H

#define JR_UBPF_MAX_CPUS 4096
#define JR_UBPF_NAME_LEN 24
#define JR_UBPF_NO_VEC 0xffff
#define JR_UBPF_DETAIL 0x100 /* cls of a detail record */

/* Windows, highest priority first: an exit pushes every later one. */
enum jr_ubpf_win {
	JR_W_NMI,
	JR_W_IRQ,
	JR_W_SOFTIRQ,
	JR_W_THREAD,
	JR_W_NR,
};

/*
 * A detail record has cls JR_UBPF_DETAIL, vec its kind (enum jit_detail),
 * wcls its window's class, start_ns its window's arrival, net_ns the
 * callback's own time, addr the callback, and id the kworker's pid
 * (work), the tick's dependency mask (tick) or the CPU that asked (ipi,
 * -1 when not seen), with callsite where it asked from.
 */
struct jr_ubpf_rec {
	__u64 start_ns; /* arrival, bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 net_ns; /* duration less what nested inside it */
	__u64 addr; /* NMI: the handler */
	__u32 cpu;
	__u16 cls; /* enum jit_noise_class, or JR_UBPF_DETAIL */
	__u16 vec; /* IRQ: index into the vector table; softirq: vec_nr */
	__s32 id; /* IRQ: line, -1 for a vector; thread: pid */
	char name[JR_UBPF_NAME_LEN]; /* IRQ: action name; thread: comm */
	__u32 wcls; /* detail: its window's class */
	__u64 callsite; /* ipi detail: the sender's callsite, or 0 */
};

#endif /* JR_UBPF_H */
