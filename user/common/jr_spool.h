/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_spool.h - what a merge sets aside until its end, on disk rather than
 * in memory: a temporary file with no name (tmpfile(3): O_TMPFILE, or a
 * new file unlinked at once), so that no other process can open it.
 * Bytes are appended, each put at the offset it returns, and read back
 * by offset.
 */
#ifndef JR_SPOOL_H
#define JR_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct jr_spool {
	FILE *f; /* NULL: closed */
	uint64_t end; /* bytes put so far */
};

int jr_spool_open(struct jr_spool *sp);
void jr_spool_close(struct jr_spool *sp);
int jr_spool_put(struct jr_spool *sp, const void *buf, size_t len,
		 uint64_t *at);
int jr_spool_get(const struct jr_spool *sp, uint64_t at, void *buf, size_t len);

#endif /* JR_SPOOL_H */
