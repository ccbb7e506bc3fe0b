// SPDX-License-Identifier: GPL-2.0
/*
 * spin.c - the application make bench-user attaches jitread to: pinned to
 * CPU, it waits for a line on stdin, then spins for SECS seconds counting
 * the turns of a loop, and prints the turns and the time they took.  The
 * loop reads the clock once every 4096 turns, so its rate is the CPU's
 * time left to it, whatever else took some.  It then waits for a second
 * line (or the end of stdin) before it exits, so that the bench reads
 * the watcher's figures while the watcher still runs.
 *
 * usage: spin CPU SECS
 * Prints one JSON object: {"turns": N, "ns": T}.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t turns = 0, start, end, t;
	cpu_set_t set;
	char line[16];

	if (argc != 3) {
		fprintf(stderr, "usage: spin CPU SECS\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	start = now_ns();
	end = start + (uint64_t)(atof(argv[2]) * 1e9);
	do {
		for (int i = 0; i < 4096; i++) {
			turns++;
			__asm__ volatile("" : : : "memory");
		}
		t = now_ns();
	} while (t < end);
	printf("{\"turns\": %llu, \"ns\": %llu}\n", (unsigned long long)turns,
	       (unsigned long long)(t - start));
	fflush(stdout);
	/* the second line or the end of stdin: either ends the run */
	if (!fgets(line, sizeof(line), stdin) && ferror(stdin))
		return 1;
	return 0;
}
