/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_ksym.h - kernel text addresses to names, from /proc/kallsyms.
 */
#ifndef JR_KSYM_H
#define JR_KSYM_H

#include <stddef.h>
#include <stdint.h>

#define JR_SYM_LEN 40 /* what is kept of a name: struct jr_rec's name */

const char *jr_ksym_name(uint64_t addr, int show_addr, char *buf, size_t len);
const char *jr_ksym(uint64_t addr, char *buf, size_t len);
void jr_ksym_preload(void);

#endif /* JR_KSYM_H */
