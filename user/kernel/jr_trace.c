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

#include "kernel/jr_trace.h"

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

	memset(s, 0, sizeof(*s));
	s->sink = sink;
	s->ctx = ctx;
	snprintf(s->name, sizeof(s->name), "jitread-%d", getpid());
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst)
		return jr_fail(e, -EINVAL,
			       "cannot create tracefs instance %s: %s", s->name,
			       strerror(errno));
	s->tep = tracefs_local_events_system(NULL, systems);
	if (!s->tep) {
		jr_fail(e, -EINVAL, "cannot read the jitmod event formats");
		goto err_destroy;
	}
	if (jr_decoder_init(s, e))
		goto err_destroy;
	if (buffer_kb)
		tracefs_instance_set_buffer_size(s->inst, buffer_kb, -1);
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
