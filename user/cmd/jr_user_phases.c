// SPDX-License-Identifier: GPL-2.0
/*
 * jr_user_phases.c - the user side's phases and its report, shared by jitread
 * user and jitread compare.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/jr_out.h"
#include "cmd/jr_user_phases.h"
#include "common/jr_safe.h"
#include "common/jr_sys.h"
#include "core/jr_envelope.h"

int jr_model_sink(void *ctx, const struct jr_rec *r)
{
	return jr_model_add(ctx, r);
}

/* jr_udoc_sink - the user side's model, and --record's file if any. */
static int jr_udoc_sink(void *ctx, const struct jr_rec *r)
{
	struct jr_udoc *d = ctx;

	if (d->rec && jr_write(d->rec, r)) {
		jr_warn("%s: write failed; the recording stops here",
			d->record);
		fclose(d->rec);
		d->rec = NULL;
	}
	return jr_model_add(d->r.user, r);
}

/* jr_check_online - every CPU asked for must be online here. */
void jr_check_online(const struct jr_opts *o)
{
	char text[512];
	int cpu = jr_cpus_outside(o->cpus, "/sys/devices/system/cpu/online",
				  text, sizeof(text));

	if (cpu >= 0)
		jr_die(JR_EXIT_USAGE, "CPU %d is not online (online: %s)", cpu,
		       text);
}

/*
 * jr_journal_name - where round (from 1) of the pipeline keeps its
 * journal: --journal FILE, or FILE.round when compare runs several rounds.
 */
static void jr_journal_name(const struct jr_opts *o, uint64_t round, char *buf,
			    size_t len)
{
	if (o->user.rounds > 1)
		snprintf(buf, len, "%s.%" PRIu64, o->user.journal, round);
	else
		snprintf(buf, len, "%s", o->user.journal);
}

/*
 * jr_journal_check - before anything is measured: every journal the run
 * will make lies in a trusted directory and does not exist yet.
 */
static void jr_journal_check(const struct jr_opts *o)
{
	uint64_t r, rounds = o->user.rounds;
	char path[PATH_MAX];
	struct jr_err e;
	struct stat st;

	if (!o->user.journal || o->user.no_pipeline)
		return;
	if (jr_safe_parent(o->user.journal, &e))
		jr_die(JR_EXIT_RUN, "--journal %s", e.msg);
	for (r = 1; r <= rounds; r++) {
		jr_journal_name(o, r, path, sizeof(path));
		if (!lstat(path, &st))
			jr_die(JR_EXIT_RUN,
			       "%s: %s: the journal must be a new file", path,
			       strerror(EEXIST));
	}
}

void jr_udoc_init(struct jr_udoc *d, struct jr_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->o = o;
	/* -c is always set here: user needs it, compare takes jitmod's */
	d->r.ro = jr_report_opts_of(o);
	jr_user_info_init(&d->r.info, o->user.work);
	if (!o->user.no_pipeline) {
		struct jr_err e;

		if (jr_pipe_place(o->cpus, o->user.wait, &d->r.pcfg, &e))
			jr_die(JR_EXIT_USAGE, "%s", e.msg);
	}
	jr_journal_check(o);
	jr_outputs_open(&d->outs, o, 0);
}

/* jr_prepare - lock memory, measure the TSC, load BPF; say what is missing. */
void jr_prepare(struct jr_udoc *d, struct jr_ubpf *b, struct jr_sysinfo *sys)
{
	struct rlimit rl;

	jr_catch_signals();

	/*
	 * With a finite RLIMIT_MEMLOCK, MCL_FUTURE turns the samplers' own
	 * allocations into ENOMEM once the limit is reached; lock only when
	 * the limit cannot bite.
	 */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur != RLIM_INFINITY) {
		if (geteuid() != 0)
			jr_warn("memory not locked (RLIMIT_MEMLOCK); page faults may add noise");
		else
			setrlimit(RLIMIT_MEMLOCK,
				  &(struct rlimit){ RLIM_INFINITY,
						    RLIM_INFINITY });
	}
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur == RLIM_INFINITY &&
	    mlockall(MCL_CURRENT | MCL_FUTURE))
		jr_warn("mlockall: %s; page faults may add noise",
			strerror(errno));
	d->r.info.tsc_khz = jr_tsc_khz();
	if (!d->r.info.tsc_khz)
		jr_die(JR_EXIT_RUN, "cannot measure the TSC rate");
	if (!sys->tsc_khz)
		sys->tsc_khz = d->r.info.tsc_khz;
	if (d->o->user.no_bpf) {
		snprintf(d->r.info.bpf_why, sizeof(d->r.info.bpf_why),
			 "--no-bpf");
	} else if (jr_ubpf_open(b)) {
		jr_warn("user gaps unclassified: %s", b->why);
		snprintf(d->r.info.bpf_why, sizeof(d->r.info.bpf_why), "%s",
			 b->why);
	}
	d->r.info.bpf_ok = b->ok;
	if (b->ok)
		snprintf(d->r.info.bpf_details, sizeof(d->r.info.bpf_details),
			 "%s", b->details);
	d->r.uro = d->r.ro;
	d->r.uro.details = d->r.info.bpf_details;
	if (d->record) {
		struct jr_err e;

		if (jr_writer_open(&d->rec, d->record, sys, &e))
			jr_die(JR_EXIT_RUN, "%s", e.msg);
	}
}

/* jr_sample_phase - one run of the user samplers into d->r.user. */
void jr_sample_phase(struct jr_udoc *d, struct jr_ubpf *b, uint64_t ns)
{
	struct jr_user_cfg cfg = {
		.cpus = d->o->cpus,
		.threshold_ns = d->o->live.threshold_ns,
		.work = d->o->user.work,
		.fifo_prio = d->o->user.fifo_prio,
		.gaps_cap = d->o->user.max_gaps,
		.tsc_khz = d->r.info.tsc_khz,
		.stop = &jr_run_stop,
		.ready_file = d->o->live.ready_file,
		.warmup_ns = d->o->live.have_warmup ?
				     d->o->live.warmup_us * JR_US :
				     0,
	};
	struct jr_err e;

	if (d->fail)
		return;
	if (jr_user_phase(&cfg, b, ns, jr_udoc_sink, d, &d->r.info, &e))
		d->fail = jr_fail(&d->why, JR_EXIT_RUN, "user sampler: %s",
				  e.msg);
}

static void jr_pipe_merge(struct jr_udoc *d, struct jr_pipe_result *r)
{
	struct jr_pipe_result *m = &d->r.pipe;
	int i, k;

	if (!d->r.pipe_rounds++) {
		*m = *r; /* takes ownership of the histograms */
	} else {
		m->produced += r->produced;
		m->warmup += r->warmup;
		m->consumed[0] += r->consumed[0];
		m->consumed[1] += r->consumed[1];
		m->journal_entries += r->journal_entries;
		m->journal_kept += r->journal_kept;
		m->elapsed_s += r->elapsed_s;
		for (i = 0; i < 2; i++)
			for (k = 0; k < JR_STEP_NR; k++)
				m->slow[i][k] += r->slow[i][k];
		for (i = 0; i < JR_PH_NR; i++)
			if (jr_hist_merge(&m->hist[i], &r->hist[i]))
				jr_die(JR_EXIT_RUN, "out of memory");
		jr_pipe_free(r);
	}
	d->r.pipe_verified_rounds += r->verified;
	snprintf(d->r.pipe_verdict, sizeof(d->r.pipe_verdict), "%s",
		 r->verdict);
}

/*
 * jr_pipe_phase - one pipeline run.  Its journal goes to --journal, a new
 * file, or to a directory of our own that is removed after the check.
 */
void jr_pipe_phase(struct jr_udoc *d, uint64_t ns)
{
	struct jr_pipe_cfg *c = &d->r.pcfg;
	char dir[] = "/tmp/jitread-XXXXXX", path[PATH_MAX];
	struct jr_pipe_result r;
	struct jr_err e;
	int ret;

	if (d->o->user.no_pipeline || jr_run_stop.sig || d->fail)
		return;
	if (!d->o->user.journal && !mkdtemp(dir)) {
		d->fail = jr_fail(&d->why, JR_EXIT_RUN, "%s: %s", dir,
				  strerror(errno));
		return;
	}
	if (d->o->user.journal)
		jr_journal_name(d->o, d->r.pipe_rounds + 1, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/journal.bin", dir);
	c->fifo_prio = d->o->user.fifo_prio;
	c->duration_ns = ns;
	c->warmup_ns = d->o->user.warmup_ns;
	c->interval_ns = d->o->user.interval_ns;
	c->ring_size = d->o->user.ring_size;
	c->input = d->o->user.input;
	c->journal = path;
	c->journal_bytes = d->o->user.journal_bytes;
	c->tsc_khz = d->r.info.tsc_khz;
	c->stop = &jr_run_stop;
	ret = jr_pipe_run(c, &r, &e);
	if (!d->o->user.journal) {
		unlink(path);
		rmdir(dir);
	}
	if (ret) {
		jr_pipe_free(&r);
		d->fail = jr_fail(&d->why, JR_EXIT_RUN, "pipeline: %s", e.msg);
		return;
	}
	jr_pipe_merge(d, &r);
	d->r.pipe_ran = true;
}

/* The members after the primary side, then the audit of the CPUs. */
static int jr_udoc_json_extra(FILE *out, void *ctx)
{
	struct jr_udoc *d = ctx;

	if (jr_ureport_json(out, &d->r))
		return -1;
	return jr_json_audit_block(out, d->o->cpus);
}

static int jr_write_json(struct jr_udoc *d, const struct jr_sysinfo *sys)
{
	FILE *f = d->outs.json;
	int ret;

	if (!f)
		return 0;
	if (d->r.kernel)
		ret = jr_report_json_doc(f, "compare", d->r.kernel, "kernel",
					 sys, &d->r.ro, jr_udoc_json_extra, d);
	else
		ret = jr_report_json_doc(f, "user", d->r.user, "user", sys,
					 &d->r.uro, jr_udoc_json_extra, d);
	return jr_json_close(&d->outs, d->o->out.json, ret);
}

/*
 * jr_udoc_finish - the text report and --json with what was measured,
 * then what failed, if anything.  The exit code.
 */
int jr_udoc_finish(struct jr_udoc *d, const struct jr_sysinfo *sys)
{
	int ret, rc = 0;
	bool lost;

	d->r.threshold_ns = d->o->live.threshold_ns;
	d->r.phase_ns = d->o->user.phase_ns;
	if (d->r.kernel)
		jr_model_finish(d->r.kernel);
	jr_model_finish(d->r.user);
	if (!d->o->out.quiet) {
		if (d->r.kernel) {
			d->r.ro.title = "kernel side: jitmod";
			jr_report_text(stdout, d->r.kernel, sys, &d->r.ro);
			printf("\n");
		}
		d->r.uro.title = "user side: jitread's sampler thread per CPU";
		jr_report_text(stdout, d->r.user, sys, &d->r.uro);
		jr_ureport_text(stdout, &d->r);
		if (d->r.kernel)
			jr_compare_text(stdout, &d->r);
	}
	d->r.ro.title = NULL;
	if (d->rec && fclose(d->rec))
		jr_warn("%s: write failed", d->record);
	d->rec = NULL;
	lost = d->r.pipe_ran && d->r.pipe_verified_rounds != d->r.pipe_rounds;
	/* judged before --json is written: its return_code is the code */
	if (d->fail || lost) {
		rc = d->fail ?: JR_EXIT_RUN;
	} else {
		if (d->r.kernel)
			rc = jr_fail_if(d->o, d->r.kernel, JR_SIDE_KERNEL, true,
					"kernel", 0);
		rc = jr_fail_if(d->o, d->r.user, JR_SIDE_USER, !d->r.kernel,
				d->r.kernel ? "user" : NULL, rc);
	}
	jr_envelope_rc(rc);
	ret = jr_write_json(d, sys);
	jr_outputs_close(&d->outs);
	if (d->fail) {
		jr_warn("%s", d->why.msg);
		return d->fail;
	}
	if (lost) {
		jr_warn("pipeline lost messages: %s", d->r.pipe_verdict);
		return JR_EXIT_RUN;
	}
	return ret ?: rc;
}
