// SPDX-License-Identifier: GPL-2.0
/*
 * jr_xevents.c - rtla's -e, --filter and --trigger.  jitread's own
 * instance is read as it fills, so its ring keeps nothing to save; the
 * other events go to a second instance, never read, whose ring holds the
 * latest of them when a stop or the end saves the trace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs/tracefs.h>

#include "kernel/jr_xevents.h"

/* jr_xevent_write - TEXT into FILE of ev (its system's, for a whole system) */
static int jr_xevent_write(struct tracefs_instance *inst,
			   const struct jr_xevent *ev, const char *file,
			   const char *text)
{
	char path[200];

	if (ev->event[0])
		snprintf(path, sizeof(path), "events/%s/%s/%s", ev->sys,
			 ev->event, file);
	else
		snprintf(path, sizeof(path), "events/%s/%s", ev->sys, file);
	return tracefs_instance_file_write(inst, path, text) < 0 ? -EINVAL : 0;
}

/*
 * jr_xevent_set - its filter and trigger, then enable it: an event
 * enabled first would be traced unfiltered until the filter is written
 */
static int jr_xevent_set(struct tracefs_instance *inst,
			 const struct jr_xevent *ev, struct jr_err *e)
{
	const char *sep = ev->event[0] ? ":" : "";
	char path[200];

	snprintf(path, sizeof(path), "events/%s%s%s", ev->sys,
		 ev->event[0] ? "/" : "", ev->event);
	if (!tracefs_dir_exists(inst, path))
		return jr_fail(e, -ENOENT, "-e %s%s%s: no such event", ev->sys,
			       sep, ev->event);
	if (ev->filter && jr_xevent_write(inst, ev, "filter", ev->filter))
		return jr_fail(e, -EINVAL,
			       "-e %s%s%s: the kernel refused --filter '%s'",
			       ev->sys, sep, ev->event, ev->filter);
	if (ev->trigger && !ev->event[0])
		return jr_fail(e, -EINVAL,
			       "-e %s: --trigger needs one event, SYS:EVENT",
			       ev->sys);
	if (ev->trigger && jr_xevent_write(inst, ev, "trigger", ev->trigger))
		return jr_fail(e, -EINVAL,
			       "-e %s:%s: the kernel refused --trigger '%s'",
			       ev->sys, ev->event, ev->trigger);
	if (tracefs_event_enable(inst, ev->sys,
				 ev->event[0] ? ev->event : NULL))
		return jr_fail(e, -EINVAL, "-e %s%s%s: cannot enable it",
			       ev->sys, sep, ev->event);
	return 0;
}

int jr_xevents_open(struct tracefs_instance **inst, const char *name,
		    const struct jr_xevent *ev, int nr, size_t buffer_kb,
		    struct jr_err *e)
{
	int i, ret = 0;

	if (tracefs_instance_exists(name))
		return jr_fail(e, -EEXIST, "tracefs instance %s exists already",
			       name);
	*inst = tracefs_instance_create(name);
	if (!*inst)
		return jr_fail(e, -EINVAL,
			       "cannot create tracefs instance %s: %s", name,
			       strerror(errno));
	if (buffer_kb)
		tracefs_instance_set_buffer_size(*inst, buffer_kb, -1);
	for (i = 0; i < nr && !ret; i++)
		ret = jr_xevent_set(*inst, &ev[i], e);
	if (ret)
		jr_xevents_close(inst, ev, i);
	return ret;
}

int jr_xevents_save(struct tracefs_instance *inst, FILE *f)
{
	char *text;
	int size = 0;

	text = tracefs_instance_file_read(inst, "trace", &size);
	if (!text)
		return -EIO;
	fwrite(text, 1, (size_t)size, f);
	free(text);
	return 0;
}

char *jr_xevent_hist(struct tracefs_instance *inst, const struct jr_xevent *ev)
{
	char path[200];

	if (!inst || !ev->event[0] || !ev->trigger ||
	    strncmp(ev->trigger, "hist", 4))
		return NULL;
	snprintf(path, sizeof(path), "events/%s/%s/hist", ev->sys, ev->event);
	return tracefs_instance_file_read(inst, path, NULL);
}

void jr_xevents_close(struct tracefs_instance **inst,
		      const struct jr_xevent *ev, int nr)
{
	char *undo;
	int i;

	if (!*inst)
		return;
	tracefs_event_disable(*inst, NULL, NULL);
	/* a trigger is taken off by its own text after a '!' */
	for (i = 0; i < nr; i++) {
		if (!ev[i].trigger || !ev[i].event[0] ||
		    asprintf(&undo, "!%s", ev[i].trigger) < 0)
			continue;
		jr_xevent_write(*inst, &ev[i], "trigger", undo);
		free(undo);
	}
	tracefs_instance_destroy(*inst);
	tracefs_instance_free(*inst);
	*inst = NULL;
}
