// SPDX-License-Identifier: GPL-2.0
/*
 * jr_live.c - a live run over jitmod's events: hist, top and record.
 *
 * The run reads jitmod's events from a tracefs instance of its own until
 * the duration ends, ^C, jitmod stops on a threshold (unless
 * --on-threshold continue samples again), or jitmod goes away.  Whatever
 * it set in jitmod (-T, -s, -S) is put back at the end, also when it dies
 * of an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "cmd/jr_live.h"
#include "cmd/jr_live_setup.h"
#include "cmd/jr_opts_rtla.h"
#include "common/jr_ksym.h"
#include "common/jr_safe.h"
#include "common/jr_text.h"
#include "cmd/jr_out.h"
#include "common/jr_sys.h"
#include "core/jr_auto.h"
#include "kernel/jr_trace.h"
#include "kernel/jr_sysinfo.h"

#define JR_TAIL 4096 /* records kept for --on-threshold trace */
#define JR_GONE_CHECK_S 0.1 /* how often to look whether jitmod is there */
#define JR_UNSEEN_S 1.0 /* enable read 0 this long: a stop, event or not */

static bool jr_wanted(const struct jr_opts *o, const struct jr_rec *r)
{
	return !o->have_cpus || o->cpus[r->cpu];
}

/* jr_sink - every decoded record comes through here. */
static int jr_sink(void *data, const struct jr_rec *r)
{
	struct jr_live *c = data;
	int ret;

	if (c->rec && jr_write(c->rec, r)) {
		/* the recording is lost; the report still covers the run */
		c->fail = jr_fail(&c->why, JR_EXIT_RUN, "%s: write failed",
				  c->o->live.record);
		fclose(c->rec);
		c->rec = NULL;
		if (c->store_only)
			return -EIO;
	} else if (c->rec) {
		c->recorded++;
	}
	if (r->type == JR_LOST)
		c->lost += r->v[0];
	if (r->type == JR_STOP) {
		/* a stop halts every sampler, reported CPU or not */
		c->stopped = true;
		if (!c->stop_unseen)
			c->nr_stops++;
		c->stop_unseen = false;
		c->last_stop = *r; /* for the actions' message */
	}
	if (!jr_wanted(c->o, r))
		return 0;
	if (c->tail)
		c->tail[c->nr_tail++ % JR_TAIL] = *r;
	if (c->store_only)
		return 0;
	/* --hlog's errors are kept, and said at the end */
	if (c->outs.hlog.f)
		jr_hlog_add(&c->outs.hlog, r);
	ret = jr_model_add(&c->model, r);
	if (!ret && c->windowed)
		ret = jr_model_add(&c->window, r);
	return ret;
}

/* jr_sleep_until - a CLOCK_MONOTONIC time, in s; early on a stop signal */
void jr_sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t,
			       .tv_nsec = (long)((t - (time_t)t) * 1e9) };

	while (!jr_run_stop.sig &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
		       EINTR)
		;
}

static double jr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* jr_epoch_now - the wall clock, which dates --hlog's intervals. */
static double jr_epoch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void jr_save_tail(struct jr_live *c, const char *path, const char *when)
{
	uint64_t i = c->nr_tail > JR_TAIL ? c->nr_tail - JR_TAIL : 0;
	char key[64], shown[4 * sizeof(key)];
	struct jr_err e;
	FILE *f;
	int h;

	f = jr_safe_fopen(path, &e);
	if (!f) {
		jr_warn("%s", e.msg);
		return;
	}
	fprintf(f, "# the last %" PRIu64 " jitmod events before %s\n",
		c->nr_tail - i, when);
	if (c->xev) {
		fprintf(f,
			"# the -e events before %s, as their ring held them\n",
			when);
		if (jr_xevents_save(c->xev, f))
			jr_warn("%s: cannot read the -e events' trace", path);
		fprintf(f, "# the jitmod events\n");
	}
	for (; i < c->nr_tail; i++) {
		const struct jr_rec *r = &c->tail[i % JR_TAIL];

		if (jr_source_key(r, key, sizeof(key), &h) < 0)
			snprintf(key, sizeof(key), "%s",
				 r->type == JR_GAP  ? "gap" :
				 r->type == JR_STOP ? "stop" :
						      "summary");
		fprintf(f,
			"%" PRIu64 " cpu=%u %s v0=%" PRIu64 " v1=%" PRIu64 "\n",
			r->ts_ns, r->cpu,
			jr_text_safe(key, shown, sizeof(shown)), r->v[0],
			r->v[1]);
	}
	if (fclose(f))
		jr_warn("%s: write failed", path);
	else
		jr_warn("saved the last events to %s", path);
}

/*
 * jr_save_hists - each -e's hist trigger, as its hist file stands at the
 * end, to SYS_EVENT_hist.txt, as rtla saves them.
 */
static void jr_save_hists(struct jr_live *c)
{
	const struct jr_live_opts *l = &c->o->live;
	char path[160];
	struct jr_err e;
	char *text;
	FILE *f;
	int i;

	for (i = 0; i < l->nr_events; i++) {
		text = jr_xevent_hist(c->xev, &l->events[i]);
		if (!text)
			continue;
		snprintf(path, sizeof(path), "%s_%s_hist.txt", l->events[i].sys,
			 l->events[i].event);
		f = jr_safe_fopen(path, &e);
		if (!f) {
			jr_warn("%s", e.msg);
		} else {
			fputs(text, f);
			if (fclose(f))
				jr_warn("%s: write failed", path);
			else
				jr_warn("saved the -e %s:%s hist to %s",
					l->events[i].sys, l->events[i].event,
					path);
		}
		free(text);
	}
}

static void jr_run_actions(struct jr_live *c, const struct jr_actions *l,
			   const char *when)
{
	int i;

	for (i = 0; i < l->nr; i++) {
		const struct jr_action *a = &l->a[i];

		if (a->kind == JR_ACT_TRACE)
			jr_save_tail(c, a->arg, when);
		else if (a->kind == JR_ACT_EXEC && system(a->arg) == -1)
			jr_warn("cannot run '%s'", a->arg);
		else if (a->kind == JR_ACT_SIGNAL && kill(a->pid, a->sig))
			jr_warn("kill(%d, %d): %s", a->pid, a->sig,
				strerror(errno));
	}
}

/*
 * jr_auto - -a: the account of the stop, from the events kept for the
 * trace, oldest first; on stdout after the report, unless stdout carries
 * the JSON alone.
 */
static void jr_auto(struct jr_live *c)
{
	uint64_t n = c->nr_tail < JR_TAIL ? c->nr_tail : JR_TAIL;
	uint64_t first = c->nr_tail - n, i;
	struct jr_rec *recs;

	if (!c->o->live.auto_us || !c->tail)
		return;
	recs = malloc(n ? n * sizeof(*recs) : 1);
	if (!recs) {
		jr_warn("-a: out of memory for the analysis");
		return;
	}
	for (i = 0; i < n; i++)
		recs[i] = c->tail[(first + i) % JR_TAIL];
	jr_auto_account(c->o->out.quiet ? stderr : stdout, recs, n,
			&c->last_stop, c->o->out.div, c->o->out.unit);
	fflush(stdout);
	free(recs);
}

/* jr_on_stop - say why jitmod stopped and run --on-threshold's actions. */
static void jr_on_stop(struct jr_live *c)
{
	if (c->stop_unseen) {
		jr_warn("jitmod stopped (its enable reads 0 and a stop limit is set), but its stop event was not read: the ring buffer lost it, or the events were off on that CPU");
		jr_run_actions(c, &c->o->live.on_thr, "the stop");
		return;
	}
	jr_warn("jitmod stopped: %s %" PRIu64 " ns > %" PRIu64
		" ns on CPU %u%s",
		c->last_stop.cls ? "period noise" : "single gap",
		c->last_stop.v[0], c->last_stop.v[1], c->last_stop.cpu,
		c->o->live.on_thr.cont ? "; sampling again" : "");
	jr_auto(c);
	jr_run_actions(c, &c->o->live.on_thr, "the stop");
}

/*
 * jr_continue - --on-threshold continue: the actions, then jitmod samples
 * again.  0, or -EIO when it cannot be restarted (c->fail says why).
 */
static int jr_continue(struct jr_live *c)
{
	c->stopped = false;
	jr_on_stop(c);
	c->stop_unseen = false;
	c->disabled_at = 0;
	if (!jr_write_param("enable", 1))
		return 0;
	c->fail = jr_fail(&c->why, JR_EXIT_RUN,
			  "continue: cannot restart jitmod: %s",
			  strerror(errno));
	return -EIO;
}

/*
 * jr_warm_up - rtla's --warm-up: jitmod samples with its new settings
 * while nothing is read, until it ends or a stop signal comes.
 */
static void jr_warm_up(const struct jr_opts *o)
{
	if (o->debug)
		fprintf(stderr, "jitread: debug: warming up for %.3f s\n",
			o->live.warm_up_ns / 1e9);
	jr_sleep_until(jr_now() + o->live.warm_up_ns / 1e9);
}

/* jr_live_xevents - -e: their instance, where a trace file will hold them */
static void jr_live_xevents(struct jr_live *c, const struct jr_stream *s)
{
	const struct jr_live_opts *l = &c->o->live;
	char name[sizeof(s->name) + sizeof(JR_XEVENT_SUFFIX)];
	struct jr_err e;
	int i, traced = 0;

	if (!l->nr_events)
		return;
	for (i = 0; i < l->on_thr.nr; i++)
		traced += l->on_thr.a[i].kind == JR_ACT_TRACE;
	for (i = 0; i < l->on_end.nr; i++)
		traced += l->on_end.a[i].kind == JR_ACT_TRACE;
	if (!traced) {
		jr_warn("-e: the events go into a trace file, and no -t, -a or trace action asks for one");
		return;
	}
	snprintf(name, sizeof(name), "%s%s", s->name, JR_XEVENT_SUFFIX);
	if (jr_xevents_open(&c->xev, name, l->events, l->nr_events,
			    l->buffer_kb, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	if (c->o->debug)
		fprintf(stderr, "jitread: debug: -e events in instance %s\n",
			name);
}

/* jr_live_start - checks, settings, the recording and the stream. */
static void jr_live_start(struct jr_live *c, struct jr_stream *s, int argc,
			  char **argv)
{
	struct jr_opts *o = c->o;
	struct jr_err e;
	int removed;

	jr_model_of(&c->model, o);
	jr_model_of(&c->window, o);
	jr_opts_debug(o);
	jr_preflight(o);
	jr_outputs_open(&c->outs, o, jr_epoch_now());
	jr_sysinfo_fill(&c->sys, argc, argv);
	if (o->live.record &&
	    jr_writer_open(&c->rec, o->live.record, &c->sys, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	jr_set_params(o, &c->saved);
	jr_cgroup_join(o, &c->saved, &c->cg);
	removed = jr_remove_stale_instances();
	if (removed && !o->out.quiet)
		jr_warn("removed %d stale instance(s)", removed);
	jr_catch_signals();
	if (o->live.warm_up_ns)
		jr_warm_up(o);
	if (o->live.on_thr.nr || o->live.on_end.nr) {
		c->tail = calloc(JR_TAIL, sizeof(*c->tail));
		if (!c->tail)
			jr_die(JR_EXIT_RUN, "out of memory");
	}
	if (jr_stream_open(s, o->live.buffer_kb, jr_sink, c, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	/* the instance is empty yet: changing its clock loses nothing */
	if (c->mono_clock &&
	    tracefs_instance_file_write(s->inst, "trace_clock", "mono") < 0)
		jr_die(JR_EXIT_RUN, "%s: cannot set trace_clock to mono",
		       s->name);
	jr_live_xevents(c, s);
	jr_set_stops(o, &c->saved);
	jr_ksym_preload(); /* jitmod's events carry kernel addresses */
	jr_ready(o->live.ready_file);
}

/*
 * jr_stop_unseen - jitmod has stopped though its stop event never came:
 * enable has read 0 for JR_UNSEEN_S while a stop limit is set (without
 * one, another run turned jitmod off).  A run waiting for the event
 * would wait for ever.
 */
static void jr_stop_unseen(struct jr_live *c, double now)
{
	uint64_t on = 1, stop_us = 0, total_us = 0;

	if (jr_read_param("enable", &on) || on ||
	    (jr_read_param("stop_us", &stop_us) ||
	     jr_read_param("stop_total_us", &total_us) ||
	     !(stop_us || total_us))) {
		c->disabled_at = 0;
		return;
	}
	if (!c->disabled_at)
		c->disabled_at = now;
	if (now - c->disabled_at < JR_UNSEEN_S)
		return;
	memset(&c->last_stop, 0, sizeof(c->last_stop));
	c->stopped = true;
	c->stop_unseen = true;
	c->nr_stops++;
}

/*
 * jr_live_run - read until the end of the run; calls c->frame at every
 * poll and once at the end.  0, or JR_EXIT_GONE when jitmod went away.
 * A failure while reading or recording ends the run and is kept in
 * c->fail and c->why: the caller writes its report, then jr_live_end()
 * says what failed and runs the stop actions.
 */
int jr_live_run(struct jr_live *c, int argc, char **argv)
{
	const struct jr_opts *o = c->o;
	double start, now, next_gone_check = 0;
	struct jr_stream s;
	int gone = 0, ret;

	jr_live_start(c, &s, argc, argv);
	start = jr_now();
	for (;;) {
		now = jr_now();
		ret = jr_stream_drain(&s);
		if (!ret && c->stopped && o->live.on_thr.cont)
			ret = jr_continue(c);
		if (ret || c->stopped || jr_run_stop.sig)
			break;
		if (now >= next_gone_check) { /* polls come at up to 100 Hz */
			next_gone_check = now + JR_GONE_CHECK_S;
			if (!jr_module_loaded()) {
				gone = 1;
				break;
			}
			jr_stop_unseen(c, now); /* read at the next pass */
		}
		if (o->live.duration_ns &&
		    (now - start) * 1e9 >= (double)o->live.duration_ns)
			break;
		if (c->frame)
			c->frame(c, now - start, false);
		jr_stream_wait(&s);
	}
	if (!gone && !ret)
		ret = jr_stream_finish(&s);
	jr_stream_close(&s);
	jr_restore_or_warn(&c->saved);
	jr_cgroup_leave(&c->cg);
	jr_model_finish(&c->model);
	if (c->frame)
		c->frame(c, jr_now() - start, true);
	if (c->rec && fclose(c->rec) && !c->fail)
		c->fail = jr_fail(&c->why, JR_EXIT_RUN, "%s: write failed",
				  o->live.record);
	c->rec = NULL;
	if (ret && !c->fail)
		c->fail = jr_fail(&c->why, JR_EXIT_RUN,
				  "reading the trace failed: %s",
				  strerror(ret < 0 ? -ret : ret));
	return gone ? JR_EXIT_GONE : 0;
}

/*
 * jr_live_end - after the report: say what failed or that jitmod went
 * away, then run the stop's and the end's actions.  The run's exit code.
 */
int jr_live_end(struct jr_live *c, int ret)
{
	if (c->stopped && c->o->live.on_thr.cont && ret != JR_EXIT_GONE)
		jr_continue(c); /* read at the end: jitmod is left sampling */
	else if (c->stopped)
		jr_on_stop(c);
	if (c->fail)
		jr_warn("%s", c->why.msg);
	if (ret == JR_EXIT_GONE)
		jr_warn("jitmod was unloaded during the run; the report covers what was read before");
	jr_run_actions(c, &c->o->live.on_end, "the end");
	jr_save_hists(c);
	jr_xevents_close(&c->xev, c->o->live.events, c->o->live.nr_events);
	return c->fail ? c->fail : ret;
}

/*
 * jr_live_exit - the exit code once everything else is judged: a run
 * that failed, or a --fail-if that held, keeps its code; else
 * JR_EXIT_STOPPED when jitmod stopped on a threshold, as rtla's exit
 * code tells a run that hit its stop condition.
 */
int jr_live_exit(const struct jr_live *c, int ret)
{
	if (ret)
		return ret;
	return c->nr_stops ? JR_EXIT_STOPPED : 0;
}

void jr_live_free(struct jr_live *c)
{
	jr_model_free(&c->model);
	jr_model_free(&c->window);
	free(c->tail);
	c->tail = NULL;
	jr_xevents_close(&c->xev, c->o->live.events, c->o->live.nr_events);
}
