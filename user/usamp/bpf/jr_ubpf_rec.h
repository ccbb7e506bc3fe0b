/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * jr_ubpf_rec.h - what jr_ubpf.bpf.c writes to its ring buffer: one record per
 * interference window that closed on a watched CPU, net of nesting, and
 * one per detail (a work item, timer callback or the tick's dependencies)
 * inside such a window, just before the window's own record.
 *
 * Attach mode (jitread attach) watches a process's threads instead of a
 * sampler: the same records, each naming the target thread it hit, and a
 * per-thread tally of what is not noise (running, sleep, faults).
 */
#ifndef JR_UBPF_H
#define JR_UBPF_H

#define JR_UBPF_MAX_CPUS 4096
#define JR_UBPF_NAME_LEN 24
#define JR_UBPF_NO_VEC 0xffff
#define JR_UBPF_DETAIL 0x100 /* cls of a detail record */
#define JR_UBPF_MAX_TASKS 16384 /* attach: threads tallied */

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
	__s32 tid; /* the watched thread it hit (attach: the target's) */
	__u32 pad;
};

/*
 * struct jr_ubpf_task - attach: one target thread's tally, by tid.  The
 * *_at fields are the state the probes keep (0: not in that state); the
 * rest are totals.  A wait is the time from a switch-out while runnable
 * to the next switch-in, wherever that is; a sleep, from a switch-out
 * while not runnable; a fault, handle_mm_fault() in this thread, gross.
 */
struct jr_ubpf_task {
	__u64 wait_at, sleep_at, run_at, fault_at;
	__s32 cpu; /* where it last ran or waits */
	__u32 flags;
	__u64 run_ns;
	__u64 waits, wait_ns, wait_max_ns;
	__u64 sleeps, sleep_ns;
	__u64 faults, fault_ns, fault_max_ns;
	__u64 migrations;
	char comm[16];
};

/*
 * struct jr_ubpf_acpu - attach: one CPU, written only there but before
 * the probes attach: the target thread running there, one waiting there,
 * and the time a target ran or waited there.
 */
struct jr_ubpf_acpu {
	__u32 running, waiting; /* tids; 0: none */
	__u64 since; /* when the CPU was last found watched; 0: not now */
	__u64 total_ns;
};

#endif /* JR_UBPF_H */
