/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_prom.h - a model as Prometheus metrics: the text format 0.0.4 and
 * OpenMetrics 1.0.
 *
 * Every counter only grows while the model does, also the per-source
 * ones, whose label set is bounded: per CPU, the first `top` sources to
 * grow most between two updates get series of their own (a thread by its
 * comm, without the pid), counted from the update that chose them; all
 * else, including what a chosen source did before, is source="other".
 * A chosen source keeps its series for the run.
 */
#ifndef JR_PROM_H
#define JR_PROM_H

#include <stdbool.h>
#include <stdint.h>

#include "common/jr_buf.h"
#include "core/jr_model.h"

#define JR_PROM_MAX_TOP 1000

/* struct jr_prom_label - a source as labelled: kind and name, and its totals */
struct jr_prom_label {
	char kind[16]; /* irq, softirq, nmi, thread, hw */
	char name[48];
	uint64_t ns, n;
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
	const char *backend; /* "jitmod" or "user" */
	const char *kernel;
	uint64_t warmup_ns; /* each window's, not sampled */
};

struct jr_prom {
	int top;
	struct jr_prom_info info;
	struct jr_prom_cpu *cpu;
	int nr_cpus;
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
