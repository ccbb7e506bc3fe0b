// SPDX-License-Identifier: GPL-2.0
/*
 * handoff.c - the hardware floor under jitread's pipeline, for make
 * bench-user: how long one cache line takes from a thread on CPU A to a
 * thread on CPU B (a round trip halved, timed on A alone, so no offset
 * between the CPUs' TSCs enters), and what the pipeline's own steps cost
 * on A: a plain TSC read (the producer's stamp), an LFENCE and TSC read
 * (the consumer's), and one PAUSE (a spinning poll's step).
 *
 * usage: handoff CPU_A CPU_B
 * Prints one JSON object, every figure in TSC cycles.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#define ROUNDS 200000
#define COST_LOOPS 1000000

static volatile uint64_t line __attribute__((aligned(64)));
static uint64_t trip[ROUNDS];

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		perror("pthread_setaffinity_np");
		exit(2);
	}
}

static void *echo(void *arg)
{
	uint64_t i;

	pin(*(int *)arg);
	for (i = 1; i <= ROUNDS; i++) {
		while (line != 2 * i - 1)
			_mm_pause();
		line = 2 * i;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* one_way - the round trips, halved, sorted */
static void one_way(int b)
{
	uint64_t i, t0;
	unsigned int aux;
	pthread_t th;

	if (pthread_create(&th, NULL, echo, &b))
		exit(2);
	for (i = 1; i <= ROUNDS; i++) {
		t0 = __rdtscp(&aux);
		line = 2 * i - 1;
		while (line != 2 * i)
			_mm_pause();
		trip[i - 1] = (__rdtscp(&aux) - t0) / 2;
	}
	pthread_join(th, NULL);
	qsort(trip, ROUNDS, sizeof(trip[0]), cmp_u64);
}

/*
 * cost - cycles per step of a loop of COST_LOOPS steps, the best of 5:
 * 0 a plain TSC read, 1 LFENCE then a TSC read, 2 a PAUSE.
 */
static double cost(int what)
{
	uint64_t t0, t1, i, sink = 0, best = UINT64_MAX;
	int r;

	for (r = 0; r < 5; r++) {
		t0 = __rdtsc();
		for (i = 0; i < COST_LOOPS; i++) {
			if (what == 2) {
				_mm_pause();
				continue;
			}
			if (what == 1)
				_mm_lfence();
			sink += __rdtsc();
		}
		t1 = __rdtsc();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	__asm__ volatile("" : : "r"(sink));
	return (double)best / COST_LOOPS;
}

static uint64_t pct(double p)
{
	return trip[(size_t)(p / 100.0 * (ROUNDS - 1))];
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	pin(atoi(argv[1]));
	one_way(atoi(argv[2]));
	printf("{\"one_way_cyc\": {\"min\": %llu, \"50\": %llu, \"99\": %llu, "
	       "\"99.99\": %llu, \"max\": %llu}, \"rdtsc_cyc\": %.2f, "
	       "\"lfence_rdtsc_cyc\": %.2f, \"pause_cyc\": %.2f}\n",
	       (unsigned long long)trip[0], (unsigned long long)pct(50),
	       (unsigned long long)pct(99), (unsigned long long)pct(99.99),
	       (unsigned long long)trip[ROUNDS - 1], cost(0), cost(1), cost(2));
	return 0;
}
