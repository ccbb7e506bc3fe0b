// SPDX-License-Identifier: GPL-2.0
/*
 * jr_fwq.c - the fixed-work-quantum workload of jitread survey.
 *
 * The calling thread is pinned to the CPU and does the work itself.  Each
 * quantum is timed with CLOCK_MONOTONIC; a quantum longer than the
 * shortest by at least the threshold is a gap of that excess, so the
 * model holds what noise cost the work: the report's noise is the sum of
 * the excesses, its runtime the time of all quanta.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_err.h"
#include "common/jr_tsc.h"
#include "core/jr_survey.h"
#include "fleet/jr_fwq.h"

/* jr_work - n units of dependent arithmetic the compiler must keep */
static void jr_work(uint64_t n)
{
	volatile uint64_t x = 1;
	uint64_t i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

/*
 * jr_calibrate - units in a quantum: n doubled until n units take 100 us
 * or more, then the fastest of ten runs of n scaled to the quantum
 */
static uint64_t jr_calibrate(uint64_t quantum_ns)
{
	uint64_t n = 1000, best = UINT64_MAX, t;
	int i;

	for (;;) {
		t = jr_mono_ns();
		jr_work(n);
		if (jr_mono_ns() - t >= 100000 || n >= 1ULL << 40)
			break;
		n *= 2;
	}
	for (i = 0; i < 10; i++) {
		t = jr_mono_ns();
		jr_work(n);
		t = jr_mono_ns() - t;
		if (t < best)
			best = t;
	}
	return (uint64_t)((double)n * quantum_ns / (best ? best : 1)) + 1;
}

static int jr_fwq_model(struct jr_fwq *f, const uint64_t *start,
			const uint64_t *dur, int cpu, uint64_t threshold_ns,
			struct jr_model *m)
{
	struct jr_rec r = { .type = JR_GAP,
			    .cpu = cpu,
			    .cls = JIT_NOISE_HW_UNKNOWN };
	uint64_t i, run = 0, noise = 0, max = 0, x;
	int ret;

	for (i = 0; i < f->quanta; i++) {
		run += dur[i];
		x = dur[i] - f->min_ns;
		if (x < threshold_ns)
			continue;
		r.ts_ns = start[i];
		r.v[0] = x;
		noise += x;
		if (x > max)
			max = x;
		ret = jr_model_add(m, &r);
		if (ret)
			return ret;
	}
	memset(&r, 0, sizeof(r));
	r.type = JR_SUMMARY;
	r.cpu = cpu;
	r.v[0] = run;
	r.v[1] = noise;
	r.v[2] = max;
	r.v[3] = f->quanta;
	return jr_model_add(m, &r);
}

int jr_fwq_run(struct jr_fwq *f, uint64_t duration_ns, int cpu,
	       jr_fwq_barrier_fn barrier, void *ctx, uint64_t threshold_ns,
	       struct jr_model *m)
{
	uint64_t n = duration_ns / f->quantum_ns, i, t0, end, *start, *dur;
	bool barriers = true;
	cpu_set_t set;
	int ret;

	if (n > JR_SURVEY_MAX_QUANTA)
		n = JR_SURVEY_MAX_QUANTA;
	n = (n + f->every - 1) / f->every * f->every;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	start = calloc(n, sizeof(*start));
	dur = calloc(n, sizeof(*dur));
	f->win_ns = calloc(n / f->every, sizeof(*f->win_ns));
	if (!start || !dur || !f->win_ns) {
		ret = -ENOMEM;
		goto out;
	}
	f->iters = jr_calibrate(f->quantum_ns);
	f->min_ns = UINT64_MAX;
	for (i = 0; i < n && !jr_run_stop.sig; i++) {
		t0 = jr_mono_ns();
		jr_work(f->iters);
		end = jr_mono_ns();
		start[i] = t0;
		dur[i] = end - t0;
		if (dur[i] < f->min_ns)
			f->min_ns = dur[i];
		f->win_ns[i / f->every] += dur[i];
		if ((i + 1) % f->every)
			continue;
		f->nr_win++;
		if (barriers && barrier(ctx))
			barriers = false; /* a rank is gone: go on alone */
	}
	f->quanta = i;
	ret = i ? jr_fwq_model(f, start, dur, cpu, threshold_ns, m) : 0;
out:
	free(start);
	free(dur);
	return ret;
}

void jr_fwq_free(struct jr_fwq *f)
{
	free(f->win_ns);
	f->win_ns = NULL;
}
