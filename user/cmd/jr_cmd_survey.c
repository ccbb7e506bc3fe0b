// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cmd_survey.c - jitread survey: run under mpirun (or srun), one rank
 * per CPU to measure; rank 0 writes the fleet's report.
 *
 * Each rank takes a CPU (--rank-cpus by local rank, else the launcher's
 * binding), waits at a barrier with the others, has its clock compared
 * with rank 0's, then samples it: with jitmod where it samples that CPU,
 * else the user sampler with BPF naming the sources (gaps); or fixed work
 * quanta with a barrier every K (fwq).  It
 * sends its report, jitread's JSON, to rank 0, which waits --timeout past
 * the run for each, then merges and compares what came; a rank that died
 * or hangs is named, not waited for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/jr_cmds.h"
#include "cmd/jr_live.h"
#include "cmd/jr_out.h"
#include "cmd/jr_user_phases.h"
#include "common/jr_safe.h"
#include "common/jr_sys.h"
#include "core/jr_envelope.h"
#include "core/jr_survey.h"
#include "fleet/jr_fwq.h"
#include "fleet/jr_rank.h"
#include "kernel/jr_kparams.h"
#include "kernel/jr_sysinfo.h"

/* --mode: the gap sampler, or fixed work quanta */
enum jr_survey_mode { JR_SURVEY_GAPS, JR_SURVEY_FWQ };

/* jitread survey's own options (o->own) */
struct jr_survey_own {
	unsigned char cpus[JR_MAX_CPUS]; /* --rank-cpus */
	bool have_cpus;
	int mode; /* enum jr_survey_mode */
	uint64_t quantum_ns;
	uint64_t every; /* quanta between barriers */
	uint64_t timeout_ns;
	int worst;
};

enum {
	JR_K_RANK_CPUS = JR_K_OWN,
	JR_K_MODE,
	JR_K_QUANTUM = 'g',
	JR_K_EVERY = JR_K_OWN + 2,
	JR_K_TIMEOUT,
	JR_K_WORST,
};

static const struct jr_optdef jr_survey_optdefs[] = {
	{ .group = jr_opt_duration },
	{ .group = jr_opt_threshold },
	{ .name = "rank-cpus",
	  .key = JR_K_RANK_CPUS,
	  .arg = "LIST",
	  .help = "the CPUs the ranks of a node take, by local rank\n"
		  "(default: the launcher's binding)" },
	{ .name = "cpus-per-rank", .key = JR_K_RANK_CPUS, .arg = "LIST" },
	{ .name = "mode",
	  .key = JR_K_MODE,
	  .arg = "MODE",
	  .help = "gaps (the gap sampler, default) or fwq (fixed work\n"
		  "quanta with a barrier every --barrier-every)" },
	{ .name = "quantum",
	  .key = JR_K_QUANTUM,
	  .arg = "TIME",
	  .help = "fwq: the work quantum (default 100us); bare: us" },
	{ .name = "barrier-every",
	  .key = JR_K_EVERY,
	  .arg = "K",
	  .help = "fwq: quanta between barriers (default 100)" },
	{ .name = "timeout",
	  .key = JR_K_TIMEOUT,
	  .arg = "TIME",
	  .help = "how long to wait for a rank past the run (default\n"
		  "30s); bare: s" },
	{ .name = "worst",
	  .key = JR_K_WORST,
	  .arg = "K",
	  .help = "ranks named worst (default 5)" },
	{ .group = jr_opt_quiet },
	{ .group = jr_opt_unit },
	{ .group = jr_opt_json },
	{ .group = jr_opt_fifo },
	{ .group = jr_opt_help },
	{ 0 },
};

/* jr_survey_defaults - a survey is short unless -d says otherwise */
static void jr_survey_defaults(struct jr_opts *o)
{
	struct jr_survey_own *so = o->own;

	so->quantum_ns = 100 * JR_US;
	so->every = 100;
	so->timeout_ns = 30 * JR_S;
	so->worst = 5;
	o->live.duration_ns = 10 * JR_S;
}

static enum jr_optres jr_survey_apply(int key, const char *arg,
				      const struct jr_optenv *env)
{
	static const char *const modes[] = { "gaps", "fwq" };
	struct jr_survey_own *so = env->own;

	switch (key) {
	case JR_K_RANK_CPUS:
		if (jr_parse_cpus(arg, so->cpus, env->e))
			return JR_OPT_SAID;
		so->have_cpus = true;
		return JR_OPT_TAKEN;
	case JR_K_MODE:
		return jr_taken(jr_opt_name(arg, modes, 2, &so->mode));
	case JR_K_QUANTUM:
		return jr_taken(jr_parse_time(arg, JR_US, JR_US, JR_S,
					      &so->quantum_ns));
	case JR_K_EVERY:
		return jr_taken(jr_parse_u64(arg, 1, 1000000, &so->every));
	case JR_K_TIMEOUT:
		return jr_taken(jr_parse_time(arg, JR_S, JR_S, 3600 * JR_S,
					      &so->timeout_ns));
	case JR_K_WORST:
		return jr_taken(jr_opt_int(arg, 1, 100000, &so->worst));
	}
	return JR_OPT_NOT_MINE;
}

struct jr_rank_run {
	struct jr_rank rk;
	struct jr_opts *o;
	const struct jr_survey_own *so; /* o->own */
	int argc;
	char **argv;
	int cpu;
	struct jr_fwq fwq;
	double barrier_s;
	bool jitmod; /* sampled by jitmod, not the user sampler */
	uint64_t t0_ns; /* the timeline's origin, on the rank's clock */
	bool quiet; /* rank 0: no text report */
	const char *json; /* rank 0's --json */
	FILE *json_f; /* opened before the run */
	struct jr_model m;
	struct jr_sysinfo sys;
	struct jr_survey s; /* rank 0: the fleet */
};

/* jr_local_rank - the rank among this node's, as the launcher says */
static int jr_local_rank(int rank)
{
	const char *v = getenv("OMPI_COMM_WORLD_LOCAL_RANK");

	if (!v)
		v = getenv("SLURM_LOCALID");
	if (!v)
		v = getenv("MPI_LOCALRANKID");
	return v ? atoi(v) : rank;
}

/* jr_rank_cpu - --rank-cpus' CPU for this local rank, else the binding's */
static int jr_rank_cpu(const struct jr_survey_own *so, int rank)
{
	int cpu, n = 0, want = jr_local_rank(rank), i;
	cpu_set_t set;

	if (so->have_cpus) {
		for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
			n += so->cpus[cpu];
		for (cpu = 0, i = 0; cpu < JR_MAX_CPUS; cpu++)
			if (so->cpus[cpu] && i++ == want % n)
				return cpu;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	n = CPU_COUNT(&set);
	for (cpu = 0, i = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && i++ == want % n)
			return cpu;
	return -1;
}

/* jr_survey_extra - who sent the report, and fwq's windows */
static int jr_survey_extra(FILE *out, void *ctx)
{
	struct jr_rank_run *rr = ctx;
	uint64_t i;

	fprintf(out, ",\"survey\":{\"rank\":%d,\"t0_ns\":%llu,\"host\":",
		rr->rk.rank, (unsigned long long)rr->t0_ns);
	jr_json_str(out, rr->rk.host);
	fprintf(out, ",\"cpu\":%d,\"mode\":\"%s\",\"backend\":\"%s\"", rr->cpu,
		rr->so->mode == JR_SURVEY_FWQ ? "fwq" : "gaps",
		rr->jitmod ? "jitmod" : "user");
	if (rr->so->mode == JR_SURVEY_FWQ) {
		fprintf(out,
			",\"quantum_ns\":%llu,\"quanta\":%llu,\"windows_ns\":[",
			(unsigned long long)rr->fwq.min_ns,
			(unsigned long long)rr->fwq.quanta);
		for (i = 0; i < rr->fwq.nr_win; i++)
			fprintf(out, "%s%llu", i ? "," : "",
				(unsigned long long)rr->fwq.win_ns[i]);
		fprintf(out, "]");
	}
	fprintf(out, "}");
	return 0;
}

static int jr_fwq_barrier(void *ctx)
{
	struct jr_rank_run *rr = ctx;

	return rr->rk.mpi->barrier(rr->barrier_s);
}

/* jr_jitmod_samples - jitmod is loaded and samples cpu */
static bool jr_jitmod_samples(int cpu)
{
	unsigned char set[JR_MAX_CPUS];
	char text[512];

	return jr_module_loaded() &&
	       !jr_read_cpulist(JR_PARAMS_DIR "/cpus", set, text,
				sizeof(text)) &&
	       set[cpu];
}

/*
 * jr_measure_jitmod - jitmod's events of this rank's CPU for -d, as
 * jitread hist reads them; jitmod's settings are left as they are, since
 * the node's other ranks read the same module.
 */
static void jr_measure_jitmod(struct jr_rank_run *rr, struct jr_model *m,
			      struct jr_sysinfo *sys)
{
	/* on CLOCK_MONOTONIC, as the user sampler's and other hosts' gaps */
	struct jr_live c = { .o = rr->o, .mono_clock = true };
	int ret;

	rr->o->live.threshold_ns = 0;
	ret = jr_live_run(&c, rr->argc, rr->argv);
	ret = jr_live_end(&c, ret);
	if (ret)
		jr_die(ret, "rank %d: reading jitmod failed", rr->rk.rank);
	jr_model_free(m);
	*m = c.model;
	memset(&c.model, 0, sizeof(c.model));
	*sys = c.sys;
	jr_live_free(&c);
}

/* jr_measure - this rank's CPU, into m */
static void jr_measure(struct jr_rank_run *rr, struct jr_model *m,
		       struct jr_sysinfo *sys)
{
	struct jr_opts *o = rr->o;
	struct jr_ubpf b;
	struct jr_udoc d;
	int ret;

	if (rr->jitmod) {
		jr_measure_jitmod(rr, m, sys);
		return;
	}
	if (rr->so->mode == JR_SURVEY_FWQ) {
		rr->fwq.quantum_ns = rr->so->quantum_ns;
		rr->fwq.every = rr->so->every;
		rr->barrier_s = rr->so->timeout_ns / 1e9;
		ret = jr_fwq_run(&rr->fwq, o->live.duration_ns, rr->cpu,
				 jr_fwq_barrier, rr, o->live.threshold_ns, m);
		if (ret)
			jr_die(JR_EXIT_RUN, "rank %d: fixed work quanta: %s",
			       rr->rk.rank, strerror(-ret));
		return;
	}
	jr_udoc_init(&d, o);
	d.r.user = m;
	jr_prepare(&d, &b, sys);
	jr_sample_phase(&d, &b, o->live.duration_ns);
	jr_ubpf_close(&b);
	if (d.fail)
		jr_die(JR_EXIT_RUN, "rank %d: %s", rr->rk.rank, d.why.msg);
}

/* jr_rank_report - this rank's report as JSON in memory */
static char *jr_rank_report(struct jr_rank_run *rr, struct jr_model *m,
			    const struct jr_sysinfo *sys, size_t *len)
{
	struct jr_report_opts ro = jr_report_opts_of(rr->o);
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		jr_die(JR_EXIT_RUN, "out of memory");
	jr_model_finish(m);
	if (jr_report_json_doc(f, rr->jitmod ? "kernel" : "user", m,
			       rr->jitmod ? "kernel" : "user", sys, &ro,
			       jr_survey_extra, rr) ||
	    fclose(f))
		jr_die(JR_EXIT_RUN, "rank %d: cannot write its report",
		       rr->rk.rank);
	return buf;
}

/* jr_survey_measure - this rank's CPU measured; its report (jr_rank.h) */
static char *jr_survey_measure(void *ctx, size_t *len)
{
	struct jr_rank_run *rr = ctx;

	jr_measure(rr, &rr->m, &rr->sys);
	rr->t0_ns = rr->m.t0_ns;
	return jr_rank_report(rr, &rr->m, &rr->sys, len);
}

/* jr_survey_take - rank 0: a rank's report, merged as it comes */
static void jr_survey_take(void *ctx, int rank, const void *buf, size_t len)
{
	struct jr_rank_run *rr = ctx;
	struct jr_err e;

	if (jr_survey_add(&rr->s, rank, buf, len, &e)) {
		jr_survey_missing(&rr->s, rank, e.msg);
		jr_warn("rank %d's report: %s", rank, e.msg);
	}
}

static void jr_survey_gone(void *ctx, int rank, const char *why)
{
	struct jr_rank_run *rr = ctx;

	jr_survey_missing(&rr->s, rank, why);
}

/* jr_survey_end - rank 0: the fleet analysed, said and written */
static int jr_survey_end(void *ctx, const struct jr_rank *rk)
{
	struct jr_rank_run *rr = ctx;
	struct jr_survey *s = &rr->s;
	int r, missing = 0, ret = 0;
	struct jr_err e;

	for (r = 0; r < rk->size; r++) {
		s->r[r].offset_ns = rk->off_ns[r];
		s->r[r].rtt_ns = rk->rtt_ns[r];
		missing += !s->r[r].ok;
	}
	if (jr_survey_analyse(s))
		jr_die(JR_EXIT_RUN,
		       "the fleet's analysis failed: out of memory, or its temporary file");
	if (!rr->quiet) {
		struct jr_report_opts ro = jr_report_opts_of(rr->o);

		jr_survey_text(stdout, s, rr->so->worst, &ro);
	}
	jr_envelope_rc(missing ? JR_EXIT_RUN : 0);
	if (rr->json_f && (jr_survey_json(rr->json_f, s, rr->so->worst) ||
			   fclose(rr->json_f)))
		ret = jr_fail(&e, JR_EXIT_RUN, "%s: write failed", rr->json);
	if (ret)
		jr_warn("%s", e.msg);
	jr_survey_free(s);
	return ret ? ret : missing ? JR_EXIT_RUN : 0;
}

static const struct jr_rank_ops jr_survey_rank_ops = {
	.measure = jr_survey_measure,
	.take = jr_survey_take,
	.missing = jr_survey_gone,
	.end = jr_survey_end,
};

/* jr_pin_off - the reader's threads off the sampled CPU, where it can */
static void jr_pin_off(int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	CPU_CLR(cpu, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

/*
 * jr_survey_setup - this rank's CPU and options; rank 0's --json opened
 * and its fleet made ready
 */
static void jr_survey_setup(struct jr_rank_run *rr)
{
	struct jr_opts *o = rr->o;
	struct jr_err e;

	rr->cpu = jr_rank_cpu(rr->so, rr->rk.rank);
	if (rr->cpu < 0)
		jr_die(JR_EXIT_RUN, "rank %d: no CPU to take", rr->rk.rank);
	memset(o->cpus, 0, sizeof(o->cpus));
	o->cpus[rr->cpu] = 1;
	o->have_cpus = true;
	o->user.no_pipeline = true;
	if (!o->live.threshold_ns)
		o->live.threshold_ns = 1000;
	if (rr->rk.rank == 0 && o->out.json) {
		rr->json_f = jr_safe_fopen(o->out.json, &e);
		if (!rr->json_f)
			jr_die(JR_EXIT_RUN, "%s", e.msg);
	}
	if (rr->rk.rank == 0 &&
	    jr_survey_init(&rr->s, rr->rk.size,
			   rr->so->mode == JR_SURVEY_FWQ ? "fwq" : "gaps",
			   o->out.precision))
		jr_die(JR_EXIT_RUN, "out of memory, or no temporary file");
	rr->quiet = o->out.quiet;
	rr->json = o->out.json;
	o->out.json = NULL; /* each rank's report goes to rank 0 */
	o->out.quiet = true;
}

static int jr_survey_run(struct jr_opts *o, int argc, char **argv)
{
	struct jr_rank_run rr = {
		.o = o, .so = o->own, .argc = argc, .argv = argv
	};
	struct jr_err e;
	int ret;

	if (jr_rank_init(&rr.rk, rr.so->timeout_ns / 1e9, &e))
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	jr_survey_setup(&rr);
	jr_sysinfo_fill(&rr.sys, argc, argv);
	jr_model_of(&rr.m, o);
	rr.jitmod = rr.so->mode == JR_SURVEY_GAPS && jr_jitmod_samples(rr.cpu);
	if (rr.so->mode == JR_SURVEY_GAPS)
		jr_pin_off(rr.cpu);
	ret = jr_rank_run(&rr.rk, &jr_survey_rank_ops, &rr);
	jr_rank_free(&rr.rk);
	jr_fwq_free(&rr.fwq);
	jr_model_free(&rr.m);
	return ret;
}

static const struct jr_opthelp jr_survey_helps[] = {
	{ JR_K_DURATION, "sample for TIME, e.g. 30s, 5m, 1h; bare: s\n"
			 "(default: 10s)" },
	{ JR_K_THRESHOLD, "the sampler's threshold (default 1us); bare: us" },
	{ 0 },
};

const struct jr_cmd_def jr_cmd_survey = {
	.name = "survey",
	.summary = "noise across MPI ranks: run under mpirun or srun",
	.opts = jr_survey_optdefs,
	.helps = jr_survey_helps,
	.own_size = sizeof(struct jr_survey_own),
	.defaults = jr_survey_defaults,
	.apply = jr_survey_apply,
	.synopsis = "[options]   (mpirun -n N jitread survey ...)",
	.about =
		"Each rank samples one CPU at the same time as the others, with the user\n"
		"sampler (gaps) or fixed work quanta and a barrier every K (fwq); rank 0\n"
		"merges the ranks' histograms exactly and reports per rank and host, the\n"
		"fleet's distribution, the worst ranks, outliers and the sources they\n"
		"share, noise that comes together, and (fwq) the BSP slowdown.",
	.run = jr_survey_run,
};
