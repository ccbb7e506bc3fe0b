// SPDX-License-Identifier: GPL-2.0
/*
 * jr_spool.c - a merge's set-aside bytes in a nameless temporary file
 * (see jr_spool.h).  Every call is 0 or a negative errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include "common/jr_spool.h"

int jr_spool_open(struct jr_spool *sp)
{
	sp->end = 0;
	sp->f = tmpfile();
	return sp->f ? 0 : -errno;
}

void jr_spool_close(struct jr_spool *sp)
{
	if (sp->f)
		fclose(sp->f);
	sp->f = NULL;
}

/* jr_spool_io - all len bytes at at, written or read; 0 or -errno */
static int jr_spool_io(const struct jr_spool *sp, bool put, uint64_t at,
		       void *buf, size_t len)
{
	char *p = buf;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = put ? pwrite(fileno(sp->f), p + done, len - done,
				 (off_t)(at + done)) :
			  pread(fileno(sp->f), p + done, len - done,
				(off_t)(at + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* jr_spool_put - len bytes at the spool's end; *at: where they went */
int jr_spool_put(struct jr_spool *sp, const void *buf, size_t len, uint64_t *at)
{
	int ret;

	if (!sp->f)
		return -EBADF;
	ret = jr_spool_io(sp, true, sp->end, (void *)buf, len);
	if (ret)
		return ret;
	*at = sp->end;
	sp->end += len;
	return 0;
}

/* jr_spool_get - len bytes put earlier at at */
int jr_spool_get(const struct jr_spool *sp, uint64_t at, void *buf, size_t len)
{
	if (!sp->f || at > sp->end || len > sp->end - at)
		return -EINVAL;
	return jr_spool_io(sp, false, at, buf, len);
}
