// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_step - step one CPU's TSC backwards, for tsc_back.py.
 *
 *   tsc_step CPU CYCLES
 *
 * Pinned to CPU, it reads the TSC, writes IA32_TSC through /dev/cpu/CPU/msr
 * to that value less CYCLES, and reads the TSC again.  It prints both reads
 * and exits 0 if the TSC went backwards, 4 if the write had no effect (as
 * under QEMU's TCG, which ignores guest writes to the TSC), 1 on an error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

#define MSR_IA32_TSC 0x10

int main(int argc, char **argv)
{
	uint64_t before, after, want;
	char path[64];
	cpu_set_t set;
	int cpu, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: tsc_step CPU CYCLES\n");
		return 1;
	}
	cpu = atoi(argv[1]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("tsc_step: sched_setaffinity");
		return 1;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	before = __rdtsc();
	want = before - strtoull(argv[2], NULL, 0);
	if (pwrite(fd, &want, sizeof(want), MSR_IA32_TSC) != sizeof(want)) {
		perror("tsc_step: write IA32_TSC");
		close(fd);
		return 1;
	}
	after = __rdtsc();
	close(fd);
	printf("%llu %llu\n", (unsigned long long)before,
	       (unsigned long long)after);
	return after < before ? 0 : 4;
}
