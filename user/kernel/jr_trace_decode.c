// SPDX-License-Identifier: GPL-2.0
/*
 * jr_trace_decode.c - jitmod's raw events into jitread's records.
 *
 * Which field of which event goes where is one table.  The fields are
 * looked up by name once, when the stream opens, and read by offset for
 * every event after that.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "common/jr_ksym.h"
#include "kernel/jr_trace.h"

/* where a field's value goes in a struct jr_rec */
enum jr_dst {
	D_V0,
	D_V1,
	D_V2,
	D_V3,
	D_V4,
	D_V5,
	D_V6,
	D_CLS,
	D_ID,
	D_ID2,
	D_NAME,
	D_KSYM
};

struct jr_fieldmap {
	const char *field;
	enum jr_dst dst;
	bool optional; /* an older jitmod lacks it: read as 0 */
};

static const char *const jr_event_names[JR_NR_TYPES] = {
	[JR_GAP] = "gap",
	[JR_IRQ] = "irq_noise",
	[JR_SOFTIRQ] = "softirq_noise",
	[JR_NMI] = "nmi_noise",
	[JR_THREAD] = "thread_noise",
	[JR_SUMMARY] = "summary",
	[JR_STOP] = "stop",
	[JR_DETAIL] = "detail",
};

/* events an older jitmod lacks: their records are simply not made */
static const bool jr_event_optional[JR_NR_TYPES] = {
	[JR_DETAIL] = true,
};

static const struct jr_fieldmap jr_fields[JR_NR_TYPES][JR_MAX_FIELDS] = {
	[JR_GAP] = { { "duration_ns", D_V0 },
		     { "hw_ns", D_V1 },
		     { "steal_ns", D_V2 },
		     { "irq_ns", D_V3 },
		     { "softirq_ns", D_V4 },
		     { "nmi_ns", D_V5 },
		     { "thread_ns", D_V6 },
		     { "cls", D_CLS },
		     { "smi_count", D_ID } },
	[JR_IRQ] = { { "duration_ns", D_V0 },
		     { "irq", D_ID },
		     { "vector", D_ID2 },
		     { "name", D_NAME } },
	[JR_SOFTIRQ] = { { "duration_ns", D_V0 }, { "vec", D_CLS } },
	[JR_NMI] = { { "duration_ns", D_V0 }, { "handler", D_KSYM } },
	[JR_THREAD] = { { "duration_ns", D_V0 },
			{ "pid", D_ID },
			{ "comm", D_NAME } },
	[JR_SUMMARY] = { { "runtime_ns", D_V0 },
			 { "noise_ns", D_V1 },
			 { "max_gap_ns", D_V2 },
			 { "iterations", D_V3 },
			 { "resolution_ps", D_V4 },
			 { "self_ns", D_V5 },
			 { "anomalies", D_V6 },
			 { "anomaly_mask", D_ID },
			 { "irqs_off", D_CLS, true },
			 { "held", D_ID2, true } },
	[JR_STOP] = { { "value_ns", D_V0 },
		      { "limit_ns", D_V1 },
		      { "reason", D_CLS } },
	[JR_DETAIL] = { { "wall_ns", D_V0 },
			{ "common_pid", D_V1 },
			{ "kind", D_CLS },
			{ "dep", D_ID },
			{ "cls", D_ID2 },
			{ "fn", D_KSYM } },
};

/* jr_decoder_init - find every event and field of the table. */
int jr_decoder_init(struct jr_stream *s, struct jr_err *e)
{
	int t, i;

	for (t = 0; t < JR_NR_TYPES; t++) {
		if (!jr_event_names[t])
			continue;
		s->ev[t] = tep_find_event_by_name(s->tep, "jitmod",
						  jr_event_names[t]);
		if (!s->ev[t] && jr_event_optional[t])
			continue;
		if (!s->ev[t])
			return jr_fail(
				e, -EINVAL,
				"event jitmod:%s missing: jitmod too old?",
				jr_event_names[t]);
		if (!s->type_fld)
			s->type_fld =
				tep_find_common_field(s->ev[t], "common_type");
		for (i = 0; i < JR_MAX_FIELDS && jr_fields[t][i].field; i++) {
			s->fld[t][i] = tep_find_any_field(
				s->ev[t], jr_fields[t][i].field);
			if (!s->fld[t][i] && !jr_fields[t][i].optional)
				return jr_fail(
					e, -EINVAL,
					"jitmod:%s has no field %s: jitmod too old?",
					jr_event_names[t],
					jr_fields[t][i].field);
		}
	}
	if (!s->type_fld)
		return jr_fail(e, -EINVAL,
			       "the jitmod events have no common_type field");
	return 0;
}

/*
 * jr_num - number field f of rec, unsigned, by the offset found when the
 * stream opened; 0 when the field does not lie inside the record.  It
 * reads what tep_read_number_field() reads, without its per-call lookups:
 * this runs for every field of every event.
 */
static uint64_t jr_num(const struct tep_format_field *f,
		       const struct tep_record *rec)
{
	const char *p = (const char *)rec->data + f->offset;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (f->offset < 0 || f->offset + f->size > rec->size)
		return 0;
	switch (f->size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	case 8:
		memcpy(&v64, p, 8);
		return v64;
	default:
		return 0;
	}
}

/*
 * jr_str - string field f of rec into buf, by the offset found when the
 * stream opened: a char array, or a __string (__data_loc, __rel_loc)
 * whose 32-bit location word gives offset and length.  "?" when the
 * field does not lie inside the record.
 */
static void jr_str(const struct tep_format_field *f,
		   const struct tep_record *rec, char *buf, size_t len)
{
	const char *data = rec->data;
	unsigned int off = f->offset, flen = f->size;
	uint32_t loc;
	size_t n;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (f->offset < 0 || f->offset + 4 > rec->size)
			goto bad;
		memcpy(&loc, data + f->offset, sizeof(loc));
		off = loc & 0xffff;
		flen = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (!flen || off + flen > (unsigned int)rec->size)
		goto bad;
	n = strnlen(data + off, flen);
	if (n >= len)
		n = len - 1;
	memcpy(buf, data + off, n);
	buf[n] = '\0';
	return;
bad:
	snprintf(buf, len, "?");
}

/* jr_decode - one raw jitmod record of type t into r. */
static int jr_decode(struct jr_stream *s, int t, struct tep_record *rec,
		     int cpu, struct jr_rec *r)
{
	struct jr_err e;
	uint64_t v;
	int i;

	memset(r, 0, sizeof(*r));
	r->ts_ns = rec->ts;
	r->cpu = cpu;
	r->type = t;
	for (i = 0; i < JR_MAX_FIELDS && jr_fields[t][i].field; i++) {
		enum jr_dst d = jr_fields[t][i].dst;

		if (!s->fld[t][i])
			continue;
		if (d == D_NAME) {
			jr_str(s->fld[t][i], rec, r->name, sizeof(r->name));
			continue;
		}
		v = jr_num(s->fld[t][i], rec);
		if (d <= D_V6)
			r->v[d - D_V0] = v;
		else if (d == D_CLS)
			r->cls = (int16_t)v;
		else if (d == D_ID)
			r->id = (int32_t)v;
		else if (d == D_ID2)
			r->id2 = (int32_t)v;
		else
			jr_ksym(v, r->name, sizeof(r->name));
	}
	return jr_rec_check(r, &e) ? -EINVAL : 0;
}

/*
 * jr_stream_record - one raw record of cpu's buffer to the sink; 1 when
 * the sink failed (s->sink_err says how), else 0.  Records of other
 * events and records that do not decode are passed over.
 */
int jr_stream_record(struct jr_stream *s, struct tep_record *rec, int cpu)
{
	int id = (int)jr_num(s->type_fld, rec);
	struct jr_rec r;
	int t;

	for (t = 0; t < JR_NR_TYPES; t++)
		if (s->ev[t] && s->ev[t]->id == id)
			break;
	if (t == JR_NR_TYPES || jr_decode(s, t, rec, cpu, &r))
		return 0;
	s->sink_err = s->sink(s->ctx, &r);
	return s->sink_err ? 1 : 0;
}
