// SPDX-License-Identifier: GPL-2.0
/*
 * poll_test.c - the live reader's sleeps between polls (kernel/jr_poll.c):
 * bounded by 10 and 100 ms, short enough that a burst from quiet or the
 * rate just seen fills only part of a buffer, and a rate that rises at
 * once and falls by halves.
 */
#include <stdio.h>

#include "kernel/jr_poll.h"
#include "jr_check.h"

#define KB 1024ULL
#define MS 1000000ULL

int main(void)
{
	uint64_t r;

	/* quiet, default 8 MB buffer: the longest sleep */
	CHECK(jr_poll_sleep_ns(8192 * KB, 0) == 100 * MS);
	/* quiet, 64 KB: half of it at 1 MB/s */
	CHECK(jr_poll_sleep_ns(64 * KB, 0) == 31250000ULL);
	/* 80 KB/s into 8 MB (a thousand events a second): still 100 ms */
	CHECK(jr_poll_sleep_ns(8192 * KB, 80 * KB) == 100 * MS);
	/* 40 MB/s into 8 MB: an eighth of it, 25 ms */
	CHECK(jr_poll_sleep_ns(8192 * KB, 40960 * KB) == 25 * MS);
	/* a flood into 64 KB: never under 10 ms */
	CHECK(jr_poll_sleep_ns(64 * KB, 1024 * KB) == 10 * MS);
	/* a tiny buffer, quiet: 10 ms */
	CHECK(jr_poll_sleep_ns(4 * KB, 0) == 10 * MS);

	/* 100 KB in 100 ms is 1000 KB/s, taken at once */
	r = jr_poll_rate(0, 100 * KB, 100 * MS);
	CHECK(r == 1024000);
	/* a quiet interval halves it, and no more */
	CHECK(jr_poll_rate(r, 0, 100 * MS) == r / 2);
	/* a higher rate replaces it */
	CHECK(jr_poll_rate(r, 1000 * KB, 100 * MS) == 10240000);
	/* no time passed: unchanged */
	CHECK(jr_poll_rate(r, 5 * KB, 0) == r);
	/* no overflow on a huge count */
	CHECK(jr_poll_rate(0, UINT64_MAX / 2, MS) > 0);

	if (!failed)
		printf("ok\n");
	return failed;
}
