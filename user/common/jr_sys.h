/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_sys.h - small dealings with the machine: files, pinning, ready files.
 */
#ifndef JR_SYS_H
#define JR_SYS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/jr_err.h"

/* task->flags of a kernel thread, as /proc/PID/stat gives them */
#define JR_PF_KTHREAD 0x00200000UL

int jr_read_line(const char *path, char *buf, size_t len);
int jr_stat_parse(const char *stat, char *comm, size_t len,
		  unsigned long *flags);
char *jr_read_file(const char *path, size_t max, size_t *len, struct jr_err *e);
int jr_ready_clear(const char *path, struct jr_err *e);
void jr_ready(const char *path);
int jr_pin_self(const char *name, int cpu, int fifo_prio);
bool jr_own_thread(int tid);
int jr_read_cpulist(const char *path, unsigned char *set, char *text,
		    size_t len);
int jr_cpus_outside(const unsigned char *want, const char *path, char *text,
		    size_t len);

#endif /* JR_SYS_H */
