// SPDX-License-Identifier: GPL-2.0
/*
 * jitread - report what jitmod saw: per-CPU noise histograms, the noise
 * sources by total time, and a summary; live from a tracefs instance of
 * its own, or offline from a recording (--replay).
 *
 * Exit status: 0 done, 1 cannot run (not root, no module, bad file),
 * 2 bad usage, 3 jitmod went away during the run (the report covers what
 * was read).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "jr_cli.h"
#include "jr_model.h"
#include "jr_report.h"
#include "jr_sys.h"
#include "jr_trace.h"
#include "jr_usermode.h"

#define JR_POLL_MS 100
#define JR_TAIL 4096 /* records kept for --on-threshold trace */

volatile sig_atomic_t jr_interrupted;

struct jr_ctx {
	struct jr_opts *o;
	struct jr_model model;
	struct jr_model window; /* --top: the last second */
	FILE *rec;
	struct jr_rec *tail;
	uint64_t nr_tail;
	bool stopped;
};

static void jr_on_signal(int sig)
{
	jr_interrupted = sig;
}

void jr_die(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "jitread: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(code);
}

static bool jr_wanted(const struct jr_opts *o, const struct jr_rec *r)
{
	return !o->have_cpus || o->cpus[r->cpu];
}

/* jr_sink - every decoded record, live or replayed, comes through here. */
static int jr_sink(void *data, const struct jr_rec *r)
{
	struct jr_ctx *c = data;
	int ret;

	if (c->rec && jr_write(c->rec, r))
		return -EIO;
	if (!jr_wanted(c->o, r))
		return 0;
	if (c->tail)
		c->tail[c->nr_tail++ % JR_TAIL] = *r;
	if (r->type == JR_STOP)
		c->stopped = true;
	ret = jr_model_add(&c->model, r);
	if (!ret && c->o->mode == JR_MODE_TOP)
		ret = jr_model_add(&c->window, r);
	return ret;
}

static void jr_report_all(struct jr_ctx *c, const struct jr_sysinfo *sys)
{
	struct jr_report_opts ro = {
		.unit = c->o->unit,
		.div = c->o->div,
		.no_header = c->o->no_header,
		.with_zeros = c->o->with_zeros,
		.cpu_set = c->o->have_cpus ? c->o->cpus : NULL,
	};
	FILE *f;
	int ret;

	if (!c->o->quiet && c->o->mode != JR_MODE_TOP)
		jr_report_text(stdout, &c->model, sys, &ro);
	if (c->o->json) {
		f = strcmp(c->o->json, "-") ? fopen(c->o->json, "w") : stdout;
		if (!f)
			jr_die(JR_EXIT_RUN, "%s: %s", c->o->json,
			       strerror(errno));
		ret = jr_report_json(f, &c->model, sys, &ro);
		if ((f != stdout && fclose(f)) || ret)
			jr_die(JR_EXIT_RUN, "%s: write failed", c->o->json);
	}
	if (c->o->csv && jr_report_csv(c->o->csv, &c->model, &ro))
		jr_die(JR_EXIT_RUN, "%s: %s", c->o->csv, strerror(errno));
	if (c->o->hgrm && jr_report_hgrm(c->o->hgrm, &c->model, &ro))
		jr_die(JR_EXIT_RUN, "%s: %s", c->o->hgrm, strerror(errno));
}

static int jr_replay(struct jr_ctx *c)
{
	struct jr_reader rd;
	struct jr_rec r;
	char err[256];
	int ret;

	if (jr_reader_open(&rd, c->o->replay, err, sizeof(err)))
		jr_die(JR_EXIT_RUN, "%s: %s", c->o->replay, err);
	while ((ret = jr_read(&rd, &r, err, sizeof(err))) > 0)
		if (jr_sink(c, &r))
			jr_die(JR_EXIT_RUN, "out of memory");
	fclose(rd.f);
	if (ret < 0)
		jr_die(JR_EXIT_RUN, "%s: %s", c->o->replay, err);
	jr_report_all(c, &rd.hdr.sys);
	return 0;
}

/* jr_check_cpus - every CPU asked for must be sampled by jitmod. */
static void jr_check_cpus(const struct jr_opts *o)
{
	char text[512];
	int cpu;

	if (!o->have_cpus)
		return;
	cpu = jr_cpus_outside(o->cpus, JR_PARAMS_DIR "/cpus", text,
			      sizeof(text));
	if (cpu >= 0)
		jr_die(JR_EXIT_USAGE,
		       "CPU %d is not sampled by jitmod (cpus=%s); "
		       "write the list to " JR_PARAMS_DIR "/cpus",
		       cpu, text);
}

void jr_set_params(const struct jr_opts *o)
{
	static const char *const names[] = { "threshold_ns", "stop_us",
					     "stop_total_us" };
	uint64_t vals[] = { o->threshold_ns, o->stop_us, o->stop_total_us };
	int i;

	for (i = 0; i < 3; i++)
		if (vals[i] && jr_write_param(names[i], vals[i]))
			jr_die(JR_EXIT_RUN,
			       "cannot set jitmod's %s=%" PRIu64 ": %s",
			       names[i], vals[i], strerror(errno));
}

void jr_preflight(const struct jr_opts *o)
{
	if (geteuid() != 0)
		jr_die(JR_EXIT_RUN,
		       "must run as root to read the trace (or use --replay FILE)");
	if (!tracefs_tracing_dir())
		jr_die(JR_EXIT_RUN,
		       "tracefs is not mounted; run: mount -t tracefs nodev /sys/kernel/tracing");
	if (!jr_module_loaded())
		jr_die(JR_EXIT_RUN,
		       "jitmod is not loaded; load it first, e.g.: insmod module/jitmod.ko cpus=1-3");
	jr_check_cpus(o);
	if (o->have_house) {
		cpu_set_t set;
		int cpu;

		CPU_ZERO(&set);
		for (cpu = 0; cpu < CPU_SETSIZE && cpu < JR_MAX_CPUS; cpu++)
			if (o->house[cpu])
				CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			jr_die(JR_EXIT_USAGE,
			       "-H: cannot pin to those CPUs: %s",
			       strerror(errno));
	}
}

static double jr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* jr_top - one frame: per-CPU figures of the last second. */
static void jr_top(struct jr_ctx *c, double elapsed, bool tty)
{
	struct jr_model *w = &c->window;
	int cpu;

	if (tty)
		printf("\033[H\033[2J");
	printf("jitread --top: %.0f s, %" PRIu64 " events; last second, ns\n",
	       elapsed, c->model.events);
	printf("%-4s %14s %12s %9s %12s %7s %7s %7s %7s %7s %7s\n", "CPU",
	       "runtime", "noise", "%avail", "max-single", "HW", "NMI", "IRQ",
	       "SIRQ", "THREAD", "lost");
	for (cpu = 0; cpu < w->nr_cpus; cpu++) {
		const struct jr_cpu *p = &w->cpu[cpu];
		uint64_t hw = p->hist[JR_H_SMI].count +
			      p->hist[JR_H_STEAL].count +
			      p->hist[JR_H_UNKNOWN].count;
		char pct[JR_AVAIL_LEN];

		if (!p->seen)
			continue;
		printf("%-4d %14" PRIu64 " %12" PRIu64 " %9s %12" PRIu64
		       " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
		       " %7" PRIu64 " %7" PRIu64 "\n",
		       cpu, p->runtime_ns, p->noise_ns,
		       jr_cpu_avail_str(p, pct, sizeof(pct)), p->max_gap_ns, hw,
		       p->hist[JR_H_NMI].count, p->hist[JR_H_IRQ].count,
		       p->hist[JR_H_SOFTIRQ].count, p->hist[JR_H_THREAD].count,
		       p->lost);
	}
	fflush(stdout);
	jr_model_free(w);
	jr_model_init(w, c->o->precision, c->o->bucket_ns, c->o->entries);
}

static void jr_save_tail(struct jr_ctx *c, const char *path)
{
	FILE *f = fopen(path, "w");
	uint64_t i = c->nr_tail > JR_TAIL ? c->nr_tail - JR_TAIL : 0;
	char key[64];
	int h;

	if (!f) {
		fprintf(stderr, "jitread: %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "# the last %" PRIu64 " jitmod events before the stop\n",
		c->nr_tail - i);
	for (; i < c->nr_tail; i++) {
		const struct jr_rec *r = &c->tail[i % JR_TAIL];

		if (jr_source_key(r, key, sizeof(key), &h) < 0)
			snprintf(key, sizeof(key), "%s",
				 r->type == JR_GAP  ? "gap" :
				 r->type == JR_STOP ? "stop" :
						      "summary");
		fprintf(f,
			"%" PRIu64 " cpu=%u %s v0=%" PRIu64 " v1=%" PRIu64 "\n",
			r->ts_ns, r->cpu, key, r->v[0], r->v[1]);
	}
	fclose(f);
	fprintf(stderr, "jitread: saved the last events to %s\n", path);
}

static void jr_run_actions(struct jr_ctx *c)
{
	int i;

	fprintf(stderr,
		"jitread: jitmod stopped: %s %" PRIu64 " ns > %" PRIu64
		" ns on CPU %u\n",
		c->model.last_stop.cls ? "period noise" : "single gap",
		c->model.last_stop.v[0], c->model.last_stop.v[1],
		c->model.last_stop.cpu);
	for (i = 0; i < c->o->nr_act; i++) {
		const struct jr_action *a = &c->o->act[i];

		if (a->kind == JR_ACT_TRACE)
			jr_save_tail(c, a->arg);
		else if (a->kind == JR_ACT_EXEC && system(a->arg) == -1)
			fprintf(stderr, "jitread: cannot run '%s'\n", a->arg);
		else if (a->kind == JR_ACT_SIGNAL && kill(a->pid, a->sig))
			fprintf(stderr, "jitread: kill(%d, %d): %s\n", a->pid,
				a->sig, strerror(errno));
	}
}

static int jr_live(struct jr_ctx *c, struct jr_sysinfo *sys, int argc,
		   char **argv)
{
	struct jr_stream s;
	struct sigaction sa = { .sa_handler = jr_on_signal };
	bool tty = isatty(STDOUT_FILENO), etty = isatty(STDERR_FILENO);
	double start, next_frame;
	char err[256];
	int gone = 0, ret, removed;

	jr_preflight(c->o);
	jr_set_params(c->o);
	jr_sysinfo_fill(sys, argc, argv);
	removed = jr_remove_stale_instances();
	if (removed && !c->o->quiet)
		fprintf(stderr, "jitread: removed %d stale instance(s)\n",
			removed);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (c->o->record && jr_writer_open(&c->rec, c->o->record, sys))
		jr_die(JR_EXIT_RUN, "%s: %s", c->o->record, strerror(errno));
	if (c->o->nr_act) {
		c->tail = calloc(JR_TAIL, sizeof(*c->tail));
		if (!c->tail)
			jr_die(JR_EXIT_RUN, "out of memory");
	}
	if (jr_stream_open(&s, c->o->buffer_kb, jr_sink, c, err, sizeof(err)))
		jr_die(JR_EXIT_RUN, "%s", err);
	jr_ready(c->o->ready_file);
	start = jr_now();
	next_frame = start + 1;
	while (!jr_interrupted) {
		double now = jr_now();

		ret = jr_stream_drain(&s);
		if (ret)
			break;
		if (c->stopped)
			break;
		if (!jr_module_loaded()) {
			gone = 1;
			break;
		}
		if (c->o->duration_s && now - start >= c->o->duration_s)
			break;
		if (c->o->mode == JR_MODE_TOP && now >= next_frame) {
			jr_top(c, now - start, tty);
			next_frame += 1;
		} else if (tty && etty && !c->o->quiet &&
			   c->o->mode == JR_MODE_HIST) {
			fprintf(stderr,
				"\rjitread: %.0f s, %" PRIu64 " events ",
				now - start, c->model.events);
		}
		usleep(JR_POLL_MS * 1000);
	}
	if (!gone)
		ret = jr_stream_drain(&s);
	jr_stream_close(&s);
	if (tty && etty && !c->o->quiet && c->o->mode == JR_MODE_HIST)
		fprintf(stderr, "\n");
	if (c->rec && fclose(c->rec))
		jr_die(JR_EXIT_RUN, "%s: write failed", c->o->record);
	if (ret)
		jr_die(JR_EXIT_RUN, "reading the trace failed: %s",
		       strerror(ret < 0 ? -ret : ret));
	if (c->stopped)
		jr_run_actions(c);
	jr_report_all(c, sys);
	if (gone) {
		fprintf(stderr,
			"jitread: jitmod was unloaded during the run; the report covers what was read before\n");
		return JR_EXIT_GONE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct jr_opts o;
	struct jr_ctx c = { .o = &o };
	struct jr_sysinfo sys;
	char err[256];
	int ret;

	ret = jr_parse_args(argc, argv, &o, err, sizeof(err));
	if (ret == 1) {
		jr_usage(stdout);
		return 0;
	}
	if (ret)
		jr_die(JR_EXIT_USAGE, "%s", err);
	if (jr_ready_clear(o.ready_file))
		jr_die(JR_EXIT_RUN, "--ready-file %s: %s", o.ready_file,
		       strerror(errno));
	jr_model_init(&c.model, o.precision, o.bucket_ns, o.entries);
	jr_model_init(&c.window, o.precision, o.bucket_ns, o.entries);
	if (o.mode == JR_MODE_USER)
		ret = jr_run_user(&o, &sys, argc, argv);
	else if (o.mode == JR_MODE_COMPARE)
		ret = jr_run_compare(&o, &sys, argc, argv);
	else if (o.replay)
		ret = jr_replay(&c);
	else
		ret = jr_live(&c, &sys, argc, argv);
	jr_model_free(&c.model);
	jr_model_free(&c.window);
	free(c.tail);
	return ret;
}
