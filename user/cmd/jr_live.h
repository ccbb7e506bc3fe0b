/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_live.h - a live run over jitmod's events: hist, top and record.
 */
#ifndef JR_LIVE_H
#define JR_LIVE_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/jr_live_cgroup.h"
#include "cmd/jr_opts.h"
#include "cmd/jr_out.h"
#include "core/jr_model.h"
#include "core/jr_rec.h"
#include "kernel/jr_kparams.h"

struct jr_live;

/* called about once a second, and once more at the end (last = true) */
typedef void (*jr_frame_fn)(struct jr_live *c, double elapsed, bool last);

struct jr_live {
	struct jr_opts *o;
	struct jr_model model;
	struct jr_model window; /* the events since the last frame */
	struct jr_sysinfo sys;
	struct jr_ksave saved; /* jitmod's settings the run changed */
	struct jr_outputs outs; /* opened before the run */
	int fail; /* an exit code once the run failed; why says why */
	struct jr_err why;
	FILE *rec;
	uint64_t recorded;
	uint64_t lost; /* events the ring buffers lost, from JR_LOST */
	struct jr_rec *tail;
	uint64_t nr_tail;
	bool stopped; /* jitmod stopped, and has not sampled again */
	uint64_t nr_stops;
	struct jr_rec last_stop;
	bool stop_unseen; /* the stop known from enable, not its event */
	double disabled_at; /* when enable first read 0, or 0 */
	bool store_only; /* record: write the events, build no model */
	bool windowed; /* top: also keep the events since the last frame */
	bool mono_clock; /* stamp events with CLOCK_MONOTONIC, not "local" */
	struct tracefs_instance *xev; /* -e's events, for the trace file */
	struct jr_cgroup_move cg; /* -C's samplers, to put back */
	jr_frame_fn frame;
};

void jr_sleep_until(double t);
int jr_live_run(struct jr_live *c, int argc, char **argv);
int jr_live_end(struct jr_live *c, int ret);
int jr_live_exit(const struct jr_live *c, int ret);
void jr_live_free(struct jr_live *c);

#endif /* JR_LIVE_H */
