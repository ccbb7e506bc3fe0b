// SPDX-License-Identifier: GPL-2.0
/*
 * jr_trace.c - read jitmod's events through libtracefs and libtraceevent.
 *
 * jitread works in an instance of its own, "jitread-<pid>", with only the
 * jitmod events enabled, so the top-level buffer and other users' traces
 * are never touched.  An instance left behind by a reader that was killed
 * is removed on the next start: its pid no longer exists.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#include "common/jr_ksym.h"
#include "kernel/jr_trace.h"

static const char *const jr_event_names[JR_NR_TYPES] = {
	[JR_GAP] = "gap",
	[JR_IRQ] = "irq_noise",
	[JR_SOFTIRQ] = "softirq_noise",
	[JR_NMI] = "nmi_noise",
	[JR_THREAD] = "thread_noise",
	[JR_SUMMARY] = "summary",
	[JR_STOP] = "stop",
};

static uint64_t jr_num(struct tep_event *ev, struct tep_record *rec,
		       const char *field)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, ev, field, rec, &v, 0);
	return v;
}

static void jr_str(struct tep_event *ev, struct tep_record *rec,
		   const char *field, char *buf, size_t len)
{
	int flen = 0;
	const char *p = tep_get_field_raw(NULL, ev, field, rec, &flen, 0);
	size_t n;

	if (!p || flen <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	n = strnlen(p, flen);
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

/* jr_decode - one raw jitmod record into a jr_rec. */
static int jr_decode(int type, struct tep_event *ev, struct tep_record *rec,
		     int cpu, struct jr_rec *r)
{
	struct jr_err e;

	memset(r, 0, sizeof(*r));
	r->ts_ns = rec->ts;
	r->cpu = cpu;
	r->type = type;
	switch (type) {
	case JR_GAP:
		r->v[0] = jr_num(ev, rec, "duration_ns");
		r->v[1] = jr_num(ev, rec, "hw_ns");
		r->v[2] = jr_num(ev, rec, "steal_ns");
		r->cls = (int16_t)jr_num(ev, rec, "cls");
		r->id = (int32_t)jr_num(ev, rec, "smi_count");
		break;
	case JR_IRQ:
		r->v[0] = jr_num(ev, rec, "duration_ns");
		r->id = (int32_t)jr_num(ev, rec, "irq");
		r->id2 = (int32_t)jr_num(ev, rec, "vector");
		jr_str(ev, rec, "name", r->name, sizeof(r->name));
		break;
	case JR_SOFTIRQ:
		r->v[0] = jr_num(ev, rec, "duration_ns");
		r->cls = (int16_t)jr_num(ev, rec, "vec");
		break;
	case JR_NMI:
		r->v[0] = jr_num(ev, rec, "duration_ns");
		jr_ksym(jr_num(ev, rec, "handler"), r->name, sizeof(r->name));
		break;
	case JR_THREAD:
		r->v[0] = jr_num(ev, rec, "duration_ns");
		r->id = (int32_t)jr_num(ev, rec, "pid");
		jr_str(ev, rec, "comm", r->name, sizeof(r->name));
		break;
	case JR_SUMMARY:
		r->v[0] = jr_num(ev, rec, "runtime_ns");
		r->v[1] = jr_num(ev, rec, "noise_ns");
		r->v[2] = jr_num(ev, rec, "max_gap_ns");
		r->v[3] = jr_num(ev, rec, "iterations");
		r->v[4] = jr_num(ev, rec, "resolution_ps");
		r->v[5] = jr_num(ev, rec, "self_ns");
		r->v[6] = jr_num(ev, rec, "anomalies");
		r->id = (int32_t)jr_num(ev, rec, "anomaly_mask");
		break;
	case JR_STOP:
		r->v[0] = jr_num(ev, rec, "value_ns");
		r->v[1] = jr_num(ev, rec, "limit_ns");
		r->cls = (int16_t)jr_num(ev, rec, "reason");
		break;
	}
	return jr_rec_check(r, &e) ? -EINVAL : 0;
}

static int jr_on_record(struct tep_event *ev, struct tep_record *rec, int cpu,
			void *ctx)
{
	struct jr_stream *s = ctx;
	struct jr_rec r;
	int t;

	for (t = 0; t < JR_NR_TYPES; t++)
		if (s->ev[t] && s->ev[t]->id == ev->id)
			break;
	if (t == JR_NR_TYPES || jr_decode(t, ev, rec, cpu, &r))
		return 0;
	s->sink_err = s->sink(s->ctx, &r);
	return s->sink_err ? 1 : 0;
}

/* jr_lost_now - events the ring buffer lost on cpu so far. */
static uint64_t jr_lost_now(struct jr_stream *s, int cpu)
{
	char file[64], *text, *p;
	uint64_t lost = 0;
	static const char *const keys[] = { "\noverrun: ", "\ncommit overrun: ",
					    "\ndropped events: " };
	size_t i;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(s->inst, file, NULL);
	if (!text)
		return 0;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		p = strstr(text, keys[i]); /* "entries:" is line 1 */
		if (p)
			lost += strtoull(p + strlen(keys[i]), NULL, 10);
	}
	free(text);
	return lost;
}

/* jr_stream_drain - hand every event buffered now to the sink. */
int jr_stream_drain(struct jr_stream *s)
{
	struct jr_rec r;
	int cpu, ret, err;

	errno = 0;
	ret = tracefs_iterate_raw_events(s->tep, s->inst, NULL, 0, jr_on_record,
					 s);
	/* libtracefs says only -1: keep the errno of the call that failed */
	err = ret < 0 ? (errno ? -errno : -EIO) : 0;
	if (s->sink_err)
		return s->sink_err;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		uint64_t lost = jr_lost_now(s, cpu);

		if (lost <= s->lost_seen[cpu])
			continue;
		memset(&r, 0, sizeof(r));
		r.type = JR_LOST;
		r.cpu = cpu;
		r.v[0] = lost - s->lost_seen[cpu];
		s->lost_seen[cpu] = lost;
		ret = s->sink(s->ctx, &r);
		if (ret)
			return ret;
	}
	return err;
}

static int jr_stale_cb(const char *name, void *ctx)
{
	struct tracefs_instance *inst;
	int pid, *removed = ctx;

	if (sscanf(name, "jitread-%d", &pid) != 1 || pid <= 0 ||
	    !kill(pid, 0) || errno != ESRCH)
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return 0;
	if (!tracefs_instance_destroy(inst))
		(*removed)++;
	tracefs_instance_free(inst);
	return 0;
}

/* jr_remove_stale_instances - drop instances of readers that died. */
int jr_remove_stale_instances(void)
{
	int removed = 0;

	tracefs_instances_walk(jr_stale_cb, &removed);
	return removed;
}

int jr_stream_open(struct jr_stream *s, size_t buffer_kb, jr_sink_fn sink,
		   void *ctx, struct jr_err *e)
{
	const char *systems[] = { "jitmod", NULL };
	int t, cpu;

	memset(s, 0, sizeof(*s));
	s->sink = sink;
	s->ctx = ctx;
	s->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	s->lost_seen = calloc(s->nr_cpus, sizeof(*s->lost_seen));
	if (!s->lost_seen)
		return jr_fail(e, -ENOMEM, "out of memory");
	snprintf(s->name, sizeof(s->name), "jitread-%d", getpid());
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		jr_fail(e, -EINVAL, "cannot create tracefs instance %s: %s",
			s->name, strerror(errno));
		goto err_free;
	}
	s->tep = tracefs_local_events_system(NULL, systems);
	if (!s->tep) {
		jr_fail(e, -EINVAL, "cannot read the jitmod event formats");
		goto err_destroy;
	}
	for (t = 0; t < JR_NR_TYPES; t++) {
		if (!jr_event_names[t])
			continue;
		s->ev[t] = tep_find_event_by_name(s->tep, "jitmod",
						  jr_event_names[t]);
		if (!s->ev[t]) {
			jr_fail(e, -EINVAL,
				"event jitmod:%s missing: jitmod too old?",
				jr_event_names[t]);
			goto err_destroy;
		}
	}
	if (buffer_kb)
		tracefs_instance_set_buffer_size(s->inst, buffer_kb, -1);
	if (tracefs_event_enable(s->inst, "jitmod", NULL)) {
		jr_fail(e, -EINVAL, "cannot enable the jitmod events");
		goto err_destroy;
	}
	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		s->lost_seen[cpu] = jr_lost_now(s, cpu);
	return 0;

err_destroy:
	jr_stream_close(s);
	return -EINVAL;
err_free:
	free(s->lost_seen);
	s->lost_seen = NULL;
	return -EINVAL;
}

/* jr_stream_close - disable our events and remove our instance. */
void jr_stream_close(struct jr_stream *s)
{
	if (s->inst) {
		tracefs_event_disable(s->inst, "jitmod", NULL);
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	if (s->tep) {
		tep_free(s->tep);
		s->tep = NULL;
	}
	free(s->lost_seen);
	s->lost_seen = NULL;
}
