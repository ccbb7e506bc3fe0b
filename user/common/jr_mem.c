// SPDX-License-Identifier: GPL-2.0
/*
 * jr_mem.c - memory a measuring loop uses, resident before it starts.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/jr_mem.h"

/* jr_mem_alloc - bytes of zeroed memory, every page faulted in; or NULL */
void *jr_mem_alloc(size_t bytes)
{
	size_t page = getpagesize(), i;
	volatile char *v;
	void *p;

	if (!bytes)
		bytes = 1;
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	v = p;
	for (i = 0; i < bytes; i += page)
		v[i] = 0; /* a write fault each: no shared zero page */
	return p;
}

void jr_mem_free(void *p, size_t bytes)
{
	if (p)
		munmap(p, bytes ? bytes : 1);
}

/* jr_mem_resident_pct - the share of p's pages in memory now, in %. */
unsigned int jr_mem_resident_pct(const void *p, size_t bytes)
{
	size_t page = getpagesize(), n = (bytes + page - 1) / page, i, in = 0;
	unsigned char *vec;

	if (!p || !n)
		return 100;
	vec = malloc(n);
	if (!vec)
		return 0;
	if (mincore((void *)p, bytes, vec)) {
		free(vec);
		return 0;
	}
	for (i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return (unsigned int)(100 * in / n);
}
