/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_prom.h - a model as Prometheus metrics: the text format 0.0.4 and
 * OpenMetrics 1.0.
 *
 * Every counter only grows while the model does, also the per-source
 * ones, whose label set is bounded: per CPU, at most `top` sources have
 * series of their own (a thread by its comm, without the pid), counted
 * from the update that chose them; all else, including what a source did
 * before it was chosen and after it was let go, is source="other".  So
 * the series of a CPU always add up to its sources' total.
 *
 * The choice follows the run.  Each source's recent time is a score that
 * decays by JR_PROM_DECAY at every update and grows by its new time.
 * Free places go to the highest scores; a source without a series takes
 * the place of the lowest-scoring one only when its score is more than
 * JR_PROM_SWAP times that one's, so that two sources of like weight do
 * not trade places at every update.
 */
#ifndef JR_PROM_H
#define JR_PROM_H

#include <stdbool.h>
#include <stdint.h>

#include "common/jr_buf.h"
#include "core/jr_model.h"

#define JR_PROM_MAX_TOP 1000
/*
 * JR_PROM_SERIES - a CPU's series in the text formats at most: one each
 * of sampled, available, periods and lost; 8 gross classes, 9 net, 4
 * outside, 7 gap counts; top + 1 sources, twice; and 8 histograms (the
 * gaps', one per class) of 20 buckets, a sum and a count.
 */
#define JR_PROM_SERIES(top) (4 + 8 + 9 + 4 + 7 + 2 * ((top) + 1) + 8 * 22)
#define JR_PROM_DECAY 0.9 /* a score's weight after one more update */
#define JR_PROM_SWAP 2.0 /* how much a newcomer must outscore to swap */

/*
 * struct jr_prom_label - a source as labelled: its class (as the class
 * label of the other families: irq ... thread, hw:smi, hw:steal,
 * hw:unknown), its name, its totals and its recent time.
 */
struct jr_prom_label {
	char cls[16];
	char name[48];
	uint64_t ns, n;
	double score;
};

/* struct jr_prom_series - a source with a series of its own */
struct jr_prom_series {
	struct jr_prom_label l; /* l.ns, l.n: the totals now */
	uint64_t base_ns, base_n; /* counted in "other" before it was chosen */
};

struct jr_prom_cpu {
	struct jr_prom_series *top;
	int nr_top;
	struct jr_prom_label *prev; /* the last update's labels, sorted */
	int nr_prev;
	uint64_t other_ns, other_n;
};

struct jr_prom_info {
	const char *version;
	const char *backend; /* "jitmod", "user" or "attach" */
	const char *kernel;
	uint64_t warmup_ns; /* each window's, not sampled */
	/*
	 * attach: no sampler and no gap; each event is one delay of a
	 * target thread, so the per-class families count the events
	 */
	bool events_only;
};

/*
 * struct jr_prom_thread - attach: a target thread's account, for the
 * jitread_thread_* families.  The caller keeps the label set bounded: a
 * thread keeps its series once it has one, and past JR_PROM_MAX_THREADS
 * the rest add up in one entry of tid 0, exposed as tid="other".
 */
#define JR_PROM_MAX_THREADS 256
struct jr_prom_thread {
	int32_t tid;
	char comm[16];
	uint64_t run_ns, wait_ns, waits, sleep_ns, faults, migrations;
	uint64_t noise_ns[JR_H_THREAD]; /* by class: [h - JR_H_IRQ] */
};

struct jr_prom {
	int top;
	struct jr_prom_info info;
	struct jr_prom_cpu *cpu;
	int nr_cpus;
	const struct jr_prom_thread *th; /* attach: the caller's, or NULL */
	int nr_th;
	uint64_t refreshed_ns; /* CLOCK_REALTIME at the last jr_prom_update */
};

/*
 * jr_prom_char - a byte of a label value as exposed: outside printable
 * ASCII, '?', so that the text stays valid UTF-8.  Sources whose names
 * differ only there are one series.
 */
static inline char jr_prom_char(char c)
{
	return (unsigned char)c < 0x20 || (unsigned char)c > 0x7e ? '?' : c;
}

void jr_prom_init(struct jr_prom *p, int top, const struct jr_prom_info *info);
int jr_prom_update(struct jr_prom *p, const struct jr_model *m);
/* the formats, as a scraper asks for them */
enum jr_prom_fmt {
	JR_PROM_TEXT, /* text/plain; version=0.0.4 */
	JR_PROM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
	JR_PROM_PROTOBUF, /* io.prometheus.client.MetricFamily, delimited */
	JR_PROM_NR_FMT,
};

void jr_prom_write(const struct jr_prom *p, const struct jr_model *m,
		   enum jr_prom_fmt fmt, struct jr_buf *out);
void jr_prom_free(struct jr_prom *p);

/* the native histograms' schema: 2^(2^-3), buckets about 9 % wide */
#define JR_PROM_SCHEMA 3

#endif /* JR_PROM_H */
