// SPDX-License-Identifier: GPL-2.0
/*
 * jr_trace.c - read jitmod's events through libtracefs and libtraceevent.
 *
 * jitread works in an instance of its own with only the jitmod events
 * enabled, so the top-level buffer and other users' traces are never
 * touched.  The instance is named "jitread-<pid>-<start>-<pidns>": the
 * pid, the process's start time (clock ticks since boot) and the inode of
 * its PID namespace.  An instance left behind by a reader that was killed
 * is removed on the next start when it belongs to this PID namespace and
 * no process with that pid and start time runs; a pid that was reused
 * does not keep it, and another namespace's readers are never judged.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#include "kernel/jr_trace.h"
#include "kernel/jr_xevents.h"

/* jr_pidns - the inode of our PID namespace, 0 if it cannot be read. */
static unsigned long jr_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned long)st.st_ino;
}

/* jr_start_time - pid's start time in clock ticks, 0 if it is gone. */
static unsigned long long jr_start_time(int pid)
{
	unsigned long long start = 0;
	char path[64], buf[1024], *p;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	p = strrchr(buf, ')'); /* the comm may hold spaces and parens */
	for (i = 0; p && i < 20; i++) /* field 22 is the 20th after ")" */
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

static int jr_stale_cb(const char *name, void *ctx)
{
	struct tracefs_instance *inst;
	unsigned long long start;
	unsigned long ns;
	int pid, len = 0, *removed = ctx;

	/* jitread's instance, or the one of its -e events */
	if (sscanf(name, "jitread-%d-%llu-%lu%n", &pid, &start, &ns, &len) !=
		    3 ||
	    (name[len] && strcmp(name + len, JR_XEVENT_SUFFIX)) || pid <= 0 ||
	    !ns || ns != jr_pidns() || jr_start_time(pid) == start)
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

/*
 * jr_load_formats - a tep handle that knows the jitmod events and nothing
 * else.  libtracefs's tracefs_local_events_system() also parses all of
 * /proc/kallsyms into the handle, which costs a second of CPU on a small
 * machine and is never used here: jitread resolves the few addresses its
 * events carry itself (common/jr_ksym.c), from symbols it loads once.
 */
static struct tep_handle *jr_load_formats(void)
{
	char **events = tracefs_system_events(NULL, "jitmod");
	struct tep_handle *tep = NULL;
	int i, size, bad = 0;
	char *fmt;

	if (!events)
		return NULL;
	tep = tep_alloc();
	if (!tep)
		goto out;
	tep_set_file_bigendian(tep, tep_is_bigendian());
	tep_set_local_bigendian(tep, tep_is_bigendian());
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	for (i = 0; events[i]; i++) {
		fmt = tracefs_event_file_read(NULL, "jitmod", events[i],
					      "format", &size);
		if (!fmt || tep_parse_event(tep, fmt, size, "jitmod"))
			bad++;
		free(fmt);
	}
	if (bad == i) { /* not one format: jitmod went away meanwhile */
		tep_free(tep);
		tep = NULL;
	}
out:
	tracefs_list_free(events);
	return tep;
}

/* what jr_stream_wait() assumes when the buffer's size cannot be read */
#define JR_LEAST_BUFFER_KB 64

int jr_stream_open(struct jr_stream *s, size_t buffer_kb, jr_sink_fn sink,
		   void *ctx, struct jr_err *e)
{
	ssize_t kb;

	memset(s, 0, sizeof(*s));
	s->sink = sink;
	s->ctx = ctx;
	snprintf(s->name, sizeof(s->name), "jitread-%d-%llu-%lu", getpid(),
		 jr_start_time(getpid()), jr_pidns());
	if (tracefs_instance_exists(s->name))
		return jr_fail(e, -EEXIST, "tracefs instance %s exists already",
			       s->name);
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst)
		return jr_fail(e, -EINVAL,
			       "cannot create tracefs instance %s: %s", s->name,
			       strerror(errno));
	s->tep = jr_load_formats();
	if (!s->tep) {
		jr_fail(e, -EINVAL, "cannot read the jitmod event formats");
		goto err_destroy;
	}
	if (jr_decoder_init(s, e))
		goto err_destroy;
	if (buffer_kb)
		tracefs_instance_set_buffer_size(s->inst, buffer_kb, -1);
	kb = tracefs_instance_get_buffer_size(s->inst, 0);
	s->buffer_bytes = (kb > 0 ? (uint64_t)kb : JR_LEAST_BUFFER_KB) << 10;
	if (jr_reader_init(s, e))
		goto err_destroy;
	if (tracefs_event_enable(s->inst, "jitmod", NULL)) {
		jr_fail(e, -EINVAL, "cannot enable the jitmod events");
		goto err_destroy;
	}
	return 0;

err_destroy:
	jr_stream_close(s);
	return -EINVAL;
}

/* jr_stream_close - disable our events and remove our instance. */
void jr_stream_close(struct jr_stream *s)
{
	if (s->inst)
		tracefs_event_disable(s->inst, "jitmod", NULL);
	jr_reader_free(s); /* an open trace_pipe_raw keeps the instance busy */
	if (s->inst) {
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	if (s->tep) {
		tep_free(s->tep);
		s->tep = NULL;
	}
}
