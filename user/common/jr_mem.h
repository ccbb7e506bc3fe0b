/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_mem.h - memory a measuring loop uses, resident before it starts.
 *
 * A page first touched inside the loop is a fault the loop would count
 * as noise.  mlockall() covers this only when it is allowed, and a
 * memset() after calloc() may be optimised away, so these buffers are
 * mapped populated and each page is written through a volatile pointer.
 */
#ifndef JR_MEM_H
#define JR_MEM_H

#include <stddef.h>

void *jr_mem_alloc(size_t bytes);
void jr_mem_free(void *p, size_t bytes);
unsigned int jr_mem_resident_pct(const void *p, size_t bytes);

#endif /* JR_MEM_H */
