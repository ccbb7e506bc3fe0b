// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_user.c - jitread user: the noise a user thread sees on the same
 * CPUs, without jitmod: a TSC sampler per CPU, classified by BPF, then
 * the three-thread pipeline.
 */
#include <errno.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"
#include "cmd/jr_live_setup.h"
#include "cmd/jr_out.h"
#include "cmd/jr_user_phases.h"
#include "kernel/jr_kparams.h"
#include "kernel/jr_sysinfo.h"

#define JR_DEFAULT_USER_NS (10 * JR_S)

static int jr_user_run(struct jr_opts *o, int argc, char **argv)
{
	uint64_t ns = o->live.duration_ns ? o->live.duration_ns :
					    JR_DEFAULT_USER_NS;
	struct jr_sysinfo sys;
	struct jr_model user;
	struct jr_udoc d;
	struct jr_ubpf b;
	int ret;

	jr_check_online(o);
	/* before any thread is made: each inherits the affinity */
	jr_house_default(o, o->cpus);
	jr_pin_house(o);
	jr_udoc_init(&d, o);
	d.record = o->live.record;
	if (!o->live.threshold_ns)
		o->live.threshold_ns = 1000;
	jr_model_of(&user, o);
	d.r.user = &user;
	jr_sysinfo_fill(&sys, argc, argv);
	jr_prepare(&d, &b, &sys);
	jr_sample_phase(&d, &b, ns);
	jr_pipe_phase(&d, ns);
	d.r.rounds_done = 1;
	ret = jr_udoc_finish(&d, &sys);
	jr_ubpf_close(&b);
	jr_model_free(&user);
	jr_pipe_free(&d.r.pipe);
	return ret;
}

static const struct jr_optdef jr_user_opts[] = {
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_duration },
	{ .group = jr_opt_threshold },
	{ .group = jr_opt_house },
	{ .group = jr_opt_ready },
	{ .name = "record",
	  .key = JR_K_RECORD,
	  .arg = "FILE",
	  .help = "also save the gaps and BPF's records to FILE" },
	{ .group = jr_opt_quiet },
	{ .group = jr_opts_shown },
	{ .group = jr_opt_json },
	{ .group = jr_opts_user_side },
	{ .group = jr_opt_help },
	{ 0 },
};

static int jr_user_check(struct jr_opts *o, const char *name, struct jr_err *e)
{
	if (!o->have_cpus)
		return jr_fail(
			e, -EINVAL,
			"jitread %s needs -c CPUS: the CPUs to sample from userspace",
			name);
	return 0;
}

static const struct jr_opthelp jr_user_helps[] = {
	{ JR_K_CPUS, "CPUs to sample, e.g. 1-3,5" },
	{ JR_K_DURATION, "sample for TIME, e.g. 30s, 5m, 1h; bare: s\n"
			 "(default: 10s)" },
	{ JR_K_THRESHOLD, "the sampler's threshold (default 1us); bare: us" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_user = {
	.name = "user",
	.summary = "the noise a user thread sees: sampler, BPF, pipeline",
	.opts = jr_user_opts,
	.helps = jr_user_helps,
	.check = jr_user_check,
	.synopsis = "-c CPUS [options]",
	.about =
		"Samples the CPUs from a user thread each (no module needed), with BPF\n"
		"naming what interrupted each gap, then runs the three-thread pipeline\n"
		"(producer, accumulator, journaller) and checks its journal.",
	.run = jr_user_run,
};
