/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_xevents.h - rtla's -e: other events, traced in an instance of their
 * own beside jitread's, for the trace file a stop or the end saves.
 */
#ifndef JR_XEVENTS_H
#define JR_XEVENTS_H

#include <stdio.h>

#include "common/jr_err.h"

#define JR_XEVENT_SUFFIX "-ev" /* the instance: jitread's name and this */

/* -e SYS[:EVENT], with the --filter and --trigger that followed it */
struct jr_xevent {
	char sys[64];
	char event[64]; /* "": every event of sys */
	const char *filter;
	const char *trigger;
};

struct tracefs_instance;

/*
 * jr_xevents_open - instance NAME with each of ev[0..nr) enabled, its
 * filter and trigger set; 0, or an error with e and nothing left behind
 */
int jr_xevents_open(struct tracefs_instance **inst, const char *name,
		    const struct jr_xevent *ev, int nr, size_t buffer_kb,
		    struct jr_err *e);
/* jr_xevents_save - what the instance's ring buffer holds, as text, to f */
int jr_xevents_save(struct tracefs_instance *inst, FILE *f);
/*
 * jr_xevent_hist - the hist file of ev's "hist:..." trigger as it stands
 * (malloc'd), or NULL: no such trigger, or nothing to read
 */
char *jr_xevent_hist(struct tracefs_instance *inst, const struct jr_xevent *ev);
void jr_xevents_close(struct tracefs_instance **inst,
		      const struct jr_xevent *ev, int nr);

#endif /* JR_XEVENTS_H */
