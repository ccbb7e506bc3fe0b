// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong.c - the floor of a hand-off between two CPUs: one cache line
 * bounced between a thread on each, timed with the TSC on one side only
 * (so no offset between the CPUs' TSCs enters).  Prints the smallest
 * round trip over ROUNDS, halved, in TSC cycles.
 *
 * usage: pingpong CPU_A CPU_B
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#define ROUNDS 200000

static volatile uint64_t line __attribute__((aligned(64)));

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

int main(int argc, char **argv)
{
	uint64_t i, t0, t1, best = UINT64_MAX;
	unsigned int aux;
	pthread_t th;
	int b;

	if (argc != 3)
		return 2;
	b = atoi(argv[2]);
	pin(atoi(argv[1]));
	if (pthread_create(&th, NULL, echo, &b))
		return 2;
	for (i = 1; i <= ROUNDS; i++) {
		t0 = __rdtscp(&aux);
		line = 2 * i - 1;
		while (line != 2 * i)
			_mm_pause();
		t1 = __rdtscp(&aux);
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	pthread_join(th, NULL);
	printf("%llu\n", (unsigned long long)(best / 2));
	return 0;
}
