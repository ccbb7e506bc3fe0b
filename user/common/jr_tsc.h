/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_tsc.h - the TSC in userspace: reading it, its rate, and the mapping
 * from TSC cycles to CLOCK_MONOTONIC ns that lines user gaps up with the
 * BPF records (bpf_ktime_get_ns() is CLOCK_MONOTONIC).
 */
#ifndef JR_TSC_H
#define JR_TSC_H

#include <stdint.h>
#include <x86intrin.h>

static inline uint64_t jr_rdtsc(void)
{
	return __rdtsc();
}

/*
 * jr_rdtsc_after_loads - the TSC read only once every earlier load has
 * completed (Intel SDM, RDTSC: LFENCE before it).  A consumer stamping a
 * message it just saw needs this; a plain RDTSC may run before the load
 * that saw the message, and the transit then reads as 0.
 */
static inline uint64_t jr_rdtsc_after_loads(void)
{
	_mm_lfence();
	return __rdtsc();
}

/* struct jr_tsc_pair - a TSC value and the monotonic ns read beside it. */
struct jr_tsc_pair {
	uint64_t tsc;
	uint64_t mono_ns;
	uint64_t window_cyc; /* TSC cycles the clock_gettime() took */
};

/* struct jr_tsc_map - mono_ns = mono0 + (tsc - tsc0) * ns_per_cyc */
struct jr_tsc_map {
	uint64_t tsc0;
	uint64_t mono0;
	double ns_per_cyc;
	double err_ns; /* half the widest pair window: the bound on error */
};

uint64_t jr_mono_ns(void);
#define JR_PAIR_TRIES 64

void jr_tsc_pair(struct jr_tsc_pair *p);
void jr_tsc_pair_n(struct jr_tsc_pair *p, int tries);
void jr_tsc_fit(struct jr_tsc_map *m, const struct jr_tsc_pair *a,
		const struct jr_tsc_pair *b);
int64_t jr_tsc_to_mono(const struct jr_tsc_map *m, uint64_t tsc);
uint64_t jr_tsc_khz(void);
uint64_t jr_ns_to_cyc(uint64_t ns, uint64_t khz);

#endif /* JR_TSC_H */
