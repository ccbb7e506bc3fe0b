// SPDX-License-Identifier: GPL-2.0
/*
 * jr_trace_read.c - the live reader: jitmod's per-CPU buffers, read
 * through handles kept open.
 *
 * Only the CPUs jitmod samples hold its events, so only their
 * trace_pipe_raw files are opened, once each, and read without blocking
 * at every poll; the sub-buffers are parsed with libtraceevent's kbuffer.
 * Which CPUs jitmod samples, and how many events each CPU's ring buffer
 * lost, is looked at once a second and at the end.  Callers sleep
 * between polls with jr_stream_wait(), as long as jr_poll.c judges.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#include "common/jr_parse.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"
#include "kernel/jr_kparams.h"
#include "kernel/jr_poll.h"
#include "kernel/jr_trace.h"

#define JR_CHECK_NS 1000000000ULL

/* jr_lost_now - events the ring buffer lost on cpu so far. */
static uint64_t jr_lost_now(struct jr_stream *s, int cpu)
{
	static const char *const keys[] = { "\noverrun: ", "\ncommit overrun: ",
					    "\ndropped events: " };
	char file[64], *text, *p;
	uint64_t lost = 0;
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

/* jr_open_cpu - a handle on cpu's buffer, and its losses so far. */
static int jr_open_cpu(struct jr_stream *s, int cpu)
{
	int size;
	void *page;

	s->tcpu[cpu] = tracefs_cpu_open(s->inst, cpu, true);
	if (!s->tcpu[cpu])
		return -errno ?: -EIO;
	size = tracefs_cpu_read_size(s->tcpu[cpu]);
	if (size > s->page_size) {
		page = realloc(s->page, size);
		if (!page)
			return -ENOMEM;
		s->page = page;
		s->page_size = size;
	}
	s->lost_seen[cpu] = jr_lost_now(s, cpu);
	return 0;
}

/*
 * jr_follow_cpus - open the buffers of the CPUs jitmod samples now.  A
 * CPU it stopped sampling stays open: its buffer may still hold events.
 */
static int jr_follow_cpus(struct jr_stream *s)
{
	unsigned char set[JR_MAX_CPUS];
	char text[512];
	int cpu, ret;

	if (jr_read_cpulist(JR_PARAMS_DIR "/cpus", set, text, sizeof(text)))
		return 0; /* jitmod is going away: keep what is open */
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (!set[cpu] || s->tcpu[cpu])
			continue;
		ret = jr_open_cpu(s, cpu);
		if (ret)
			return ret;
	}
	return 0;
}

int jr_reader_init(struct jr_stream *s, struct jr_err *e)
{
	int ret;

	s->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (s->nr_cpus > JR_MAX_CPUS)
		s->nr_cpus = JR_MAX_CPUS;
	s->tcpu = calloc(s->nr_cpus, sizeof(*s->tcpu));
	s->lost_seen = calloc(s->nr_cpus, sizeof(*s->lost_seen));
	s->page_size = getpagesize(); /* grown to the sub-buffer size */
	s->page = malloc(s->page_size);
	s->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 :
						    KBUFFER_LSIZE_4,
				KBUFFER_ENDIAN_LITTLE);
	if (!s->tcpu || !s->lost_seen || !s->page || !s->kbuf)
		return jr_fail(e, -ENOMEM, "out of memory");
	ret = jr_follow_cpus(s);
	if (ret)
		return jr_fail(e, ret, "cannot open %s's per-CPU buffers: %s",
			       s->name, strerror(-ret));
	s->next_check_ns = jr_mono_ns() + JR_CHECK_NS;
	return 0;
}

void jr_reader_free(struct jr_stream *s)
{
	int cpu;

	for (cpu = 0; s->tcpu && cpu < s->nr_cpus; cpu++)
		if (s->tcpu[cpu])
			tracefs_cpu_close(s->tcpu[cpu]);
	free(s->tcpu);
	s->tcpu = NULL;
	free(s->lost_seen);
	s->lost_seen = NULL;
	free(s->page);
	s->page = NULL;
	if (s->kbuf)
		kbuffer_free(s->kbuf);
	s->kbuf = NULL;
}

/* jr_read_page - every event of the sub-buffer in s->page; 1: sink failed */
static int jr_read_page(struct jr_stream *s, int cpu)
{
	unsigned long long ts;
	struct tep_record rec;
	void *data;

	if (kbuffer_load_subbuffer(s->kbuf, s->page))
		return 0;
	s->bytes += kbuffer_subbuffer_size(s->kbuf);
	for (data = kbuffer_read_event(s->kbuf, &ts); data;
	     data = kbuffer_next_event(s->kbuf, &ts)) {
		memset(&rec, 0, sizeof(rec));
		rec.ts = ts;
		rec.cpu = cpu;
		rec.data = data;
		rec.size = kbuffer_event_size(s->kbuf);
		if (jr_stream_record(s, &rec, cpu))
			return 1;
	}
	return 0;
}

/* jr_read_cpu - everything cpu's buffer holds now; 0 or -errno. */
static int jr_read_cpu(struct jr_stream *s, int cpu)
{
	int n;

	for (;;) {
		n = tracefs_cpu_read(s->tcpu[cpu], s->page, true);
		if (n <= 0)
			return n < 0 && errno != EAGAIN ? -errno : 0;
		if (jr_read_page(s, cpu))
			return s->sink_err;
	}
}

/* jr_count_lost - a JR_LOST record per CPU whose buffer lost events. */
static int jr_count_lost(struct jr_stream *s)
{
	struct jr_rec r;
	int cpu, ret;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		uint64_t lost;

		if (!s->tcpu[cpu])
			continue;
		lost = jr_lost_now(s, cpu);
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
	return 0;
}

static int jr_drain(struct jr_stream *s, bool check)
{
	int cpu, ret;

	if (check) {
		ret = jr_follow_cpus(s);
		if (ret)
			return ret;
	}
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (!s->tcpu[cpu])
			continue;
		ret = jr_read_cpu(s, cpu);
		if (ret)
			return ret;
	}
	return check ? jr_count_lost(s) : 0;
}

/* jr_stream_drain - hand every event buffered now to the sink. */
int jr_stream_drain(struct jr_stream *s)
{
	uint64_t now = jr_mono_ns();
	bool check = now >= s->next_check_ns;

	if (check)
		s->next_check_ns = now + JR_CHECK_NS;
	return jr_drain(s, check);
}

/* jr_stream_finish - the last drain, losses included. */
int jr_stream_finish(struct jr_stream *s)
{
	return jr_drain(s, true);
}

/* jr_stream_wait - sleep until the next poll (see jr_poll.c). */
void jr_stream_wait(struct jr_stream *s)
{
	uint64_t now = jr_mono_ns();

	if (s->waited_ns)
		s->rate = jr_poll_rate(s->rate, s->bytes - s->bytes_waited,
				       now - s->waited_ns);
	s->bytes_waited = s->bytes;
	usleep(jr_poll_sleep_ns(s->buffer_bytes, s->rate) / 1000);
	s->waited_ns = jr_mono_ns();
}
