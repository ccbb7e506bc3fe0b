// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_serve.c - jitread serve: a long run at a low duty cycle whose
 * noise is served as Prometheus metrics on /metrics, and written for
 * node_exporter's textfile collector with --textfile.
 *
 * The sampler is jitmod where it is loaded, else a user thread per -c CPU
 * (--sampler chooses).  Either samples --runtime of every --period (10 %
 * by default), and jitread itself runs on the CPUs it does not sample
 * unless -H says where.  The run ends on ^C, SIGTERM or -d, with the
 * report hist would give and what failed, if anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"
#include "cmd/jr_live_setup.h"
#include "cmd/jr_out.h"
#include "cmd/jr_cmd_serve_attach.h"
#include "cmd/jr_user_phases.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"
#include "core/jr_envelope.h"
#include "fleet/jr_serve.h"
#include "kernel/jr_kparams.h"
#include "kernel/jr_sysinfo.h"

enum {
	JR_K_LISTEN = JR_K_OWN,
	JR_K_TEXTFILE,
	JR_K_REFRESH,
	JR_K_TOP_N,
	JR_K_SAMPLER,
	JR_K_ATTACH,
};

/* serve's warm-up: the first 20 ms after a wake-up are measurably noisier */
#define JR_SERVE_WARMUP_US 20000

static const struct jr_optdef jr_serve_optdefs[] = {
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_duration },
	{ .group = jr_opt_threshold },
	{ .group = jr_opts_duty },
	{ .group = jr_opt_house },
	{ .name = "listen",
	  .key = JR_K_LISTEN,
	  .arg = "ADDR",
	  .help = "serve /metrics on ADDR: HOST:PORT, [V6]:PORT, :PORT\n"
		  "(default 127.0.0.1:9478; none: --textfile only)" },
	{ .name = "textfile",
	  .key = JR_K_TEXTFILE,
	  .arg = "DIR",
	  .help = "also write DIR/jitread.prom at every refresh, for\n"
		  "node_exporter's textfile collector" },
	{ .name = "refresh",
	  .key = JR_K_REFRESH,
	  .arg = "TIME",
	  .help = "how often the metrics are brought up to date\n"
		  "(default 1s, at least 100ms); bare: s" },
	{ .name = "top",
	  .key = JR_K_TOP_N,
	  .arg = "N",
	  .help = "sources per CPU with series of their own, chosen by\n"
		  "recent time (default 10); the rest is source=\"other\"" },
	{ .name = "sampler",
	  .key = JR_K_SAMPLER,
	  .arg = "WHICH",
	  .help = "jitmod, user (a user thread per -c CPU, no module)\n"
		  "or auto: jitmod where loaded (default)" },
	{ .name = "attach",
	  .key = JR_K_ATTACH,
	  .arg = "PID",
	  .help = "no sampler: serve the noise process PID's threads\n"
		  "suffer, as jitread attach measures it" },
	{ .group = jr_opt_ready },
	{ .group = jr_opt_bufkb },
	{ .group = jr_opt_quiet },
	{ .group = jr_opt_json },
	{ .group = jr_opt_fifo },
	{ .group = jr_opt_help },
	{ 0 },
};

/* jr_serve_defaults - a low duty cycle: 100 ms of every 1 s */
static void jr_serve_defaults(struct jr_opts *o)
{
	struct jr_serve_opts *so = o->own;

	so->listen = "127.0.0.1:9478";
	so->listen_fd = -1;
	so->interval_ns = JR_S;
	so->top = 10;
	o->live.runtime_us = 100000;
	o->live.period_us = 1000000;
}

/*
 * jr_serve_warmup - without --wake-spin, JR_SERVE_WARMUP_US where the duty
 * cycle sleeps, none where the runtime fills the period: there is no
 * wake-up to absorb, and a warm-up each period would leave its noise
 * unseen.
 */
static void jr_serve_warmup(struct jr_live_opts *l)
{
	if (l->have_warmup)
		return;
	l->have_warmup = true;
	l->warmup_us = l->runtime_us < l->period_us ? JR_SERVE_WARMUP_US : 0;
}

/* jr_sampling_opt - the name of a sampler's option, or NULL */
static const char *jr_sampling_opt(int key)
{
	switch (key) {
	case JR_K_SAMPLER:
		return "--sampler";
	case JR_K_THRESHOLD:
		return "-T/--threshold";
	case JR_K_RUNTIME:
		return "-r/--runtime";
	case JR_K_PERIOD:
		return "-p/--period";
	case JR_K_WAKE_SPIN:
		return "--wake-spin";
	case JR_K_BUFKB:
		return "--buffer-kb";
	case JR_K_FIFO:
		return "--fifo";
	}
	return NULL;
}

static enum jr_optres jr_serve_apply(int key, const char *arg,
				     const struct jr_optenv *env)
{
	static const char *const samplers[] = { "auto", "jitmod", "user" };
	struct jr_serve_opts *so = env->own;
	const char *sampling = jr_sampling_opt(key);
	uint64_t v;

	if (sampling)
		so->sampling_opt = sampling;
	switch (key) {
	case JR_K_ATTACH:
		if (jr_parse_u64(arg, 1, 0x3fffffff, &v))
			return JR_OPT_BAD;
		so->attach_pid = (int)v;
		return JR_OPT_TAKEN;
	case JR_K_LISTEN:
		so->listen = strcmp(arg, "none") ? arg : NULL;
		so->listen_given = true;
		return JR_OPT_TAKEN;
	case JR_K_TEXTFILE:
		so->textfile = arg;
		return JR_OPT_TAKEN;
	case JR_K_REFRESH:
		return jr_taken(jr_parse_time(arg, JR_S, 100 * JR_MS,
					      3600 * JR_S, &so->interval_ns));
	case JR_K_TOP_N:
		return jr_taken(jr_opt_int(arg, 0, JR_PROM_MAX_TOP, &so->top));
	case JR_K_SAMPLER:
		return jr_taken(jr_opt_name(arg, samplers, 3, &so->sampler));
	}
	return JR_OPT_NOT_MINE;
}

static int jr_serve_check(struct jr_opts *o, const char *name, struct jr_err *e)
{
	struct jr_serve_opts *so = o->own;
	int ret = jr_http_passed(&so->listen_fd, e);

	(void)name;
	if (ret)
		return ret;
	if (so->listen_fd >= 0 && so->listen_given)
		return jr_fail(
			e, -EINVAL,
			"--listen: systemd passed a socket to serve on; give one or the other");
	if (so->listen_fd < 0 && !so->listen && !so->textfile)
		return jr_fail(
			e, -EINVAL,
			"--listen none needs --textfile DIR: nothing to serve");
	if (so->attach_pid && so->sampling_opt)
		return jr_fail(
			e, -EINVAL,
			"--attach runs no sampler: %s does not go with it",
			so->sampling_opt);
	if (!so->attach_pid)
		jr_serve_warmup(&o->live);
	return 0;
}

struct jr_serve_live {
	struct jr_live live;
	struct jr_serve serve;
	double next; /* the run's time of the next refresh */
	bool started;
};

static void jr_serve_frame(struct jr_live *c, double elapsed, bool last)
{
	struct jr_serve_live *sl =
		(void *)((char *)c - offsetof(struct jr_serve_live, live));
	const struct jr_serve_opts *so = c->o->own;
	struct jr_err e;

	if (!sl->started) {
		/* the first poll: the stream is open and jitmod set */
		if (jr_serve_start(&sl->serve, &c->model, &e))
			jr_die(JR_EXIT_RUN, "%s", e.msg);
		sl->started = true;
		sl->next = so->interval_ns / 1e9;
		return;
	}
	if (!last && elapsed < sl->next)
		return;
	while (sl->next <= elapsed)
		sl->next += so->interval_ns / 1e9;
	jr_serve_refresh(&sl->serve, &c->model);
}

static int jr_serve_jitmod(struct jr_opts *o, int argc, char **argv)
{
	struct jr_serve_live sl = { .live = { .o = o,
					      .frame = jr_serve_frame } };
	struct jr_sysinfo sys;
	struct jr_err e;
	int ret, files;

	jr_house_jitmod(o);
	/* before the server process is made: it keeps the affinity */
	jr_pin_house(o);
	jr_sysinfo_fill(&sys, argc, argv);
	if (jr_serve_open(&sl.serve, o->own, "jitmod", sys.kernel, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	sl.serve.quiet = o->out.quiet;
	ret = jr_live_run(&sl.live, argc, argv);
	jr_serve_close(&sl.serve);
	if (!o->out.quiet) {
		struct jr_report_opts ro = jr_report_opts_of(o);

		jr_report_text(stdout, &sl.live.model, &sl.live.sys, &ro);
	}
	jr_envelope_rc(jr_live_exit(&sl.live, sl.live.fail ?:
						      ret  ?:
							     sl.serve.fail));
	files = jr_report_files(&sl.live.outs, &sl.live.model, &sl.live.sys, o,
				true);
	ret = jr_live_end(&sl.live, ret) ?: files;
	if (!ret && sl.serve.fail) {
		jr_warn("%s", sl.serve.why.msg);
		ret = sl.serve.fail;
	}
	ret = jr_live_exit(&sl.live, ret);
	jr_live_free(&sl.live);
	return ret;
}

static double jr_mono(void)
{
	return jr_mono_ns() / 1e9;
}

/*
 * jr_serve_user - the user sampler: a phase of --runtime every --period,
 * the metrics brought up to date after a phase once --refresh has passed.
 */
static int jr_serve_user(struct jr_opts *o, int argc, char **argv)
{
	const struct jr_serve_opts *so = o->own;
	double start, next_refresh, period = o->live.period_us / 1e6;
	uint64_t k;
	struct jr_sysinfo sys;
	struct jr_model user;
	struct jr_serve s;
	struct jr_udoc d;
	struct jr_ubpf b;
	struct jr_err e;
	int ret;

	if (!o->have_cpus)
		jr_die(JR_EXIT_USAGE,
		       "the user sampler needs -c CPUS (jitmod is not loaded)");
	jr_check_online(o);
	jr_house_default(o, o->cpus);
	jr_pin_house(o);
	o->user.no_pipeline = true;
	if (!o->live.threshold_ns)
		o->live.threshold_ns = 1000;
	jr_udoc_init(&d, o);
	jr_model_of(&user, o);
	d.r.user = &user;
	jr_sysinfo_fill(&sys, argc, argv);
	if (jr_serve_open(&s, so, "user", sys.kernel, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	s.quiet = o->out.quiet;
	jr_prepare(&d, &b, &sys);
	if (jr_serve_start(&s, &user, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	start = jr_mono();
	next_refresh = so->interval_ns / 1e9;
	for (k = 0; !jr_run_stop.sig && !d.fail; k++) {
		if (o->live.duration_ns &&
		    (jr_mono() - start) * 1e9 >= (double)o->live.duration_ns)
			break;
		jr_sleep_until(start + k * period);
		jr_sample_phase(&d, &b, o->live.runtime_us * JR_US);
		if (jr_mono() - start >= next_refresh) {
			jr_serve_refresh(&s, &user);
			while (next_refresh <= jr_mono() - start)
				next_refresh += so->interval_ns / 1e9;
		}
	}
	jr_serve_refresh(&s, &user);
	jr_serve_close(&s);
	d.r.rounds_done = k;
	ret = jr_udoc_finish(&d, &sys);
	if (!ret && s.fail) {
		jr_warn("%s", s.why.msg);
		ret = s.fail;
	}
	jr_ubpf_close(&b);
	jr_model_free(&user);
	return ret;
}

static int jr_serve_run(struct jr_opts *o, int argc, char **argv)
{
	struct jr_serve_opts *so = o->own;

	if (so->attach_pid)
		return jr_serve_attach(o, argc, argv);
	so->warmup_ns = o->live.warmup_us * JR_US;
	if (so->sampler == JR_SAMPLER_JITMOD ||
	    (so->sampler == JR_SAMPLER_AUTO && jr_module_loaded()))
		return jr_serve_jitmod(o, argc, argv);
	return jr_serve_user(o, argc, argv);
}

static const struct jr_opthelp jr_serve_helps[] = {
	{ JR_K_CPUS, "CPUs to report; with the user sampler, to sample" },
	{ JR_K_THRESHOLD, "set jitmod's threshold_ns, or the user sampler's\n"
			  "(default 1us); bare: us" },
	{ JR_K_RUNTIME, "sampling time per period, jitmod's runtime_us or\n"
			"the user sampler's (default 100ms); bare: us" },
	{ JR_K_PERIOD, "jitmod's period_us, or the user sampler's\n"
		       "(default 1s); bare: us" },
	{ JR_K_WAKE_SPIN, "spun after each sleep, not sampled: jitmod's\n"
			  "warmup_us or the user sampler's (default 20ms\n"
			  "where runtime < period); bare: us" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_serve = {
	.name = "serve",
	.summary = "Prometheus metrics of a long, low-duty run (/metrics)",
	.opts = jr_serve_optdefs,
	.helps = jr_serve_helps,
	.own_size = sizeof(struct jr_serve_opts),
	.defaults = jr_serve_defaults,
	.apply = jr_serve_apply,
	.check = jr_serve_check,
	.synopsis = "[options]",
	.about =
		"Samples --runtime of every --period (100ms of 1s by default) with jitmod,\n"
		"or with a user thread per -c CPU where jitmod is not loaded, and serves\n"
		"the noise on /metrics in Prometheus' text format or OpenMetrics, as the\n"
		"scraper asks; --textfile DIR also writes it for node_exporter.  jitread\n"
		"runs on the CPUs it does not sample unless -H says where.",
	.run = jr_serve_run,
};
