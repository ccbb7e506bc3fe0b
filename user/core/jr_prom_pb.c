// SPDX-License-Identifier: GPL-2.0
/*
 * jr_prom_pb.c - the protobuf format: io.prometheus.client.MetricFamily
 * messages, each after its length as a varint ("encoding=delimited").
 * A histogram carries the classic buckets and a native (sparse) one of
 * schema JR_PROM_SCHEMA, built from jitread's histogram: a slot goes to
 * the native bucket that holds its highest value.
 *
 * Field numbers are those of prometheus/client_model's metrics.proto.
 */
#include <math.h>
#include <string.h>

#include "core/jr_prom.h"
#include "core/jr_prom_emit.h"

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };
enum { PB_COUNTER = 0, PB_GAUGE = 1, PB_HISTOGRAM = 4 };
/* client_golang's default: any value above it is not in the zero bucket */
#define JR_PB_ZERO_THRESHOLD 2.938735877055719e-39
#define JR_PB_MAX_NATIVE 512

static void pb_varint(struct jr_buf *b, uint64_t v)
{
	unsigned char out[10];
	int n = 0;

	do {
		out[n] = v & 0x7f;
		v >>= 7;
		if (v)
			out[n] |= 0x80;
		n++;
	} while (v);
	jr_buf_put(b, out, n);
}

static void pb_key(struct jr_buf *b, int field, int wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

static void pb_uint(struct jr_buf *b, int field, uint64_t v)
{
	pb_key(b, field, PB_VARINT);
	pb_varint(b, v);
}

static void pb_sint(struct jr_buf *b, int field, int64_t v)
{
	pb_key(b, field, PB_VARINT);
	pb_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void pb_double(struct jr_buf *b, int field, double v)
{
	unsigned char out[8];
	uint64_t u;
	int i;

	memcpy(&u, &v, sizeof(u));
	for (i = 0; i < 8; i++)
		out[i] = u >> (8 * i);
	pb_key(b, field, PB_I64);
	jr_buf_put(b, out, 8);
}

static void pb_bytes(struct jr_buf *b, int field, const void *p, size_t n)
{
	pb_key(b, field, PB_LEN);
	pb_varint(b, n);
	jr_buf_put(b, p, n);
}

static void pb_str(struct jr_buf *b, int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* pb_msg - the message built in m, as field of b; m is emptied */
static void pb_msg(struct jr_buf *b, int field, struct jr_buf *m)
{
	pb_bytes(b, field, m->len ? m->p : "", m->len);
	m->oom |= b->oom;
	b->oom |= m->oom;
	jr_buf_reset(m);
}

/* jr_pb_flush - the family built so far, after its length */
static void jr_pb_flush(struct jr_emit *e)
{
	struct jr_buf *f = &e->lvl[0];

	if (!e->name)
		return;
	e->b->oom |= f->oom;
	pb_varint(e->b, f->len);
	jr_buf_put(e->b, f->len ? f->p : "", f->len);
	jr_buf_reset(f);
}

static void jr_pb_family(struct jr_emit *e, const char *name, enum jr_ptype t,
			 const char *unit, const char *help)
{
	static const int types[] = { PB_COUNTER, PB_GAUGE, PB_HISTOGRAM,
				     PB_GAUGE };
	struct jr_buf *f = &e->lvl[0];

	(void)unit;
	jr_pb_flush(e);
	e->name = name;
	e->type = t;
	pb_key(f, 1, PB_LEN);
	pb_varint(f, strlen(name) + (t == JR_P_COUNTER ? 6 :
				     t == JR_P_INFO    ? 5 :
							 0));
	jr_buf_put(f, name, strlen(name));
	if (t == JR_P_COUNTER)
		jr_buf_put(f, "_total", 6);
	else if (t == JR_P_INFO)
		jr_buf_put(f, "_info", 5);
	pb_str(f, 2, help);
	pb_uint(f, 3, types[t]);
}

/* jr_pb_labels - the metric's labels; values as the text formats keep them */
static void jr_pb_labels(struct jr_emit *e, const struct jr_plabel *l, int nl)
{
	struct jr_buf *m = &e->lvl[1], *lp = &e->lvl[2];
	char v[128];
	size_t k;
	int i;

	for (i = 0; i < nl; i++) {
		for (k = 0; l[i].value[k] && k < sizeof(v) - 1; k++)
			v[k] = jr_prom_char(l[i].value[k]);
		v[k] = '\0';
		pb_str(lp, 1, l[i].name);
		pb_str(lp, 2, v);
		pb_msg(m, 1, lp);
	}
}

static void jr_pb_sample(struct jr_emit *e, const struct jr_plabel *l, int nl,
			 struct jr_pval v)
{
	struct jr_buf *m = &e->lvl[1], *val = &e->lvl[2];
	double d = v.kind == JR_PV_COUNT ? (double)v.n :
		   v.kind == JR_PV_NS	 ? v.n / 1e9 :
					   v.real;

	jr_pb_labels(e, l, nl);
	pb_double(val, 1, d);
	pb_msg(m, e->type == JR_P_COUNTER ? 3 : 2, val);
	pb_msg(&e->lvl[0], 4, m);
}

/* jr_pb_native_index - the schema's bucket holding ns: (b^(i-1), b^i] s */
static int jr_pb_native_index(uint64_t ns)
{
	return (int)ceil(log2(ns / 1e9) * (1 << JR_PROM_SCHEMA) - 1e-9);
}

/* jr_pb_native - the native buckets: spans, then count deltas */
static void jr_pb_native(struct jr_buf *hb, struct jr_buf *sub,
			 const struct jr_hist *h)
{
	int idx[JR_PB_MAX_NATIVE], nr = 0, i, start;
	uint64_t cnt[JR_PB_MAX_NATIVE], prev = 0;
	struct jr_hist_iter it;

	jr_hist_iter_init(&it, h);
	while (h->counts && jr_hist_iter_next(&it)) {
		int k = jr_pb_native_index(it.value_hi ? it.value_hi : 1);

		if (nr && idx[nr - 1] == k) {
			cnt[nr - 1] += it.count;
		} else if (nr < JR_PB_MAX_NATIVE) {
			idx[nr] = k;
			cnt[nr++] = it.count;
		}
	}
	/* a value beyond the histogram's range is already in its top slot */
	for (i = 0; i < nr; i = start) {
		for (start = i + 1;
		     start < nr && idx[start] == idx[start - 1] + 1; start++)
			;
		pb_sint(sub, 1, i ? idx[i] - idx[i - 1] - 1 : idx[i]);
		pb_uint(sub, 2, start - i);
		pb_msg(hb, 12, sub);
	}
	for (i = 0; i < nr; i++) {
		pb_sint(hb, 13, (int64_t)(cnt[i] - prev));
		prev = cnt[i];
	}
}

static void jr_pb_hist(struct jr_emit *e, const struct jr_plabel *l, int nl,
		       const struct jr_hist *h)
{
	struct jr_buf *m = &e->lvl[1], *hb = &e->lvl[2], *sub = &e->lvl[3];
	uint64_t below[JR_PROM_NR_LE];
	int i;

	jr_pb_labels(e, l, nl);
	pb_uint(hb, 1, h->count);
	pb_double(hb, 2, (double)(h->sum / 1e9L));
	jr_prom_buckets(h, below);
	for (i = 0; i < JR_PROM_NR_LE; i++) {
		pb_uint(sub, 1, below[i]);
		pb_double(sub, 2, jr_prom_le_ns[i] / 1e9);
		pb_msg(hb, 3, sub);
	}
	pb_sint(hb, 5, JR_PROM_SCHEMA);
	pb_double(hb, 6, JR_PB_ZERO_THRESHOLD);
	pb_uint(hb, 7, 0);
	jr_pb_native(hb, sub, h);
	pb_msg(m, 7, hb);
	pb_msg(&e->lvl[0], 4, m);
}

static void jr_pb_end(struct jr_emit *e)
{
	jr_pb_flush(e);
}

const struct jr_emit_ops jr_emit_pb = {
	.family = jr_pb_family,
	.sample = jr_pb_sample,
	.hist = jr_pb_hist,
	.end = jr_pb_end,
};
