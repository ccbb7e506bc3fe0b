// SPDX-License-Identifier: GPL-2.0
/*
 * jr_pipe.c - the three-thread pipeline, in the manner of the LMAX
 * Disruptor: one producer, two consumers, one ring.
 *
 * The ring holds cache-line slots and every sequence sits on a line of its
 * own, so the producer's cursor and each consumer's progress never share a
 * line.  Sequences are counts: the producer may write message n once both
 * consumers have consumed n - ring_size + 1 messages, and publishes it with
 * a release store of n + 1; a consumer reads up to the cursor with an
 * acquire load.  There is no lock and, with the busy-spin strategy, no
 * syscall between the first message and the last.
 *
 * Nothing may be lost: the producer, both consumers and the journal each
 * keep a count and an order-dependent checksum of the payloads, and the
 * journal is read back from the file and checked against them at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "usamp/jr_pipe.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"

#define JR_LINE 64
#define JR_INPUT_MESSAGES 65536
#define JR_SLEEP_NS 10000
#define JR_WARM (1ULL << 63) /* slot flag: published during the warm-up */

const char *const jr_wait_names[JR_WAIT_NR] = { "spin", "yield", "sleep" };
const char *const jr_pipe_thread_names[JR_NR_PT] = { "producer", "accumulator",
						     "journaller" };
const char *const jr_pipe_hist_names[JR_PH_NR] = {
	"accumulator transit",
	"accumulator inter-message",
	"journaller transit",
	"journaller inter-message",
};
const char *const jr_pipe_step_names[JR_STEP_NR] = { "publish", "poll",
						     "stamp" };

struct jr_seq {
	volatile uint64_t v;
} __attribute__((aligned(JR_LINE)));

struct jr_slot {
	uint64_t seq;
	uint64_t tsc; /* stamped just before publication */
	uint64_t payload;
	uint64_t flags;
} __attribute__((aligned(JR_LINE)));

struct jr_pipe {
	struct jr_seq cursor; /* messages published */
	struct jr_seq done; /* 1: the producer published its last */
	struct jr_seq consumed[2];
	struct jr_seq go;
	struct jr_seq abort; /* 1: a thread could not start; stop */
	struct jr_slot *slots;
	uint64_t mask;
	const struct jr_pipe_cfg *cfg;
	struct jr_pipe_result *res;
	const uint64_t *input;
	uint64_t nr_input;
	double ns_per_cyc;
	struct jr_journal journal;
	int err[JR_NR_PT];
};

/*
 * jr_wait_parse - --wait: auto, one strategy for every thread, or three,
 * comma-separated, for the producer, the accumulator and the journaller.
 */
int jr_wait_parse(const char *arg, enum jr_wait *wait)
{
	const char *p = arg;
	size_t len;
	int i, k, n = 0;

	if (!strcmp(arg, "auto")) {
		for (i = 0; i < JR_NR_PT; i++)
			wait[i] = JR_WAIT_AUTO;
		return 0;
	}
	for (;;) {
		len = strcspn(p, ",");
		for (k = 0; k < JR_WAIT_NR; k++)
			if (strlen(jr_wait_names[k]) == len &&
			    !strncmp(p, jr_wait_names[k], len))
				break;
		if (k == JR_WAIT_NR || n == JR_NR_PT)
			return -EINVAL;
		wait[n++] = k;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (n != 1 && n != JR_NR_PT)
		return -EINVAL;
	for (i = n; i < JR_NR_PT; i++)
		wait[i] = wait[0];
	return 0;
}

/* jr_wait_desc - "spin" when every thread waits alike, else "P,A,J" */
const char *jr_wait_desc(const struct jr_pipe_cfg *cfg, char *buf, size_t len)
{
	if (cfg->wait[0] == cfg->wait[1] && cfg->wait[1] == cfg->wait[2])
		snprintf(buf, len, "%s", jr_wait_names[cfg->wait[0]]);
	else
		snprintf(buf, len, "%s,%s,%s", jr_wait_names[cfg->wait[0]],
			 jr_wait_names[cfg->wait[1]],
			 jr_wait_names[cfg->wait[2]]);
	return buf;
}

/*
 * jr_pipe_place - the first three CPUs of cpus, one per thread in order,
 * round again when fewer (2 CPUs: the accumulator has the second alone),
 * and each thread's wait: as asked, or for auto, spin on a CPU of its
 * own and yield on one it shares.  A thread asked to spin on a CPU that
 * another thread shares would starve it, and is refused.
 */
int jr_pipe_place(const unsigned char *cpus, const enum jr_wait *wait,
		  struct jr_pipe_cfg *cfg, struct jr_err *e)
{
	int list[JR_NR_PT], n = 0, cpu, i, j;
	bool alone;

	for (cpu = 0; cpu < 4096 && n < JR_NR_PT; cpu++)
		if (cpus[cpu])
			list[n++] = cpu;
	if (!n) {
		jr_fail(e, -EINVAL, "the pipeline needs at least one CPU");
		return -EINVAL;
	}
	for (i = 0; i < JR_NR_PT; i++)
		cfg->cpu[i] = list[i % n];
	cfg->shared = n < JR_NR_PT;
	for (i = 0; i < JR_NR_PT; i++) {
		for (j = 0, alone = true; j < JR_NR_PT; j++)
			alone &= j == i || cfg->cpu[j] != cfg->cpu[i];
		cfg->wait[i] = wait[i] != JR_WAIT_AUTO ? wait[i] :
			       alone		       ? JR_WAIT_SPIN :
							 JR_WAIT_YIELD;
		if (cfg->wait[i] == JR_WAIT_SPIN && !alone) {
			jr_fail(e, -EINVAL,
				"the %s would spin on CPU %d, which another pipeline thread shares: give it --wait yield or sleep, or give 3 CPUs",
				jr_pipe_thread_names[i], cfg->cpu[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static void jr_wait_once(enum jr_wait w)
{
	struct timespec ts = { 0, JR_SLEEP_NS };

	if (w == JR_WAIT_SPIN)
		__builtin_ia32_pause();
	else if (w == JR_WAIT_YIELD)
		sched_yield();
	else
		nanosleep(&ts, NULL);
}

static uint64_t jr_load(const struct jr_seq *s)
{
	return __atomic_load_n(&s->v, __ATOMIC_ACQUIRE);
}

/* jr_pipe_stopped - the run was stopped, or the pipeline aborted */
static bool jr_pipe_stopped(const struct jr_pipe *p)
{
	return p->cfg->stop->sig || jr_load(&p->abort);
}

static void jr_store(struct jr_seq *s, uint64_t v)
{
	__atomic_store_n(&s->v, v, __ATOMIC_RELEASE);
}

static void *jr_producer(void *arg)
{
	struct jr_pipe *p = arg;
	const struct jr_pipe_cfg *cfg = p->cfg;
	uint64_t khz = cfg->tsc_khz;
	uint64_t interval = jr_ns_to_cyc(cfg->interval_ns, khz) + 1;
	uint64_t warm_end, end, next, n = 0, sum = 0, low, now;
	uint64_t size = p->mask + 1;
	struct jr_slot *s;

	p->err[JR_PRODUCER] =
		jr_pin_self("jr-prod", cfg->cpu[JR_PRODUCER], cfg->fifo_prio);
	while (!jr_load(&p->go))
		jr_wait_once(cfg->wait[JR_PRODUCER]);
	if (p->err[JR_PRODUCER])
		goto out;
	next = jr_rdtsc();
	warm_end = next + jr_ns_to_cyc(cfg->warmup_ns, khz);
	end = warm_end + jr_ns_to_cyc(cfg->duration_ns, khz);
	if (end < warm_end)
		end = UINT64_MAX;
	for (;;) {
		now = jr_rdtsc();
		if (now >= end || jr_pipe_stopped(p))
			break;
		if (now < next) {
			jr_wait_once(cfg->wait[JR_PRODUCER]);
			continue;
		}
		/* fell far behind (a long gap): do not burst to catch up */
		next = now - next > 64 * interval ? now + interval :
						    next + interval;
		for (;;) {
			low = jr_load(&p->consumed[0]);
			if (jr_load(&p->consumed[1]) < low)
				low = jr_load(&p->consumed[1]);
			if (n - low < size)
				break;
			if (jr_pipe_stopped(p))
				goto out;
			jr_wait_once(cfg->wait[JR_PRODUCER]);
		}
		s = &p->slots[n & p->mask];
		s->seq = n;
		s->payload = p->input[n % p->nr_input];
		s->flags = now < warm_end ? JR_WARM : 0;
		sum = jr_journal_mix(sum, s->payload);
		if (s->flags)
			p->res->warmup++;
		s->tsc = jr_rdtsc();
		jr_store(&p->cursor, ++n);
	}
out:
	p->res->produced = n;
	p->res->checksum_produced = sum;
	jr_store(&p->done, 1);
	return NULL;
}

/*
 * A consumer thread: its index in the pipe's consumed[] and the result's
 * counts, its thread and name, its histograms, and the journal it writes
 * (the journaller's; NULL for the accumulator).
 */
struct jr_consumer {
	struct jr_pipe *pipe;
	int idx;
	enum jr_pipe_thread thread;
	const char *comm;
	struct jr_hist *transit, *inter;
	struct jr_journal *journal;
};

/* jr_consumers_init - the accumulator and the journaller of p. */
static void jr_consumers_init(struct jr_consumer c[2], struct jr_pipe *p)
{
	struct jr_hist *h = p->res->hist;

	c[0] = (struct jr_consumer){ .pipe = p,
				     .idx = 0,
				     .thread = JR_ACCUMULATOR,
				     .comm = "jr-acc",
				     .transit = &h[JR_PH_ACC_TRANSIT],
				     .inter = &h[JR_PH_ACC_INTER] };
	c[1] = (struct jr_consumer){ .pipe = p,
				     .idx = 1,
				     .thread = JR_JOURNALLER,
				     .comm = "jr-jrnl",
				     .transit = &h[JR_PH_JRN_TRANSIT],
				     .inter = &h[JR_PH_JRN_INTER],
				     .journal = &p->journal };
}

/* jr_journal_put - slot s, consumed with transit d cycles, journalled. */
static void jr_journal_put(const struct jr_consumer *c, const struct jr_slot *s,
			   uint64_t d)
{
	struct jr_journal_entry *e = jr_journal_slot(c->journal, s->seq);

	e->seq = s->seq;
	e->payload = s->payload;
	e->transit_ns = d * c->pipe->ns_per_cyc;
	e->publish_tsc = s->tsc;
}

/*
 * jr_pipe_step - the step that held a message longest: stamped at stamp;
 * not published yet at the consumer's last empty poll, empty (0: none);
 * seen published by the poll whose batch the consumer began stamping at
 * seen; stamped by the consumer at t.
 */
enum jr_pipe_step jr_pipe_step(uint64_t stamp, uint64_t empty, uint64_t seen,
			       uint64_t t)
{
	uint64_t from = empty > stamp ? empty : stamp;
	uint64_t publish = from - stamp;
	uint64_t poll = seen > from ? seen - from : 0;
	uint64_t work = t > seen ? t - seen : 0;

	if (publish >= poll && publish >= work)
		return JR_STEP_PUBLISH;
	return poll >= work ? JR_STEP_POLL : JR_STEP_STAMP;
}

/* jr_consume - one consumer's loop. */
static void jr_consume(const struct jr_consumer *c)
{
	struct jr_pipe *p = c->pipe;
	enum jr_wait wait = p->cfg->wait[c->thread];
	uint64_t next = 0, avail, sum = 0, t, prev = 0, d, empty = 0, seen;
	uint64_t slow_cyc = JR_PIPE_SLOW_NS / p->ns_per_cyc;
	uint64_t slow[JR_STEP_NR] = { 0 };
	const struct jr_slot *s;
	int k;

	for (;;) {
		avail = jr_load(&p->cursor);
		if (avail == next) {
			if (jr_load(&p->done) && jr_load(&p->cursor) == next)
				break;
			/*
			 * unordered: no later than the load that found
			 * nothing, so publication is never overstated
			 */
			empty = jr_rdtsc();
			jr_wait_once(wait);
			continue;
		}
		for (seen = 0; next < avail; next++) {
			s = &p->slots[next & p->mask];
			t = jr_rdtsc_after_loads();
			if (!seen)
				seen = t;
			d = t > s->tsc ? t - s->tsc : 0;
			if (!s->flags) {
				jr_hist_record(c->transit, d * p->ns_per_cyc);
				if (prev)
					jr_hist_record(c->inter,
						       (t - prev) *
							       p->ns_per_cyc);
				prev = t;
				if (d > slow_cyc)
					slow[jr_pipe_step(s->tsc, empty, seen,
							  t)]++;
			}
			sum = jr_journal_mix(sum, s->payload);
			if (c->journal)
				jr_journal_put(c, s, d);
			jr_store(&p->consumed[c->idx], next + 1);
		}
	}
	p->res->consumed[c->idx] = next;
	p->res->checksum[c->idx] = sum;
	for (k = 0; k < JR_STEP_NR; k++)
		p->res->slow[c->idx][k] = slow[k];
}

static void *jr_consumer(void *arg)
{
	const struct jr_consumer *c = arg;
	struct jr_pipe *p = c->pipe;
	int pt = c->thread;

	p->err[pt] = jr_pin_self(c->comm, p->cfg->cpu[pt], p->cfg->fifo_prio);
	while (!jr_load(&p->go))
		jr_wait_once(p->cfg->wait[pt]);
	if (!p->err[pt])
		jr_consume(c);
	if (p->err[pt]) /* let the producer's back-pressure loop out */
		jr_store(&p->consumed[c->idx], UINT64_MAX / 2);
	return NULL;
}

/* jr_input_map - the message file, or a generated one in a memfd. */
static int jr_input_map(struct jr_pipe *p, struct jr_err *e)
{
	const char *path = p->cfg->input;
	struct stat st;
	uint64_t *buf, x = 0x9e3779b97f4a7c15ULL;
	size_t i;
	int fd;

	if (path) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || fstat(fd, &st)) {
			jr_fail(e, -EINVAL, "%s: %s", path, strerror(errno));
			return -errno;
		}
		if (st.st_size < 8) {
			close(fd);
			jr_fail(e, -EINVAL,
				"%s: the input needs at least one 8-byte message",
				path);
			return -EINVAL;
		}
	} else {
		st.st_size = JR_INPUT_MESSAGES * sizeof(uint64_t);
		fd = memfd_create("jitread-input", 0);
		if (fd < 0 || ftruncate(fd, st.st_size)) {
			jr_fail(e, -EINVAL, "memfd: %s", strerror(errno));
			return -errno;
		}
	}
	buf = mmap(NULL, st.st_size, path ? PROT_READ : PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED) {
		jr_fail(e, -EINVAL, "mmap input: %s", strerror(errno));
		return -errno;
	}
	p->nr_input = st.st_size / sizeof(uint64_t);
	if (!path)
		for (i = 0; i < p->nr_input; i++) {
			x ^= x << 13; /* xorshift64: varied, reproducible */
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = x;
		}
	p->input = buf;
	p->res->input_messages = p->nr_input;
	return 0;
}

/* jr_pipe_journal_open - the journal, sized for the run. */
static int jr_pipe_journal_open(struct jr_pipe *p, struct jr_err *e)
{
	const struct jr_pipe_cfg *cfg = p->cfg;
	uint64_t ns = cfg->duration_ns + cfg->warmup_ns;

	return jr_journal_open(
		&p->journal, cfg->journal,
		jr_journal_cap(ns / cfg->interval_ns, cfg->journal_bytes), e);
}

/* jr_pipe_journal_check - the journal read back, against the run. */
static int jr_pipe_journal_check(struct jr_pipe *p, struct jr_err *e)
{
	struct jr_pipe_result *res = p->res;
	struct jr_journal_read r;
	int ret;

	ret = jr_journal_verify(p->cfg->journal, p->input, p->nr_input, &r, e);
	if (ret)
		return ret;
	res->journal_entries = r.entries;
	res->journal_kept = r.kept;
	res->journal_capacity = r.capacity;
	res->journal_ok = r.checksum == res->checksum[1];
	return 0;
}

static void jr_pipe_verdict(struct jr_pipe_result *r)
{
	r->verified = r->produced == r->consumed[0] &&
		      r->produced == r->consumed[1] &&
		      r->produced == r->journal_entries && r->journal_ok &&
		      r->checksum_produced == r->checksum[0] &&
		      r->checksum_produced == r->checksum[1];
	snprintf(
		r->verdict, sizeof(r->verdict),
		"%s: produced %llu, accumulator %llu, journaller %llu, journal %llu, checksum %016llx",
		r->verified ? "verified" : "MISMATCH",
		(unsigned long long)r->produced,
		(unsigned long long)r->consumed[0],
		(unsigned long long)r->consumed[1],
		(unsigned long long)r->journal_entries,
		(unsigned long long)r->checksum_produced);
}

int jr_pipe_run(const struct jr_pipe_cfg *cfg, struct jr_pipe_result *res,
		struct jr_err *e)
{
	struct jr_pipe p = { .cfg = cfg, .res = res, .journal.fd = -1 };
	struct jr_consumer cons[2];
	pthread_t th[JR_NR_PT];
	uint64_t t0;
	int i, nr, ret;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < JR_PH_NR; i++) {
		jr_hist_init(&res->hist[i], 3);
		if (jr_hist_alloc(&res->hist[i]))
			return jr_fail(e, -ENOMEM, "out of memory");
	}
	p.ns_per_cyc = 1e6 / cfg->tsc_khz;
	p.mask = cfg->ring_size - 1;
	p.slots = aligned_alloc(JR_LINE, cfg->ring_size * sizeof(*p.slots));
	if (!p.slots)
		return jr_fail(e, -ENOMEM, "out of memory");
	memset(p.slots, 0, cfg->ring_size * sizeof(*p.slots));
	ret = jr_input_map(&p, e);
	if (ret)
		goto out_slots;
	ret = jr_pipe_journal_open(&p, e);
	if (ret)
		goto out_input;
	jr_consumers_init(cons, &p);
	ret = pthread_create(&th[0], NULL, jr_producer, &p);
	nr = !ret;
	for (i = 1; !ret && i < JR_NR_PT; i++) {
		ret = pthread_create(&th[i], NULL, jr_consumer, &cons[i - 1]);
		nr += !ret;
	}
	if (ret) {
		jr_fail(e, -EINVAL, "pthread_create: %s", strerror(ret));
		jr_store(&p.abort, 1);
	}
	t0 = jr_mono_ns();
	jr_store(&p.go, 1);
	while (nr-- > 0)
		pthread_join(th[nr], NULL);
	res->elapsed_s = (jr_mono_ns() - t0) / 1e9;
	ret = -ret;
	if (jr_journal_close(&p.journal, res->consumed[1], res->checksum[1],
			     cfg->tsc_khz))
		ret = -EIO;
	for (i = 0; !ret && i < JR_NR_PT; i++)
		if (p.err[i]) {
			jr_fail(e, -EINVAL, "%s on CPU %d: %s",
				jr_pipe_thread_names[i], cfg->cpu[i],
				strerror(-p.err[i]));
			ret = p.err[i];
		}
	if (!ret)
		ret = jr_pipe_journal_check(&p, e);
	jr_pipe_verdict(res);
out_input:
	munmap((void *)p.input, p.nr_input * sizeof(uint64_t));
out_slots:
	free(p.slots);
	return ret;
}

void jr_pipe_free(struct jr_pipe_result *res)
{
	int i;

	for (i = 0; i < JR_PH_NR; i++)
		jr_hist_free(&res->hist[i]);
}
