/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_strtab.h - each distinct string kept once, named by an id: for a
 * merge that meets the same few names (hosts, sources) in many reports.
 * Its memory grows with the distinct strings' bytes, not with how often
 * each is put.  Id 0 is the empty string, in an empty table too.  A
 * string's pointer lasts until the next put.
 */
#ifndef JR_STRTAB_H
#define JR_STRTAB_H

#include <stdint.h>

#include "common/jr_buf.h"

struct jr_strtab {
	struct jr_buf text; /* each string and its NUL, in the order put */
	uint32_t *at; /* by id: its offset in text */
	uint32_t nr, cap; /* ids given (the first is 0) and room in at */
	uint32_t *slot; /* open addressing: an id, or 0 for a free slot */
	uint32_t nr_slots; /* a power of two, at least twice nr */
};

int jr_strtab_put(struct jr_strtab *t, const char *s, uint32_t *id);
const char *jr_strtab_str(const struct jr_strtab *t, uint32_t id);
void jr_strtab_free(struct jr_strtab *t);

#endif /* JR_STRTAB_H */
