// SPDX-License-Identifier: GPL-2.0
/*
 * jr_tsc.c - TSC rate and TSC-to-CLOCK_MONOTONIC alignment.
 *
 * The alignment is two-point: a pair is read at the start of a phase and
 * one at its end, and the line through them maps every TSC stamp taken in
 * between.  A pair is the best of many tries: the TSC is read on both
 * sides of clock_gettime() and the try with the narrowest window wins, its
 * TSC taken as the window's middle.  The error of a mapped stamp is then at
 * most half a window plus the clock's slew over the phase; NTP slews
 * CLOCK_MONOTONIC by at most 500 ppm, and the line absorbs a constant one.
 */
#include <time.h>

#include "common/jr_tsc.h"

uint64_t jr_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* jr_tsc_pair_n - the best pair of tries. */
void jr_tsc_pair_n(struct jr_tsc_pair *p, int tries)
{
	uint64_t t0, t1, ns;
	int i;

	p->window_cyc = UINT64_MAX;
	p->tsc = 0;
	p->mono_ns = 0;
	for (i = 0; i < tries || !p->mono_ns; i++) {
		t0 = jr_rdtsc();
		ns = jr_mono_ns();
		t1 = jr_rdtsc();
		if (t1 - t0 < p->window_cyc) {
			p->window_cyc = t1 - t0;
			p->tsc = t0 + (t1 - t0) / 2;
			p->mono_ns = ns;
		}
	}
}

void jr_tsc_pair(struct jr_tsc_pair *p)
{
	jr_tsc_pair_n(p, JR_PAIR_TRIES);
}

void jr_tsc_fit(struct jr_tsc_map *m, const struct jr_tsc_pair *a,
		const struct jr_tsc_pair *b)
{
	uint64_t w = a->window_cyc > b->window_cyc ? a->window_cyc :
						     b->window_cyc;

	m->tsc0 = a->tsc;
	m->mono0 = a->mono_ns;
	m->ns_per_cyc = b->tsc > a->tsc ? (double)(b->mono_ns - a->mono_ns) /
						  (double)(b->tsc - a->tsc) :
					  1.0;
	m->err_ns = w * m->ns_per_cyc / 2;
}

int64_t jr_tsc_to_mono(const struct jr_tsc_map *m, uint64_t tsc)
{
	return (int64_t)m->mono0 +
	       (int64_t)((double)(int64_t)(tsc - m->tsc0) * m->ns_per_cyc);
}

/* jr_tsc_khz - the TSC rate, measured against CLOCK_MONOTONIC over 50 ms. */
uint64_t jr_tsc_khz(void)
{
	struct jr_tsc_pair a, b;
	struct timespec d = { 0, 50000000 };

	jr_tsc_pair(&a);
	nanosleep(&d, NULL);
	jr_tsc_pair(&b);
	if (b.mono_ns <= a.mono_ns)
		return 0;
	return (b.tsc - a.tsc) * 1000000ULL / (b.mono_ns - a.mono_ns);
}

/*
 * jr_ns_to_cyc - TSC cycles in ns at khz, without the overflow of
 * ns * khz, which passes 2^64 after about 2 hours at 2.3 GHz;
 * saturates at UINT64_MAX.
 */
uint64_t jr_ns_to_cyc(uint64_t ns, uint64_t khz)
{
	unsigned __int128 c = (unsigned __int128)ns * khz / 1000000;

	return c > UINT64_MAX ? UINT64_MAX : (uint64_t)c;
}
