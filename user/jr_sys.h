/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_sys.h - machine and module facts for the report's system block.
 */
#ifndef JR_SYS_H
#define JR_SYS_H

#include <stdbool.h>
#include <stddef.h>

#include "jr_rec.h"

#define JR_PARAMS_DIR "/sys/module/jitmod/parameters"

int jr_read_line(const char *path, char *buf, size_t len);
int jr_write_param(const char *name, unsigned long long v);
bool jr_module_loaded(void);
int jr_ready_clear(const char *path);
void jr_ready(const char *path);
int jr_pin_self(const char *name, int cpu, int fifo_prio);
int jr_cpus_outside(const unsigned char *want, const char *path, char *text,
		    size_t len);
void jr_sysinfo_fill(struct jr_sysinfo *s, int argc, char **argv);

#endif /* JR_SYS_H */
