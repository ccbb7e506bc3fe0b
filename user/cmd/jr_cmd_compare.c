// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_compare.c - jitread compare: jitmod and the user side, in turn,
 * on the same CPUs.
 *
 * The kernel and the user samplers cannot both spin on one CPU, so a
 * comparison runs phases: kernel, user, kernel, user...  A kernel phase
 * switches jitmod on (its enable parameter) and drains its events; a user
 * phase switches it off, runs the user sampler on every CPU and then the
 * pipeline.  Both sides use the same threshold, and jitmod's settings are
 * put back at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"
#include "cmd/jr_live_setup.h"
#include "cmd/jr_out.h"
#include "cmd/jr_user_phases.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"
#include "kernel/jr_trace.h"
#include "kernel/jr_sysinfo.h"

/* jr_compare_cpus - -c, or jitmod's own CPUs. */
static void jr_compare_cpus(struct jr_opts *o)
{
	static char text[512];

	if (o->have_cpus)
		return;
	if (jr_read_cpulist(JR_PARAMS_DIR "/cpus", o->cpus, text, sizeof(text)))
		jr_die(JR_EXIT_RUN, "cannot read jitmod's cpus parameter");
	o->have_cpus = true;
	o->cpus_text = text;
}

/* jr_jitmod_enable - 0, -ENODEV once jitmod is gone, or dies. */
static int jr_jitmod_enable(struct jr_ksave *saved, int on)
{
	int ret = jr_param_change(saved, "enable", on);

	if (ret && !jr_module_loaded())
		return -ENODEV;
	if (ret)
		jr_die(JR_EXIT_RUN, "cannot set jitmod's enable=%d: %s", on,
		       strerror(-ret));
	return 0;
}

/* jr_kernel_phase - jitmod samples for ns; its events go to the stream. */
static int jr_kernel_phase(struct jr_stream *s, struct jr_ksave *saved,
			   uint64_t ns, const char *ready_file)
{
	uint64_t end = jr_mono_ns() + ns;
	int ret = jr_jitmod_enable(saved, 1);

	if (ret)
		return ret;
	jr_ready(ready_file);
	while (jr_mono_ns() < end && !jr_run_stop.sig && !ret) {
		jr_stream_wait(s);
		ret = jr_stream_drain(s);
		if (!jr_module_loaded())
			return -ENODEV;
	}
	if (jr_jitmod_enable(saved, 0))
		return -ENODEV;
	usleep(200000); /* the last period's summary */
	return ret ? ret : jr_stream_finish(s);
}

/* jr_rounds - kernel and user phases in turn; 0 or a negative errno. */
static int jr_rounds(struct jr_udoc *d, struct jr_ubpf *b, struct jr_stream *s,
		     struct jr_ksave *saved)
{
	const struct jr_opts *o = d->o;
	uint64_t r;
	int ret = 0;

	for (r = 0; r < o->user.rounds && !jr_run_stop.sig && !ret && !d->fail;
	     r++) {
		if (!o->out.quiet)
			jr_warn("round %" PRIu64 "/%" PRIu64
				": kernel %g s, user %g s%s",
				r + 1, o->user.rounds,
				(double)o->user.phase_ns / JR_S,
				(double)o->user.phase_ns / JR_S,
				o->user.no_pipeline ? "" : ", pipeline");
		ret = jr_kernel_phase(s, saved, o->user.phase_ns,
				      o->live.ready_file);
		if (ret)
			break;
		jr_sample_phase(d, b, o->user.phase_ns);
		jr_pipe_phase(d, o->user.phase_ns);
		d->r.rounds_done++;
	}
	return ret;
}

static int jr_compare_run(struct jr_opts *o, int argc, char **argv)
{
	struct jr_model kernel, user;
	struct jr_sysinfo sys;
	struct jr_ksave saved = { 0 };
	struct jr_stream s;
	struct jr_udoc d;
	struct jr_ubpf b;
	struct jr_err e;
	int ret;

	jr_preflight(o);
	jr_compare_cpus(o);
	jr_check_online(o);
	jr_udoc_init(&d, o);
	jr_claim_params(o, &saved, "its kernel phases set enable");
	jr_set_params(o, &saved);
	if (!o->live.threshold_ns &&
	    jr_read_param("threshold_ns", &o->live.threshold_ns))
		jr_die(JR_EXIT_RUN, "cannot read jitmod's threshold_ns");
	jr_model_of(&kernel, o);
	jr_model_of(&user, o);
	d.r.kernel = &kernel;
	d.r.user = &user;
	jr_sysinfo_fill(&sys, argc, argv);
	jr_remove_stale_instances();
	if (jr_jitmod_enable(&saved, 0))
		jr_die(JR_EXIT_RUN, "jitmod is not loaded");
	if (jr_stream_open(&s, o->live.buffer_kb, jr_model_sink, &kernel, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	jr_prepare(&d, &b, &sys);
	ret = jr_rounds(&d, &b, &s, &saved);
	jr_stream_close(&s);
	jr_restore_or_warn(&saved);
	if (ret == -ENODEV)
		jr_warn("jitmod was unloaded during the run; the report covers what was read before");
	else if (ret)
		jr_warn("reading the trace failed: %s",
			strerror(ret < 0 ? -ret : ret));
	ret = ret == -ENODEV ? JR_EXIT_GONE : ret ? JR_EXIT_RUN : 0;
	ret = jr_udoc_finish(&d, &sys) ?: ret;
	jr_ubpf_close(&b);
	jr_model_free(&kernel);
	jr_model_free(&user);
	jr_pipe_free(&d.r.pipe);
	return ret;
}

enum { JR_K_ROUNDS = JR_K_OWN, JR_K_PHASE };

static const struct jr_optdef jr_compare_opts[] = {
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_threshold },
	{ .group = jr_opt_house },
	{ .group = jr_opt_ready },
	{ .group = jr_opt_bufkb },
	{ .group = jr_opt_quiet },
	{ .group = jr_opts_shown },
	{ .group = jr_opt_json },
	{ .name = "rounds",
	  .key = JR_K_ROUNDS,
	  .arg = "R",
	  .help = "R kernel and R user phases (default 2)" },
	{ .name = "phase",
	  .key = JR_K_PHASE,
	  .arg = "TIME",
	  .help = "length of each phase (default 10s); bare: s" },
	{ .group = jr_opts_user_side },
	{ .group = jr_opt_help },
	{ 0 },
};

/* jr_compare_defaults - two rounds of 10 s; --fail-if may name a side */
static void jr_compare_defaults(struct jr_opts *o)
{
	o->user.rounds = 2;
	o->user.phase_ns = 10 * JR_S;
	o->two_sides = true;
}

static enum jr_optres jr_compare_apply(int key, const char *arg,
				       const struct jr_optenv *env)
{
	struct jr_user_opts *u = &env->o->user;

	switch (key) {
	case JR_K_ROUNDS:
		return jr_taken(jr_parse_u64(arg, 1, 1000, &u->rounds));
	case JR_K_PHASE:
		return jr_taken(jr_parse_time(arg, JR_S, JR_S, 86400 * JR_S,
					      &u->phase_ns));
	}
	return JR_OPT_NOT_MINE;
}

static const struct jr_opthelp jr_compare_helps[] = {
	{ JR_K_CPUS, "CPUs to sample (default: jitmod's), e.g. 1-3,5" },
	{ JR_K_THRESHOLD, "set jitmod's threshold_ns, the user sampler's too\n"
			  "(default: jitmod's); bare: us" },
	{ JR_K_FAIL_IF,
	  "exit 4 when COND holds at the end (repeatable), e.g.\n"
	  "max>50us, p99.9999>10us, avail<99.99%, class=irq,max>5us,\n"
	  "cpu=all,count>1000, source=irq:local_timer,rate>1,\n"
	  "side=kernel|user" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_compare = {
	.name = "compare",
	.summary = "jitmod and the user side in turn on the same CPUs",
	.opts = jr_compare_opts,
	.helps = jr_compare_helps,
	.defaults = jr_compare_defaults,
	.apply = jr_compare_apply,
	.synopsis = "[-c CPUS] [options]",
	.about =
		"Runs jitmod and the user side in turn on the same CPUs (by default\n"
		"jitmod's) and sets their noise floors side by side.",
	.run = jr_compare_run,
};
