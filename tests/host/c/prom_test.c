// SPDX-License-Identifier: GPL-2.0
/*
 * prom_test.c - jitread serve's exposition (core/jr_prom*.c) on a model
 * built from made-up records: the chosen sources and "other" only grow
 * and add up to the sources' total, threads lose their pid, the noise
 * classes wait for a period summary, label values are escaped, the
 * classic buckets count what they should, each format has its framing,
 * and a native histogram's buckets add up to its count, a gap beyond the
 * histogram's range included.  Prints one line per failed check and
 * exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_http.h"
#include "core/jr_prom.h"
#include "jr_check.h"

static void add(struct jr_model *m, int type, int id, const char *name,
		uint64_t ns)
{
	static uint64_t ts = 1000;
	struct jr_rec r = { .type = type, .cpu = 1, .id = id, .ts_ns = ts };

	ts += 100000;
	r.v[0] = ns;
	snprintf(r.name, sizeof(r.name), "%s", name);
	if (type == JR_GAP)
		r.cls = id;
	CHECK(!jr_model_add(m, &r));
}

/* value - the number after the line that begins with key, or -1 */
static double value(const struct jr_buf *b, const char *key)
{
	const char *p = b->p;
	size_t n = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == b->p || p[-1] == '\n') && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p += n;
	}
	return -1;
}

#define SRC(k, s)                                                 \
	"jitread_source_noise_seconds_total{cpu=\"1\",class=\"" k \
	"\",source=\"" s "\"}"

static void render(struct jr_prom *p, struct jr_model *m, bool om,
		   struct jr_buf *b)
{
	jr_buf_reset(b);
	CHECK(!jr_prom_update(p, m));
	jr_prom_write(p, m, om ? JR_PROM_OPENMETRICS : JR_PROM_TEXT, b);
	CHECK(!b->oom);
}

static void sources(void)
{
	const struct jr_prom_info info = { "t", "user", "k", 0, false };
	struct jr_buf b = { 0 };
	struct jr_model m;
	struct jr_prom p;
	double a1, other1;

	jr_model_init(&m, 3, 1000, 16);
	jr_prom_init(&p, 2, &info);
	add(&m, JR_THREAD, 10, "a", 500);
	add(&m, JR_THREAD, 11, "a", 300);
	add(&m, JR_IRQ, -1, "local_timer", 200);
	add(&m, JR_SOFTIRQ, 0, "", 50);
	render(&p, &m, false, &b);
	a1 = value(&b, SRC("thread", "a"));
	other1 = value(&b, SRC("other", "other"));
	CHECK(a1 * 1e9 > 799.5 && a1 * 1e9 < 800.5); /* two pids, one comm */
	CHECK(value(&b, SRC("irq", "local_timer")) * 1e9 > 199.5);
	CHECK(other1 * 1e9 > 49.5 && other1 * 1e9 < 50.5);
	/*
	 * no room left: a new source more than twice the weakest's recent
	 * time takes its place; the weakest's time goes to other
	 */
	add(&m, JR_NMI, 0, "x", 1000);
	add(&m, JR_THREAD, 12, "a", 100);
	render(&p, &m, false, &b);
	CHECK(value(&b, SRC("nmi", "x")) * 1e9 > 999.5);
	CHECK(value(&b, SRC("irq", "local_timer")) < 0);
	CHECK(value(&b, SRC("thread", "a")) * 1e9 > 899.5);
	CHECK(value(&b, SRC("other", "other")) * 1e9 > 249.5);
	CHECK(value(&b, SRC("other", "other")) * 1e9 < 250.5);
	CHECK(value(&b,
		    "jitread_source_events_total{cpu=\"1\",class=\"thread\",source=\"a\"}") ==
	      3);
	/* hw sources carry their class as the per-class families name it */
	add(&m, JR_GAP, JIT_NOISE_HW_UNKNOWN, "", 5000);
	render(&p, &m, false, &b);
	CHECK(value(&b, SRC("hw:unknown", "unknown")) * 1e9 > 4999.5);
	jr_prom_free(&p);
	jr_model_free(&m);
	jr_buf_free(&b);
}

/* sum_of - the sum of the values of the lines that begin with prefix */
static double sum_of(const struct jr_buf *b, const char *prefix)
{
	const char *p = b->p, *sp;
	size_t n = strlen(prefix);
	double t = 0;

	while ((p = strstr(p, prefix))) {
		if ((p == b->p || p[-1] == '\n') && (sp = strchr(p, ' ')) &&
		    sp < strchr(p, '\n'))
			t += strtod(sp + 1, NULL);
		p += n;
	}
	return t;
}

/*
 * follows - the series follow the run: a source that stops is let go,
 * one that keeps growing takes its place; at every update the series add
 * up to the sources' total, other never shrinks, and a series never
 * shrinks while it lasts.
 */
static void follows(void)
{
	const struct jr_prom_info info = { "t", "user", "k", 0, false };
	const char *a = SRC("thread", "early"), *late = SRC("thread", "late");
	double other = 0, va = 0, vb = 0, total = 0;
	struct jr_buf b = { 0 };
	struct jr_model m;
	struct jr_prom p;
	int i, swapped = -1;

	jr_model_init(&m, 3, 1000, 16);
	jr_prom_init(&p, 1, &info);
	for (i = 0; i < 30; i++) {
		if (i < 5) {
			add(&m, JR_THREAD, 10, "early", 1000);
			total += 1000;
		} else {
			add(&m, JR_THREAD, 11, "late", 300);
			total += 300;
		}
		render(&p, &m, false, &b);
		CHECK(fabs(sum_of(&b, "jitread_source_noise_seconds_total{") *
				   1e9 -
			   total) < 0.5);
		CHECK(value(&b, SRC("other", "other")) >= other);
		other = value(&b, SRC("other", "other"));
		CHECK(value(&b, a) < 0 || value(&b, a) >= va);
		va = value(&b, a) < 0 ? 0 : value(&b, a);
		CHECK(value(&b, late) < 0 || value(&b, late) >= vb);
		vb = value(&b, late) < 0 ? 0 : value(&b, late);
		CHECK((value(&b, a) < 0) != (value(&b, late) < 0));
		if (swapped < 0 && value(&b, late) >= 0)
			swapped = i;
	}
	/* early's recent time decays by 0.9 an update; late's grows */
	CHECK(swapped > 5 && swapped < 20);
	CHECK(value(&b, a) < 0);
	jr_prom_free(&p);
	jr_model_free(&m);
	jr_buf_free(&b);
}

/*
 * series_bound - with every class and more sources than --top, a CPU has
 * JR_PROM_SERIES(top) series in the text format, and the run 3 more (the
 * build, the refresh time and the warm-up)
 */
static void series_bound(void)
{
	const struct jr_prom_info info = { "t", "jitmod", "k", 0, false };
	struct jr_rec sum = { .type = JR_SUMMARY, .cpu = 1 };
	struct jr_buf b = { 0 };
	const char *l;
	struct jr_model m;
	struct jr_prom p;
	char name[16];
	int i, n = 0, all = 0;

	jr_model_init(&m, 3, 1000, 16);
	jr_prom_init(&p, 3, &info);
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		add(&m, JR_THREAD, 100 + i, name, 1000 + i);
	}
	for (i = 0; i < JIT_NOISE_NR; i++)
		add(&m, JR_GAP, i, "", 2000);
	sum.v[0] = 1000000;
	sum.v[1] = 2000 * JIT_NOISE_NR;
	CHECK(!jr_model_add(&m, &sum));
	render(&p, &m, false, &b);
	for (l = b.p; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *brace = strpbrk(l, "{ \n");

		if (*l == '#' || *l == '\n')
			continue;
		all++;
		n += *brace == '{' && !strncmp(brace, "{cpu=\"1\"", 8);
	}
	CHECK(n == JR_PROM_SERIES(3));
	CHECK(all == n + 3);
	jr_prom_free(&p);
	jr_model_free(&m);
	jr_buf_free(&b);
}

/* count - how many lines begin with key followed by a space */
static int count(const struct jr_buf *b, const char *key)
{
	const char *p = b->p;
	size_t n = strlen(key);
	int k = 0;

	while ((p = strstr(p, key))) {
		k += (p == b->p || p[-1] == '\n') && p[n] == ' ';
		p += n;
	}
	return k;
}

/* same_text - names that escape to the same label value are one series */
static void same_text(void)
{
	const struct jr_prom_info info = { "t", "user", "k", 0, false };
	struct jr_buf b = { 0 };
	struct jr_model m;
	struct jr_prom p;

	jr_model_init(&m, 3, 1000, 16);
	jr_prom_init(&p, 10, &info);
	add(&m, JR_THREAD, 10, "a\001b", 500);
	add(&m, JR_THREAD, 11, "a\002b", 300);
	add(&m, JR_THREAD, 12, "a\377b", 100);
	render(&p, &m, false, &b);
	CHECK(count(&b, SRC("thread", "a?b")) == 1);
	CHECK(value(&b, SRC("thread", "a?b")) * 1e9 > 899.5 &&
	      value(&b, SRC("thread", "a?b")) * 1e9 < 900.5);
	CHECK(value(&b, SRC("other", "other")) == 0);
	jr_prom_free(&p);
	jr_model_free(&m);
	jr_buf_free(&b);
}

#define BKT(le)                                                                 \
	"jitread_event_duration_seconds_bucket{cpu=\"1\",class=\"hw:unknown\"," \
	"le=\"" le "\"}"
#define GAP_BKT(le) \
	"jitread_gap_duration_seconds_bucket{cpu=\"1\",le=\"" le "\"}"
#define NOISE(c) "jitread_noise_seconds_total{cpu=\"1\",class=\"" c "\"}"

static void gaps(void)
{
	const struct jr_prom_info info = { "0.1", "jitmod", "x\"y\\z\n\xff", 0,
					   false };
	struct jr_rec sum = { .type = JR_SUMMARY, .cpu = 1 };
	const uint64_t ns[] = { 100, 999, 1000, 1001, 5000 };
	struct jr_buf b = { 0 };
	struct jr_model m;
	struct jr_prom p;
	size_t i;

	jr_model_init(&m, 3, 1000, 16);
	jr_prom_init(&p, 10, &info);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		add(&m, JR_GAP, JIT_NOISE_HW_UNKNOWN, "", ns[i]);
	render(&p, &m, false, &b);
	CHECK(value(&b, BKT("1e-07")) == 1);
	CHECK(value(&b, BKT("5e-07")) == 1);
	CHECK(value(&b, BKT("1e-06")) == 3);
	CHECK(value(&b, BKT("2.5e-06")) == 4);
	CHECK(value(&b, BKT("5e-06")) == 5);
	CHECK(value(&b, BKT("+Inf")) == 5);
	CHECK(value(&b,
		    "jitread_event_duration_seconds_sum{cpu=\"1\",class=\"hw:unknown\"}") *
		      1e9 >
	      8099.5);
	/* every gap once, in a family of its own: the sums do not double */
	CHECK(value(&b, GAP_BKT("1e-06")) == 3);
	CHECK(value(&b, GAP_BKT("+Inf")) == 5);
	CHECK(sum_of(&b, "jitread_gap_duration_seconds_count{") == 5);
	CHECK(sum_of(&b, "jitread_event_duration_seconds_count{") == 5);
	/* the gaps count as noise once a summary covers them */
	CHECK(value(&b, NOISE("hw:unknown")) == 0);
	sum.v[0] = 1000000;
	sum.v[1] = 8100;
	CHECK(!jr_model_add(&m, &sum));
	render(&p, &m, false, &b);
	CHECK(value(&b, NOISE("hw:unknown")) * 1e9 > 8099.5);
	CHECK(value(&b, NOISE("unseen")) == 0);
	/* a period whose gaps were not read: its noise is unseen */
	sum.v[1] = 500;
	CHECK(!jr_model_add(&m, &sum));
	render(&p, &m, false, &b);
	CHECK(value(&b, NOISE("unseen")) * 1e9 > 499.5);
	CHECK(value(&b, NOISE("unseen")) * 1e9 < 500.5);
	CHECK(value(&b, NOISE("hw:unknown")) * 1e9 < 8100.5);
	CHECK(value(&b, "jitread_gaps_total{cpu=\"1\",class=\"hw:unknown\"}") ==
	      5);
	/* 1 - 8600 / 2000000 */
	CHECK(value(&b, "jitread_available_ratio{cpu=\"1\"}") > 0.99569 &&
	      value(&b, "jitread_available_ratio{cpu=\"1\"}") < 0.99571);
	CHECK(strstr(b.p, "kernel=\"x\\\"y\\\\z??\"} 1\n"));
	CHECK(strstr(b.p, "# TYPE jitread_sampled_seconds_total counter\n"));
	CHECK(strstr(b.p, "# TYPE jitread_build_info gauge\n"));
	CHECK(!strstr(b.p, "# EOF"));
	render(&p, &m, true, &b);
	CHECK(strstr(b.p, "# TYPE jitread_sampled_seconds counter\n"));
	CHECK(strstr(b.p, "# UNIT jitread_sampled_seconds seconds\n"));
	CHECK(strstr(b.p, "# TYPE jitread_build info\n"));
	CHECK(b.len > 6 && !strcmp(b.p + b.len - 6, "# EOF\n"));
	/* protobuf: a delimited MetricFamily first, named in field 1 */
	jr_buf_reset(&b);
	jr_prom_write(&p, &m, JR_PROM_PROTOBUF, &b);
	CHECK(!b.oom && b.len > 40 && (unsigned char)b.p[2] == 0x0a &&
	      !memcmp(b.p + 4, "jitread_build_info", 18));
	CHECK(memmem(b.p, b.len, "jitread_sampled_seconds_total", 29));
	jr_prom_free(&p);
	jr_model_free(&m);
	jr_buf_free(&b);
}

/* pb_varint - the varint at *p (below end), advancing *p; 0 when cut */
static uint64_t pb_varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	int shift = 0;

	while (*p < end && shift < 64) {
		unsigned char c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	*p = end;
	return 0;
}

/*
 * pb_hists - walk a protobuf message (depth 0: a Metric's fields; the
 * caller gives each MetricFamily's metrics); for each Histogram (Metric
 * field 7), count the histograms whose sample_count (1) differs from
 * the sum of its native bucket counts (field 13 holds zigzag deltas).
 */
static int pb_hists(const unsigned char *p, const unsigned char *end,
		    int field_of_parent, int *seen)
{
	uint64_t count = 0, sum = 0, cur = 0;
	int bad = 0;

	while (p < end) {
		uint64_t key = pb_varint(&p, end), v, n;
		int field = (int)(key >> 3), wire = (int)(key & 7);

		if (wire == 0) {
			v = pb_varint(&p, end);
			if (field_of_parent == 7 && field == 1)
				count = v;
			if (field_of_parent == 7 && field == 13) {
				cur += (int64_t)((v >> 1) ^ -(v & 1));
				sum += cur;
			}
		} else if (wire == 2) {
			n = pb_varint(&p, end);
			if (n > (uint64_t)(end - p))
				return bad + 1;
			if ((field_of_parent == 4 && field == 7) ||
			    (field_of_parent == 0 && field == 4))
				bad += pb_hists(p, p + n, field == 7 ? 7 : 4,
						seen);
			p += n;
		} else if (wire == 1) {
			p += 8;
		} else if (wire == 5) {
			p += 4;
		} else {
			return bad + 1;
		}
	}
	if (field_of_parent == 7) {
		(*seen)++;
		bad += count != sum;
	}
	return bad;
}

/* huge_gap - a gap past 2^40 ns counts once in the native buckets */
static void huge_gap(void)
{
	const struct jr_prom_info info = { "0.1", "jitmod", "k", 0, false };
	const unsigned char *p, *end;
	struct jr_buf b = { 0 };
	struct jr_model m;
	struct jr_prom pr;
	int seen = 0, bad = 0;

	jr_model_init(&m, 3, 1000, 16);
	jr_prom_init(&pr, 10, &info);
	add(&m, JR_GAP, JIT_NOISE_HW_UNKNOWN, "", 5000);
	add(&m, JR_GAP, JIT_NOISE_HW_UNKNOWN, "", 1ULL << 41);
	CHECK(!jr_prom_update(&pr, &m));
	jr_prom_write(&pr, &m, JR_PROM_PROTOBUF, &b);
	CHECK(!b.oom);
	p = (const unsigned char *)b.p;
	end = p + b.len;
	while (p < end) {
		uint64_t n = pb_varint(&p, end);

		if (n > (uint64_t)(end - p)) {
			bad++;
			break;
		}
		bad += pb_hists(p, p + n, 0, &seen);
		p += n;
	}
	CHECK(seen > 0);
	CHECK(!bad);
	jr_prom_free(&pr);
	jr_model_free(&m);
	jr_buf_free(&b);
}

#define TH(f, l) "jitread_thread_" f "{tid=\"42\",comm=\"spin?\"" l "}"

/*
 * attach: no gap, so the events are the noise and the gaps' count; no
 * outside, unexplained or unseen series; each thread is a series, and
 * the rest is tid="other"
 */
static void attach(void)
{
	const struct jr_prom_info info = { "0.1", "attach", "k", 0, true };
	const struct jr_prom_thread th[2] = {
		{ .tid = 42,
		  .comm = "spin\x01",
		  .run_ns = 2000000000,
		  .wait_ns = 7000,
		  .waits = 3,
		  .noise_ns = { 1000, 0, 0, 5000 } },
		{ .tid = 0, .comm = "other", .faults = 7 },
	};
	struct jr_rec sum = { .type = JR_SUMMARY, .cpu = 1 };
	struct jr_buf b = { 0 };
	struct jr_model m;
	struct jr_prom p;

	jr_model_init(&m, 3, 1000, 16);
	jr_prom_init(&p, 10, &info);
	p.th = th;
	p.nr_th = 2;
	add(&m, JR_IRQ, -1, "local_timer", 1000);
	add(&m, JR_THREAD, 10, "sh", 3000);
	add(&m, JR_THREAD, 10, "sh", 2000);
	sum.v[0] = 1000000;
	sum.v[1] = 6000;
	CHECK(!jr_model_add(&m, &sum));
	render(&p, &m, false, &b);
	CHECK(value(&b, NOISE("thread")) * 1e9 > 4999.5);
	CHECK(value(&b, NOISE("irq")) * 1e9 > 999.5);
	CHECK(value(&b, "jitread_gaps_total{cpu=\"1\",class=\"thread\"}") == 2);
	CHECK(value(&b, NOISE("unseen")) == -1);
	CHECK(!strstr(b.p, "jitread_outside_gaps_seconds_total{"));
	CHECK(!strstr(b.p, "jitread_gap_duration_seconds_bucket{"));
	CHECK(value(&b, "jitread_available_ratio{cpu=\"1\"}") > 0.9939);
	CHECK(value(&b, TH("run_seconds_total", "")) == 2);
	CHECK(value(&b, TH("waits_total", "")) == 3);
	CHECK(value(&b, TH("noise_seconds_total", ",class=\"thread\"")) * 1e9 >
	      4999.5);
	CHECK(value(&b, "jitread_thread_page_faults_total{tid=\"other\","
			"comm=\"other\"}") == 7);
	CHECK(strstr(b.p, "backend=\"attach\""));
	jr_buf_free(&b);
	jr_prom_free(&p);
	jr_model_free(&m);
}

int main(void)
{
	struct jr_buf b = { .max = 8 };

	sources();
	follows();
	series_bound();
	same_text();
	gaps();
	huge_gap();
	attach();
	jr_buf_printf(&b, "%s", "0123456");
	CHECK(!b.oom && b.len == 7);
	jr_buf_printf(&b, "x");
	CHECK(b.oom && b.len == 7);
	jr_buf_free(&b);
	CHECK(jr_http_accepts(
		      "application/openmetrics-text;version=1.0.0,text/plain;q=0.5") ==
	      JR_FMT_OPENMETRICS);
	CHECK(jr_http_accepts("text/plain") == JR_FMT_TEXT);
	CHECK(jr_http_accepts(NULL) == JR_FMT_TEXT);
	/* q-values decide; a tie goes protobuf, OpenMetrics, text */
	CHECK(jr_http_accepts(
		      "application/openmetrics-text;version=1.0.0;q=0.2,"
		      "text/plain;version=0.0.4;q=0.9") == JR_FMT_TEXT);
	CHECK(jr_http_accepts("application/vnd.google.protobuf;"
			      "proto=io.prometheus.client.MetricFamily;"
			      "encoding=delimited;q=0,text/plain") ==
	      JR_FMT_TEXT);
	CHECK(jr_http_accepts(
		      "application/vnd.google.protobuf;"
		      "proto=io.prometheus.client.MetricFamily;"
		      "encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,"
		      "*/*;q=0.2") == JR_FMT_PROTOBUF);
	CHECK(jr_http_accepts(
		      "application/openmetrics-text;version=1.0.0,"
		      "application/openmetrics-text;version=0.0.1;q=0.75,"
		      "text/plain;version=0.0.4;q=0.5,*/*;q=0.1") ==
	      JR_FMT_OPENMETRICS);
	CHECK(jr_http_accepts("*/*") == JR_FMT_TEXT);
	CHECK(jr_http_accepts(" Text/Plain ; q=0.4 , application/"
			      "openmetrics-text ; q=0.3") == JR_FMT_TEXT);
	CHECK(jr_http_accepts("application/vnd.google.protobuf;"
			      "encoding=delimited") == JR_FMT_TEXT);
	CHECK(jr_http_accepts("image/png, application/json") == JR_FMT_TEXT);
	if (!failed)
		printf("ok\n");
	return failed;
}
