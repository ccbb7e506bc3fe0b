// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_serve_attach.c - jitread serve --attach PID: what jitread attach
 * measures (usamp/jr_attach.c), served as the metrics while the process
 * runs.  No sampler runs: the per-CPU families count the time a target
 * thread ran or waited there, every --refresh is one summary, and each
 * thread's account is a jitread_thread_* family.  The run ends on ^C,
 * SIGTERM, -d or the process's exit, with attach's report.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_cmd_attach.h"
#include "cmd/jr_live_setup.h"
#include "cmd/jr_cmd_serve_attach.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"
#include "core/jr_envelope.h"
#include "fleet/jr_serve.h"

struct jr_sattach {
	struct jr_attach a;
	struct jr_model m;
	struct jr_serve s;
	/* the threads with series, by slot, then "other" where it is used */
	struct jr_prom_thread th[JR_PROM_MAX_THREADS + 1];
	int32_t chosen[JR_PROM_MAX_THREADS]; /* their tids, kept */
	int nr_chosen;
	bool other;
};

static int jr_sattach_sink(void *ctx, const struct jr_rec *r)
{
	return jr_model_add(ctx, r);
}

/* jr_slot - t's series: its own, a new one while there is room, or NULL */
static struct jr_prom_thread *jr_slot(struct jr_sattach *sa, int32_t tid)
{
	int k;

	for (k = 0; k < sa->nr_chosen; k++)
		if (sa->chosen[k] == tid)
			return &sa->th[k];
	if (sa->nr_chosen == JR_PROM_MAX_THREADS)
		return NULL;
	sa->chosen[sa->nr_chosen] = tid;
	return &sa->th[sa->nr_chosen++];
}

/* jr_prom_add - t's account added into p */
static void jr_prom_add(struct jr_prom_thread *p, const struct jr_athread *t)
{
	int k;

	p->run_ns += t->t.run_ns;
	p->wait_ns += t->t.wait_ns;
	p->waits += t->t.waits;
	p->sleep_ns += t->t.sleep_ns;
	p->faults += t->t.faults;
	p->migrations += t->t.migrations;
	for (k = 0; k < JR_ACLS; k++)
		p->noise_ns[k] += t->ns[k];
}

/*
 * jr_sattach_threads - the threads' accounts as the metrics show them:
 * the first JR_PROM_MAX_THREADS seen keep a series each, the rest add
 * up in tid="other", so that every counter only grows
 */
static void jr_sattach_threads(struct jr_sattach *sa)
{
	struct jr_prom_thread other = { .tid = 0 }, *p;
	size_t i;
	int k;

	for (k = 0; k < sa->nr_chosen; k++) {
		memset(&sa->th[k], 0, sizeof(sa->th[k]));
		sa->th[k].tid = sa->chosen[k];
	}
	snprintf(other.comm, sizeof(other.comm), "other");
	for (i = 0; i < sa->a.nr_th; i++) {
		const struct jr_athread *t = &sa->a.th[i];

		p = jr_slot(sa, t->tid);
		if (!p) {
			sa->other = true;
			p = &other;
		} else {
			p->tid = t->tid;
			snprintf(p->comm, sizeof(p->comm), "%s", t->t.comm);
		}
		jr_prom_add(p, t);
	}
	if (sa->other)
		sa->th[sa->nr_chosen] = other;
	sa->s.prom.th = sa->th;
	sa->s.prom.nr_th = sa->nr_chosen + sa->other;
}

/* jr_sattach_refresh - a summary per CPU up to now, then the metrics */
static int jr_sattach_refresh(struct jr_sattach *sa)
{
	uint64_t now = jr_mono_ns();
	int ret = jr_attach_summarise(&sa->a, now, jr_sattach_sink, &sa->m);

	if (!ret)
		ret = jr_attach_tally(&sa->a, now);
	if (ret)
		return ret;
	jr_sattach_threads(sa);
	jr_serve_refresh(&sa->s, &sa->m);
	return 0;
}

/* jr_sattach_loop - read and refresh until -d, a signal or the exit */
static int jr_sattach_loop(struct jr_opts *o, struct jr_sattach *sa)
{
	const struct jr_serve_opts *so = o->own;
	uint64_t now = jr_mono_ns(), next = now + so->interval_ns;
	uint64_t end = o->live.duration_ns ? now + o->live.duration_ns :
					     UINT64_MAX;
	int ret = 0;

	while (!ret && !jr_run_stop.sig && now < end &&
	       !jr_attach_gone(&sa->a)) {
		ret = jr_attach_poll(&sa->a, JR_ATTACH_POLL_MS, jr_sattach_sink,
				     &sa->m);
		now = jr_mono_ns();
		if (ret || now < next)
			continue;
		ret = jr_sattach_refresh(sa);
		while (next <= now)
			next += so->interval_ns;
	}
	ret = ret ?: jr_attach_finish(&sa->a, jr_sattach_sink, &sa->m);
	if (!ret) {
		jr_sattach_threads(sa);
		jr_serve_refresh(&sa->s, &sa->m);
	}
	return ret;
}

/* jr_sattach_end - the report, then serve's failure if nothing else */
static int jr_sattach_end(struct jr_opts *o, struct jr_sattach *sa,
			  struct jr_sysinfo *sys, int ret)
{
	struct jr_outputs outs;

	jr_outputs_open(&outs, o, 0);
	if (ret)
		jr_warn("attach: %s", strerror(-ret));
	else
		ret = jr_attach_report(o, &sa->a, &sa->m, sys, &outs);
	jr_outputs_close(&outs);
	if (!ret && sa->s.fail) {
		jr_warn("%s", sa->s.why.msg);
		ret = sa->s.fail;
	}
	return ret < 0 ? JR_EXIT_RUN : ret;
}

int jr_serve_attach(struct jr_opts *o, int argc, char **argv)
{
	const struct jr_serve_opts *so = o->own;
	struct jr_attach_cfg cfg = {
		.tgid = so->attach_pid,
		.cpus = o->have_cpus ? o->cpus : NULL,
	};
	struct jr_sattach *sa = calloc(1, sizeof(*sa));
	struct jr_sysinfo sys;
	struct jr_err e;
	int ret;

	if (!sa)
		jr_die(JR_EXIT_RUN, "out of memory");
	if (jr_attach_check(&cfg, &e))
		jr_die(JR_EXIT_USAGE, "%s", e.msg);
	/* before the server process is made: it keeps the affinity */
	jr_house_default(o, o->cpus);
	jr_pin_house(o);
	jr_model_of(&sa->m, o);
	jr_sysinfo_fill(&sys, argc, argv);
	if (jr_serve_open(&sa->s, so, "attach", sys.kernel, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	sa->s.quiet = o->out.quiet;
	sa->s.prom.info.events_only = true;
	jr_catch_signals();
	if (jr_attach_open(&sa->a, &cfg, &e)) {
		jr_serve_close(&sa->s);
		jr_attach_close(&sa->a);
		jr_die(JR_EXIT_RUN, "attach: %s", e.msg);
	}
	if (jr_serve_start(&sa->s, &sa->m, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	jr_ready(o->live.ready_file);
	ret = jr_sattach_loop(o, sa);
	jr_serve_close(&sa->s);
	ret = jr_sattach_end(o, sa, &sys, ret);
	jr_attach_close(&sa->a);
	jr_model_free(&sa->m);
	free(sa);
	return ret;
}
