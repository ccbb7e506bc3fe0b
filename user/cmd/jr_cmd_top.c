// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_top.c - jitread top: a per-CPU table of the last second,
 * redrawn every second.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"
#include "cmd/jr_opts_rtla.h"
#include "cmd/jr_out.h"
#include "cmd/jr_cmd_top.h"
#include "core/jr_envelope.h"

/* jr_top_table - the header, then v's row for every CPU of w seen */
static void jr_top_table(FILE *out, const struct jr_model *w,
			 const struct jr_top_view *v, double div)
{
	int cpu;

	fprintf(out, "%s\n", v->head);
	for (cpu = 0; cpu < w->nr_cpus; cpu++) {
		const struct jr_cpu *p = &w->cpu[cpu];
		uint64_t hw = p->hist[JR_H_SMI].count +
			      p->hist[JR_H_STEAL].count +
			      p->hist[JR_H_UNKNOWN].count;
		char pct[JR_AVAIL_LEN];

		if (p->seen)
			v->row(out, cpu, p,
			       jr_cpu_avail_str(p, pct, sizeof(pct)), hw, div);
	}
}

/* jr_top_row - top's row: every class, times in the unit of div ns */
static void jr_top_row(FILE *out, int cpu, const struct jr_cpu *p,
		       const char *avail, uint64_t hw, double div)
{
	fprintf(out, "%-4d", cpu);
	jr_dur_col(out, 14, (double)p->runtime_ns, div);
	jr_dur_col(out, 12, (double)p->noise_ns, div);
	fprintf(out, " %9s", avail);
	jr_dur_col(out, 12, (double)p->max_gap_ns, div);
	fprintf(out,
		" %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
		" %7" PRIu64 "\n",
		hw, p->hist[JR_H_NMI].count, p->hist[JR_H_IRQ].count,
		p->hist[JR_H_SOFTIRQ].count, p->hist[JR_H_THREAD].count,
		p->lost);
}

static const struct jr_top_view jr_top_view = {
	.cmd = "top",
	.head = "CPU         runtime        noise    %avail   max-single      HW     NMI     IRQ    SIRQ  THREAD    lost",
	.row = jr_top_row,
};

/* jr_top_frame_to - one frame of the last second: its line, then the table */
static void jr_top_frame_to(FILE *out, struct jr_live *c, double elapsed,
			    const struct jr_top_view *v)
{
	fprintf(out,
		"jitread %s: %.0f s, %" PRIu64 " events; last second, %s\n",
		v->cmd, elapsed, c->model.events, c->o->out.unit);
	jr_top_table(out, &c->window, v, c->o->out.div);
}

/*
 * jr_top_redraw - a frame over the last one, as rtla's top and watch(1)
 * draw: from the screen's top left, each line cleared to its end, then
 * the rest of the screen cleared.  Nothing scrolls, so a terminal keeps
 * no stale frames in its history (tmux's scroll-on-clear, for one, would
 * keep every frame that a clear screen wiped).  0, or -ENOMEM.
 */
static int jr_top_redraw(struct jr_live *c, double elapsed,
			 const struct jr_top_view *v)
{
	char *buf = NULL, *line, *nl;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return -ENOMEM;
	jr_top_frame_to(m, c, elapsed, v);
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	fputs("\033[H", stdout);
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1)
		printf("%.*s\033[K\n", (int)(nl - line), line);
	fputs("\033[J", stdout);
	free(buf);
	return 0;
}

/*
 * jr_top_frames - the last second's table, every second, as v draws it:
 * in place on a terminal, appended otherwise; with -q, as rtla's top -q,
 * only the whole run's at the end.
 */
void jr_top_frames(struct jr_live *c, double elapsed, bool last,
		   const struct jr_top_view *v)
{
	static double next = 1;
	struct jr_model *w = &c->window;

	if (last && c->o->out.quiet) {
		printf("jitread %s: %.0f s, %" PRIu64
		       " events; the whole run, %s\n",
		       v->cmd, elapsed, c->model.events, c->o->out.unit);
		jr_top_table(stdout, &c->model, v, c->o->out.div);
		fflush(stdout);
	}
	if (last || elapsed < next)
		return;
	next += 1;
	if (c->o->out.quiet)
		goto next_window;
	if (!isatty(STDOUT_FILENO) || jr_top_redraw(c, elapsed, v))
		jr_top_frame_to(stdout, c, elapsed, v);
	fflush(stdout);
next_window:
	jr_model_free(w);
	jr_model_of(w, c->o);
}

static void jr_top_frame(struct jr_live *c, double elapsed, bool last)
{
	jr_top_frames(c, elapsed, last, &jr_top_view);
}

/* jr_top_go - a windowed live run with frame, and its report files */
int jr_top_go(struct jr_opts *o, int argc, char **argv,
	      void (*frame)(struct jr_live *, double, bool))
{
	struct jr_live c = { .o = o, .frame = frame, .windowed = true };
	int ret, files;

	ret = jr_live_run(&c, argc, argv);
	jr_envelope_rc(jr_live_exit(&c, c.fail ?: ret));
	files = jr_report_files(&c.outs, &c.model, &c.sys, o, true);
	ret = jr_live_exit(&c, jr_live_end(&c, ret) ?: files);
	jr_live_free(&c);
	return ret;
}

static int jr_top_run(struct jr_opts *o, int argc, char **argv)
{
	return jr_top_go(o, argc, argv, jr_top_frame);
}

/* top's options, which hwnoise takes too */
const struct jr_optdef jr_top_opts[] = {
	{ .group = jr_opts_live },
	{ .group = jr_opt_record },
	{ .group = jr_opt_unit },
	{ .group = jr_opt_precision },
	{ .group = jr_opt_json },
	{ .name = "no-period",
	  .key = JR_K_NOPERIOD,
	  .help = "rtla's: leave jitmod's period as it is (undoes -p)" },
	{ .group = jr_opt_help },
	{ 0 },
};

/* jr_top_check - top's frames go to stdout, so its JSON cannot */
int jr_top_check(struct jr_opts *o, const char *name, struct jr_err *e)
{
	if (o->out.json && !strcmp(o->out.json, "-"))
		return jr_fail(
			e, -EINVAL,
			"jitread %s prints its frames on stdout: give --json a file",
			name);
	return 0;
}

const struct jr_cmd_def jr_cmd_top = {
	.name = "top",
	.summary = "a per-CPU table of the last second, refreshed every second",
	.opts = jr_top_opts,
	.apply = jr_apply_rtla,
	.check = jr_top_check,
	.synopsis = "[options]",
	.about =
		"Shows every sampled CPU's noise of the last second, refreshed every\n"
		"second: runtime, noise, availability, the largest gap and the gaps\n"
		"per class.",
	.run = jr_top_run,
};
