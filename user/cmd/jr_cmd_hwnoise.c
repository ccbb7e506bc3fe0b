// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_hwnoise.c - jitread hwnoise: rtla hwnoise's view.  jitmod samples
 * with interrupts off (its irqs_off), so that a gap can only be an NMI or
 * the hardware (SMI, hypervisor, the rest); the table has those columns,
 * and the interrupts each window held until its end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_opts_rtla.h"
#include "cmd/jr_cmd_top.h"

/*
 * rtla hwnoise's threshold and period.  Its runtime is the whole period;
 * jitmod's default leaves 100 ms of each second to the tick: with 1 s of
 * 1 s and interrupts off, a nohz_full CPU's remote tick warned once that
 * the sampler ran 3 s without a tick (sched_tick_remote, under TCG).
 */
#define JR_HWNOISE_THRESHOLD_NS 5000
#define JR_HWNOISE_PERIOD_US 1000000
#define JR_HWNOISE_RUNTIME_US 900000
/* jitmod's bound on a window with interrupts off (JIT_IRQS_OFF_MAX_US) */
#define JR_HWNOISE_MAX_RUNTIME_US 1000000

/* jr_hwnoise_row - the hardware classes only, and what was held */
static void jr_hwnoise_row(FILE *out, int cpu, const struct jr_cpu *p,
			   const char *avail, uint64_t hw, double div)
{
	fprintf(out, "%-4d %7" PRIu64, cpu, p->periods);
	jr_dur_col(out, 14, (double)p->runtime_ns, div);
	jr_dur_col(out, 12, (double)p->noise_ns, div);
	fprintf(out, " %9s", avail);
	jr_dur_col(out, 12, (double)p->max_gap_ns, div);
	fprintf(out, " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 "\n",
		hw, p->hist[JR_H_NMI].count, p->held, p->lost);
}

static const struct jr_top_view jr_hwnoise_view = {
	.cmd = "hwnoise",
	.head = "CPU  periods        runtime        noise    %avail   max-single      HW     NMI    held    lost",
	.row = jr_hwnoise_row,
};

static void jr_hwnoise_frame(struct jr_live *c, double elapsed, bool last)
{
	jr_top_frames(c, elapsed, last, &jr_hwnoise_view);
}

static int jr_hwnoise_run(struct jr_opts *o, int argc, char **argv)
{
	return jr_top_go(o, argc, argv, jr_hwnoise_frame);
}

static void jr_hwnoise_defaults(struct jr_opts *o)
{
	o->live.threshold_ns = JR_HWNOISE_THRESHOLD_NS;
	o->live.runtime_us = JR_HWNOISE_RUNTIME_US;
	o->live.period_us = JR_HWNOISE_PERIOD_US;
	o->live.irqs_off = true;
}

/*
 * jr_hwnoise_check - a window with interrupts off is at most 1 s, as
 * jitmod allows; a runtime beyond the period it keeps is refused by
 * jitmod itself, with its line in dmesg, as for top.
 */
static int jr_hwnoise_check(struct jr_opts *o, const char *name,
			    struct jr_err *e)
{
	if (o->live.runtime_us > JR_HWNOISE_MAX_RUNTIME_US)
		return jr_fail(
			e, -EINVAL,
			"jitread %s: --runtime is at most 1s (interrupts stay off for all of it)",
			name);
	return jr_top_check(o, name, e);
}

static const struct jr_opthelp jr_hwnoise_helps[] = {
	{ JR_K_THRESHOLD, "smallest gap recorded, jitmod's threshold_ns\n"
			  "(default 5us, rtla hwnoise's); bare: us" },
	{ JR_K_RUNTIME, "sampled with interrupts off each period, at most\n"
			"1s (default 900ms); bare: us" },
	{ JR_K_PERIOD, "jitmod's period_us (default 1s); bare: us" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_hwnoise = {
	.name = "hwnoise",
	.summary = "top with interrupts off: only NMIs and the hardware remain",
	.opts = jr_top_opts,
	.helps = jr_hwnoise_helps,
	.defaults = jr_hwnoise_defaults,
	.apply = jr_apply_rtla,
	.check = jr_hwnoise_check,
	.synopsis = "[options]",
	.about =
		"rtla hwnoise's view: jitmod samples with interrupts disabled for its\n"
		"whole runtime (irqs_off, put back at the end), so that no interrupt,\n"
		"softirq or task can take the CPU and each gap is an NMI or the\n"
		"hardware: SMI, hypervisor, unknown.  Every second, per CPU: periods,\n"
		"runtime, noise, % available, the longest gap, HW and NMI gaps, and\n"
		"the interrupts held until a window's end.  Times in -u's unit.",
	.run = jr_hwnoise_run,
};
