/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_journal.h - the journaller's file: a ring of the last messages,
 * created new, mapped and prefaulted before the run, and read back through
 * read() after it.
 */
#ifndef JR_JOURNAL_H
#define JR_JOURNAL_H

#include <stdint.h>

#include "common/jr_err.h"

#define JR_JOURNAL_MAGIC "JRJRNL02"
#define JR_JOURNAL_DEFAULT (64ULL << 20)
#define JR_JOURNAL_MIN (64ULL << 10)
#define JR_JOURNAL_MAX (64ULL << 30)

/*
 * The journal file: a 64-byte header, then a ring of capacity 32-byte
 * entries, a power of two: message seq is entry seq % capacity.  It keeps
 * the last capacity messages, first to entries - 1; a run that fits is
 * cut to its entries.  Little-endian.  checksum is over every payload in
 * order (jr_journal_mix()), kept_checksum over the kept ones.
 */
struct jr_journal_hdr {
	char magic[8];
	uint64_t entries;
	uint64_t checksum;
	uint64_t tsc_khz;
	uint64_t capacity;
	uint64_t first;
	uint64_t kept_checksum;
	uint64_t pad;
};

struct jr_journal_entry {
	uint64_t seq;
	uint64_t payload;
	uint64_t transit_ns;
	uint64_t publish_tsc;
};

/* An open journal: its mapped ring of cap entries, cap a power of two. */
struct jr_journal {
	int fd;
	struct jr_journal_entry *ring;
	uint64_t cap;
};

/* What a journal read back holds. */
struct jr_journal_read {
	uint64_t entries; /* messages journalled */
	uint64_t kept; /* of them, still in the ring */
	uint64_t capacity;
	uint64_t checksum; /* over every payload, as the header says */
};

/* jr_journal_mix - the order-dependent checksum, one payload more. */
static inline uint64_t jr_journal_mix(uint64_t sum, uint64_t payload)
{
	return (sum * 0x100000001b3ULL) ^ payload;
}

/* jr_journal_slot - where message seq goes in the ring. */
static inline struct jr_journal_entry *
jr_journal_slot(const struct jr_journal *j, uint64_t seq)
{
	return &j->ring[seq & (j->cap - 1)];
}

uint64_t jr_journal_cap(uint64_t messages, uint64_t bytes);
int jr_journal_open(struct jr_journal *j, const char *path, uint64_t cap,
		    struct jr_err *e);
int jr_journal_close(struct jr_journal *j, uint64_t entries, uint64_t checksum,
		     uint64_t tsc_khz);
int jr_journal_verify(const char *path, const uint64_t *input,
		      uint64_t nr_input, struct jr_journal_read *out,
		      struct jr_err *e);

#endif /* JR_JOURNAL_H */
