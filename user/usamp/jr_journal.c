// SPDX-License-Identifier: GPL-2.0
/*
 * jr_journal.c - the journaller's file (jr_journal.h): created new, never
 * through a link; its blocks allocated and its pages prefaulted before the
 * run, so that neither a full disk nor a page fault reaches the hot path;
 * its header written at the end; read back through read() to check what
 * the mapping wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "usamp/jr_journal.h"

/* jr_journal_len - the file's length with room for cap entries. */
static size_t jr_journal_len(uint64_t cap)
{
	return sizeof(struct jr_journal_hdr) +
	       cap * sizeof(struct jr_journal_entry);
}

/*
 * jr_journal_cap - the ring's entries: what a run of messages needs (and
 * a quarter more), at most what bytes holds, as a power of two.
 */
uint64_t jr_journal_cap(uint64_t messages, uint64_t bytes)
{
	uint64_t want = messages + messages / 4 + 4096;
	uint64_t most = (bytes - sizeof(struct jr_journal_hdr)) /
			sizeof(struct jr_journal_entry);
	uint64_t cap = 1;

	while (cap < want && cap * 2 <= most)
		cap *= 2;
	return cap;
}

int jr_journal_open(struct jr_journal *j, const char *path, uint64_t cap,
		    struct jr_err *e)
{
	size_t len = jr_journal_len(cap);
	char *m;
	int ret;

	j->cap = cap;
	/* a new file: never through a link or over a file someone placed */
	j->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (j->fd < 0)
		return jr_fail(e, -errno, "%s: %s", path, strerror(errno));
	/* the blocks now: a full disk is this error, never a SIGBUS later */
	ret = posix_fallocate(j->fd, 0, len);
	if (ret) {
		close(j->fd);
		unlink(path);
		return jr_fail(e, -ret, "journal %s (%zu bytes): %s", path, len,
			       strerror(ret));
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, j->fd, 0);
	if (m == MAP_FAILED) {
		ret = jr_fail(e, -errno, "mmap %s: %s", path, strerror(errno));
		close(j->fd);
		return ret;
	}
	memset(m, 0, len); /* prefault: no page fault on the hot path */
	j->ring = (void *)(m + sizeof(struct jr_journal_hdr));
	return 0;
}

/*
 * jr_journal_close - write the header for entries messages journalled
 * with checksum, cut a run that fit to its entries, unmap.
 */
int jr_journal_close(struct jr_journal *j, uint64_t entries, uint64_t checksum,
		     uint64_t tsc_khz)
{
	struct jr_journal_hdr *h = (void *)((char *)j->ring - sizeof(*h));
	size_t len = jr_journal_len(j->cap);
	uint64_t s, sum = 0;
	int ret = 0;

	memcpy(h->magic, JR_JOURNAL_MAGIC, sizeof(h->magic));
	h->entries = entries;
	h->checksum = checksum;
	h->tsc_khz = tsc_khz;
	h->capacity = j->cap;
	h->first = entries > j->cap ? entries - j->cap : 0;
	for (s = h->first; s < entries; s++)
		sum = jr_journal_mix(sum, jr_journal_slot(j, s)->payload);
	h->kept_checksum = sum;
	if (msync(h, len, MS_SYNC))
		ret = -errno;
	munmap(h, len);
	if (entries < j->cap && ftruncate(j->fd, jr_journal_len(entries)))
		ret = -errno;
	close(j->fd);
	return ret;
}

/* jr_journal_bad - a verification failure: e says why; -EINVAL. */
static int jr_journal_bad(FILE *f, void *buf)
{
	if (f)
		fclose(f);
	free(buf);
	return -EINVAL;
}

/*
 * jr_journal_verify - read the journal back through read(), not the
 * mapping: the kept entries in sequence, each payload the message that
 * was sent (input[seq % nr_input], when input is given), their checksum
 * the header's, and the whole checksum too when nothing was dropped.
 */
int jr_journal_verify(const char *path, const uint64_t *input,
		      uint64_t nr_input, struct jr_journal_read *out,
		      struct jr_err *e)
{
	struct jr_journal_entry *ents = NULL;
	uint64_t s, sum = 0, held;
	struct jr_journal_hdr h;
	FILE *f = fopen(path, "rb");

	if (!f || fread(&h, sizeof(h), 1, f) != 1 ||
	    memcmp(h.magic, JR_JOURNAL_MAGIC, sizeof(h.magic))) {
		jr_fail(e, -EINVAL, "%s: not a journal", path);
		return jr_journal_bad(f, NULL);
	}
	if (!h.capacity || (h.capacity & (h.capacity - 1)) ||
	    h.first != (h.entries > h.capacity ? h.entries - h.capacity : 0)) {
		jr_fail(e, -EINVAL, "%s: bad ring (capacity %llu, first %llu)",
			path, (unsigned long long)h.capacity,
			(unsigned long long)h.first);
		return jr_journal_bad(f, NULL);
	}
	held = h.entries < h.capacity ? h.entries : h.capacity;
	ents = malloc(held ? held * sizeof(*ents) : 1);
	if (!ents || fread(ents, sizeof(*ents), held, f) != held) {
		jr_fail(e, -EINVAL,
			"%s: header says %llu entries kept, file holds fewer",
			path, (unsigned long long)held);
		return jr_journal_bad(f, ents);
	}
	for (s = h.first; s < h.entries; s++) {
		const struct jr_journal_entry *x = &ents[s & (h.capacity - 1)];

		if (x->seq != s ||
		    (input && x->payload != input[s % nr_input])) {
			jr_fail(e, -EINVAL,
				"%s: entry of message %llu holds %llu", path,
				(unsigned long long)s,
				(unsigned long long)x->seq);
			return jr_journal_bad(f, ents);
		}
		sum = jr_journal_mix(sum, x->payload);
	}
	fclose(f);
	free(ents);
	if (sum != h.kept_checksum || (!h.first && sum != h.checksum)) {
		jr_fail(e, -EINVAL, "%s: checksum %016llx, header %016llx",
			path, (unsigned long long)sum,
			(unsigned long long)h.kept_checksum);
		return -EINVAL;
	}
	out->entries = h.entries;
	out->kept = h.entries - h.first;
	out->capacity = h.capacity;
	out->checksum = h.checksum;
	return 0;
}
