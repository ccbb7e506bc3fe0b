// SPDX-License-Identifier: GPL-2.0
/*
 * jr_usamp.c - the userspace sampler thread.
 *
 * The gap loop is the kernel sampler's, less what userspace cannot see:
 * read the TSC, compare the delta with the threshold, log it when it is
 * over.  Interrupts stay enabled, as they must for a user thread, and what
 * stole the time is found later by lining the logged gaps up with the BPF
 * records (jr_ubpf.c).  Everything the loop touches is allocated and
 * faulted in before it starts, so the loop makes no syscall and takes no
 * page fault of its own.
 *
 * The work modes follow Codethink's latency study: stamp, do one unit of
 * work, stamp.  Every unit's duration goes into a histogram, and a unit
 * that is over the threshold is logged as a gap like any other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/jr_mem.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"
#include "usamp/jr_usamp.h"

#define JR_STOP_POLL_MASK 1023
#define JR_WALK_BYTES (4u << 20) /* past L2 on most parts */
#define JR_WALK_STRIDE 4160 /* 65 lines: defeats the next-line prefetcher */
#define JR_ARITH_ROUNDS 64

const char *const jr_work_names[JR_WORK_NR] = {
	"none", "usleep", "nanosleep", "memwalk", "arith", "kill", "gettime",
};

/* jr_log_gap - queue one gap for the reader; a full queue counts it. */
static void jr_log_gap(struct jr_usamp *u, uint64_t tsc, uint64_t cyc)
{
	uint64_t n = u->nr_gaps;

	u->noise_cyc += cyc;
	if (cyc > u->max_cyc)
		u->max_cyc = cyc;
	if (n - __atomic_load_n(&u->gaps_read, __ATOMIC_ACQUIRE) ==
	    u->cap_gaps) {
		u->dropped++;
		return;
	}
	u->gaps[n % u->cap_gaps].tsc = tsc;
	u->gaps[n % u->cap_gaps].cyc = cyc;
	__atomic_store_n(&u->nr_gaps, n + 1, __ATOMIC_RELEASE);
}

/* few tries: a pair inside the loop is time the loop does not see */
#define JR_LOOP_PAIR_TRIES 4

/* jr_put_pair - publish one TSC/monotonic pair read with tries tries. */
static void jr_put_pair(struct jr_usamp *u, int tries)
{
	uint64_t n = u->nr_pairs;

	jr_tsc_pair_n(&u->pairs[n % JR_PAIRS], tries);
	__atomic_store_n(&u->nr_pairs, n + 1, __ATOMIC_RELEASE);
}

/*
 * jr_loop_pair - a pair from inside the loop, when one is due; returns
 * the TSC to measure on from.  The time the pair took is not a gap: it is
 * the tool's own, kept in blind_cyc and reported.
 */
static uint64_t jr_loop_pair(struct jr_usamp *u, uint64_t t)
{
	uint64_t after;

	if (t < u->next_pair)
		return t;
	jr_put_pair(u, JR_LOOP_PAIR_TRIES);
	after = jr_rdtsc();
	u->blind_cyc += after - t;
	u->next_pair = after + u->pair_cyc;
	return after;
}

/* jr_gap_loop - the bare loop: one TSC read and two compares per turn. */
static void jr_gap_loop(struct jr_usamp *u)
{
	uint64_t prev = jr_rdtsc(), t, d, min = UINT64_MAX, iters = 0;
	uint64_t end = prev + u->run_cyc;

	if (end < prev)
		end = UINT64_MAX; /* a run of years */
	u->start_tsc = prev;
	for (;;) {
		t = jr_rdtsc();
		d = t - prev;
		if (d < min)
			min = d;
		if (__builtin_expect(d >= u->thr_cyc, 0))
			jr_log_gap(u, prev, d);
		prev = t;
		if (__builtin_expect(!(++iters & JR_STOP_POLL_MASK), 0)) {
			if (t >= end || u->stop->sig || u->halt)
				break;
			prev = jr_loop_pair(u, t);
		}
	}
	u->end_tsc = t;
	u->iters = iters;
	u->min_cyc = min;
}

static uint64_t jr_arith(uint64_t x)
{
	int i;

	for (i = 0; i < JR_ARITH_ROUNDS; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* jr_do_work - one unit of the chosen work; its result defeats the optimizer. */
static uint64_t jr_do_work(struct jr_usamp *u, uint64_t *pos)
{
	struct timespec ts = { 0, 1000 };

	switch (u->work) {
	case JR_WORK_USLEEP:
		return usleep(1);
	case JR_WORK_NANOSLEEP:
		return clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	case JR_WORK_MEMWALK:
		*pos = (*pos + JR_WALK_STRIDE) % JR_WALK_BYTES;
		return u->walk[*pos]++;
	case JR_WORK_ARITH:
		return jr_arith(*pos += 1);
	case JR_WORK_KILL:
		return kill(0, 0);
	case JR_WORK_GETTIME:
		return clock_gettime(CLOCK_MONOTONIC, &ts);
	default:
		return 0;
	}
}

/* jr_work_loop - stamp, work, stamp; every unit is timed. */
static void jr_work_loop(struct jr_usamp *u)
{
	uint64_t t0, t1, d, min = UINT64_MAX, iters = 0, pos = 0, sink = 0;
	uint64_t end;

	u->start_tsc = jr_rdtsc();
	end = u->start_tsc + u->run_cyc;
	if (end < u->start_tsc)
		end = UINT64_MAX;
	do {
		t0 = jr_rdtsc();
		sink += jr_do_work(u, &pos);
		t1 = jr_rdtsc();
		d = t1 - t0;
		if (d < min)
			min = d;
		jr_hist_record(&u->work_hist, (uint64_t)(d * u->ns_per_cyc));
		if (d >= u->thr_cyc)
			jr_log_gap(u, t0, d);
		iters++;
		jr_loop_pair(u, t1);
	} while (t1 < end && !u->stop->sig && !u->halt);
	u->end_tsc = t1;
	u->iters = iters;
	u->min_cyc = min;
	__asm__ volatile("" : : "r"(sink)); /* keep the work's result live */
}

/*
 * jr_warmup - spin, recording nothing, for warm_cyc: a phase that starts
 * after a sleep starts on a CPU that has just woken (serve's duty cycle),
 * and that wake-up is the duty cycle's cost, not the CPU's noise.  It
 * spins as jr_gap_loop() does, without a pause, which would give an SMT
 * sibling the core in a state the sampling never runs in.
 */
static void jr_warmup(struct jr_usamp *u)
{
	uint64_t t0 = jr_rdtsc();

	while (jr_rdtsc() - t0 < u->warm_cyc && !u->stop->sig && !u->halt)
		;
}

/*
 * jr_usamp_main - the thread: pin, wait for go, warm up, then sample from
 * the first clock pair to the last.  Its own counters (jr_ucount.c) are
 * read just outside the pairs, so they cover the sampling and add a
 * syscall on each side of it, not inside.
 */
static void *jr_usamp_main(void *arg)
{
	struct jr_usamp *u = arg;
	struct jr_ucount c0, c1;
	int fd = -1;

	u->err = jr_pin_self("jr-samp", u->cpu, u->fifo_prio);
	u->tid = (pid_t)syscall(SYS_gettid);
	if (u->err)
		goto done;
	fd = jr_ucount_open();
	while (!u->go && !u->stop->sig && !u->halt)
		__builtin_ia32_pause();
	if (u->stop->sig || u->halt)
		goto done;
	jr_warmup(u);
	jr_ucount_read(&c0, fd);
	jr_put_pair(u, JR_PAIR_TRIES);
	u->next_pair = jr_rdtsc() + u->pair_cyc;
	if (u->work == JR_WORK_NONE)
		jr_gap_loop(u);
	else
		jr_work_loop(u);
	jr_put_pair(u, JR_PAIR_TRIES);
	jr_ucount_read(&c1, fd);
	jr_ucount_since(&u->count, &c0, &c1);
done:
	if (fd >= 0)
		close(fd);
	__atomic_store_n(&u->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* jr_usamp_start - allocate and fault in, then start the pinned thread. */
int jr_usamp_start(struct jr_usamp *u)
{
	int ret;

	u->gaps = jr_mem_alloc(u->cap_gaps * sizeof(*u->gaps));
	if (!u->gaps)
		return -ENOMEM;
	u->resident_pct =
		jr_mem_resident_pct(u->gaps, u->cap_gaps * sizeof(*u->gaps));
	if (u->work == JR_WORK_MEMWALK) {
		u->walk = jr_mem_alloc(JR_WALK_BYTES);
		if (!u->walk)
			return -ENOMEM;
		memset(u->walk, 1, JR_WALK_BYTES);
	}
	jr_hist_init(&u->work_hist, 3);
	if (jr_hist_alloc(&u->work_hist))
		return -ENOMEM;
	u->tid = 0;
	u->go = 0;
	u->halt = 0;
	u->done = 0;
	u->nr_gaps = u->gaps_read = u->nr_pairs = 0;
	u->pair_cyc = (uint64_t)(JR_PAIR_MS * 1e6 / u->ns_per_cyc);
	ret = pthread_create(&u->th, NULL, jr_usamp_main, u);
	if (ret)
		return -ret;
	while (!u->tid)
		sched_yield();
	return u->err;
}

void jr_usamp_go(struct jr_usamp *u)
{
	__atomic_store_n(&u->go, 1, __ATOMIC_RELEASE);
}

int jr_usamp_join(struct jr_usamp *u)
{
	pthread_join(u->th, NULL);
	return u->err;
}

void jr_usamp_free(struct jr_usamp *u)
{
	jr_mem_free(u->gaps, u->cap_gaps * sizeof(*u->gaps));
	jr_mem_free(u->walk, JR_WALK_BYTES);
	jr_hist_free(&u->work_hist);
	u->gaps = NULL;
	u->walk = NULL;
}
