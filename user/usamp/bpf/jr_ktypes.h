/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * jr_ktypes.h - the kernel types jr_ubpf.bpf.c reads, with only the fields
 * it reads.
 *
 * Each struct is marked preserve_access_index, so every field access is
 * a CO-RE relocation that libbpf resolves against the running kernel's
 * BTF at load time: the layout written here is never the one used.  The
 * object is therefore built from this tree alone, the same on every
 * build machine, with no vmlinux.h dumped from the builder's kernel.
 * The integer types and the BPF map types come from the kernel's UAPI
 * headers (linux-libc-dev).
 */
#ifndef JR_KTYPES_H
#define JR_KTYPES_H

#include <linux/types.h>
#include <linux/bpf.h>

typedef _Bool bool;
#define true 1
#define false 0
typedef __s64 s64;

#pragma clang attribute push(__attribute__((preserve_access_index)), \
			     apply_to = record)

/* irq_handler_entry/exit: the action's name */
struct irqaction {
	const char *name;
};

/* sched_switch: who ran; attach: whose thread, runnable or not */
struct task_struct {
	int pid;
	int tgid;
	unsigned int __state;
	char comm[16];
};

/* before 5.14 the state was a long named state */
struct task_struct___old {
	long state;
};

/* workqueue_execute_start: the work's function */
struct work_struct {
	void *func;
};

/* timer_expire_entry and hrtimer_expire_entry: the callback */
struct timer_list {
	void *function;
};

struct hrtimer {
	void *function;
};

#pragma clang attribute pop

#endif /* JR_KTYPES_H */
