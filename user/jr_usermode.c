// SPDX-License-Identifier: GPL-2.0
/*
 * jr_usermode.c - run the user side on its own (--user) or alternate it
 * with jitmod on the same CPUs (--compare).
 *
 * The kernel and the user samplers cannot both spin on one CPU, so a
 * comparison runs phases: kernel, user, kernel, user...  A kernel phase
 * switches jitmod on (its enable parameter) and drains its events; a user
 * phase switches it off, runs the user sampler on every CPU and then the
 * pipeline.  Both sides use the same threshold, and jitmod's setting is
 * put back at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "jr_sys.h"
#include "jr_trace.h"
#include "jr_usermode.h"

#define JR_DEFAULT_USER_S 10

static int jr_model_sink(void *ctx, const struct jr_rec *r)
{
	return jr_model_add(ctx, r);
}

static void jr_on_stop(int sig)
{
	jr_interrupted = sig;
}

/* jr_check_online - every CPU asked for must be online here. */
static void jr_check_online(const struct jr_opts *o)
{
	unsigned char online[JR_MAX_CPUS];
	char text[512], err[128];
	int cpu;

	if (jr_read_line("/sys/devices/system/cpu/online", text,
			 sizeof(text)) ||
	    jr_parse_cpus(text, online, err, sizeof(err)))
		return;
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
		if (o->cpus[cpu] && !online[cpu])
			jr_die(JR_EXIT_USAGE,
			       "CPU %d is not online (online: %s)", cpu, text);
}

static void jr_udoc_init(struct jr_udoc *d, struct jr_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->o = o;
	d->ro.unit = o->unit;
	d->ro.div = o->div;
	d->ro.no_header = o->no_header;
	d->ro.with_zeros = o->with_zeros;
	d->ro.cpu_set = o->cpus;
	jr_user_info_init(&d->info, o->work);
	d->pcfg.wait = o->wait;
	if (!o->no_pipeline) {
		char err[256];

		if (jr_pipe_place(o->cpus, o->wait, &d->pcfg, err, sizeof(err)))
			jr_die(JR_EXIT_USAGE, "%s", err);
	}
}

/* jr_prepare - lock memory, measure the TSC, load BPF; say what is missing. */
static void jr_prepare(struct jr_udoc *d, struct jr_ubpf *b,
		       struct jr_sysinfo *sys)
{
	struct sigaction sa = { .sa_handler = jr_on_stop };
	struct rlimit rl;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	/*
	 * With a finite RLIMIT_MEMLOCK, MCL_FUTURE turns the samplers' own
	 * allocations into ENOMEM once the limit is reached; lock only when
	 * the limit cannot bite.
	 */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur != RLIM_INFINITY) {
		if (geteuid() != 0)
			fprintf(stderr,
				"jitread: memory not locked (RLIMIT_MEMLOCK); page faults may add noise\n");
		else
			setrlimit(RLIMIT_MEMLOCK,
				  &(struct rlimit){ RLIM_INFINITY,
						    RLIM_INFINITY });
	}
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur == RLIM_INFINITY &&
	    mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr,
			"jitread: mlockall: %s; page faults may add noise\n",
			strerror(errno));
	d->info.tsc_khz = jr_tsc_khz();
	if (!d->info.tsc_khz)
		jr_die(JR_EXIT_RUN, "cannot measure the TSC rate");
	if (!sys->tsc_khz)
		sys->tsc_khz = d->info.tsc_khz;
	if (jr_ubpf_open(b)) {
		fprintf(stderr, "jitread: user gaps unclassified: %s\n",
			b->why);
		snprintf(d->info.bpf_why, sizeof(d->info.bpf_why), "%s",
			 b->why);
	}
	d->info.bpf_ok = b->ok;
}

/* jr_sample_phase - one run of the user samplers into d->user. */
static void jr_sample_phase(struct jr_udoc *d, struct jr_ubpf *b, uint64_t secs)
{
	struct jr_user_cfg cfg = {
		.cpus = d->o->cpus,
		.threshold_ns = d->o->threshold_ns,
		.work = d->o->work,
		.fifo_prio = d->o->fifo_prio,
		.gaps_cap = d->o->max_gaps,
		.tsc_khz = d->info.tsc_khz,
		.stop = (volatile int *)&jr_interrupted,
		.ready_file = d->o->ready_file,
	};
	char err[256] = "";

	if (jr_user_phase(&cfg, b, secs * 1000000000ULL, jr_model_sink, d->user,
			  &d->info, err, sizeof(err)) &&
	    !jr_interrupted)
		jr_die(JR_EXIT_RUN, "user sampler: %s", err);
}

static void jr_pipe_merge(struct jr_udoc *d, struct jr_pipe_result *r)
{
	struct jr_pipe_result *m = &d->pipe;
	int i;

	if (!d->pipe_rounds++) {
		*m = *r; /* takes ownership of the histograms */
	} else {
		m->produced += r->produced;
		m->warmup += r->warmup;
		m->consumed[0] += r->consumed[0];
		m->consumed[1] += r->consumed[1];
		m->journal_entries += r->journal_entries;
		m->elapsed_s += r->elapsed_s;
		for (i = 0; i < JR_PH_NR; i++)
			if (jr_hist_merge(&m->hist[i], &r->hist[i]))
				jr_die(JR_EXIT_RUN, "out of memory");
		jr_pipe_free(r);
	}
	d->pipe_verified_rounds += r->verified;
	snprintf(d->pipe_verdict, sizeof(d->pipe_verdict), "%s", r->verdict);
}

/* jr_pipe_phase - one pipeline run; its journal is checked, then removed. */
static void jr_pipe_phase(struct jr_udoc *d, uint64_t secs)
{
	struct jr_pipe_cfg *c = &d->pcfg;
	struct jr_pipe_result r;
	char path[64], err[256] = "";
	int ret;

	if (d->o->no_pipeline || jr_interrupted)
		return;
	snprintf(path, sizeof(path), "/tmp/jitread-journal-%d.bin", getpid());
	c->fifo_prio = d->o->fifo_prio;
	c->duration_ns = secs * 1000000000ULL;
	c->warmup_ns = d->o->warmup_ms * 1000000ULL;
	c->interval_ns = d->o->interval_ns;
	c->ring_size = d->o->ring_size;
	c->input = d->o->input;
	c->journal = d->o->journal ? d->o->journal : path;
	c->tsc_khz = d->info.tsc_khz;
	c->stop = (volatile int *)&jr_interrupted;
	ret = jr_pipe_run(c, &r, err, sizeof(err));
	if (!d->o->journal)
		unlink(path);
	if (ret) {
		jr_pipe_free(&r);
		if (!jr_interrupted)
			jr_die(JR_EXIT_RUN, "pipeline: %s", err);
		return;
	}
	jr_pipe_merge(d, &r);
	d->pipe_ran = true;
}

static void jr_write_json(struct jr_udoc *d, const struct jr_sysinfo *sys)
{
	const char *path = d->o->json;
	FILE *f;
	int ret;

	if (!path)
		return;
	f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f)
		jr_die(JR_EXIT_RUN, "%s: %s", path, strerror(errno));
	if (d->kernel)
		ret = jr_report_json_doc(f, "compare", d->kernel, "kernel", sys,
					 &d->ro, jr_udoc_json_extra, d);
	else
		ret = jr_report_json_doc(f, "user", d->user, "user", sys,
					 &d->ro, jr_udoc_json_extra, d);
	if ((f != stdout && fclose(f)) || ret)
		jr_die(JR_EXIT_RUN, "%s: write failed", path);
}

static int jr_finish(struct jr_udoc *d, const struct jr_sysinfo *sys)
{
	if (!d->o->quiet) {
		if (d->kernel) {
			d->ro.title = "kernel side: jitmod";
			jr_report_text(stdout, d->kernel, sys, &d->ro);
			printf("\n");
		}
		d->ro.title = "user side: jitread's sampler thread per CPU";
		jr_report_text(stdout, d->user, sys, &d->ro);
		jr_udoc_text(stdout, d);
		if (d->kernel)
			jr_compare_text(stdout, d);
	}
	d->ro.title = NULL;
	jr_write_json(d, sys);
	if (d->pipe_ran && d->pipe_verified_rounds != d->pipe_rounds) {
		fprintf(stderr, "jitread: pipeline lost messages: %s\n",
			d->pipe_verdict);
		return JR_EXIT_RUN;
	}
	return 0;
}

int jr_run_user(struct jr_opts *o, struct jr_sysinfo *sys, int argc,
		char **argv)
{
	struct jr_model user;
	struct jr_udoc d;
	struct jr_ubpf b;
	uint64_t secs = o->duration_s ? o->duration_s : JR_DEFAULT_USER_S;
	int ret;

	jr_check_online(o);
	jr_udoc_init(&d, o);
	if (!o->threshold_ns)
		o->threshold_ns = 1000;
	jr_model_init(&user, o->precision, o->bucket_ns, o->entries);
	d.user = &user;
	jr_sysinfo_fill(sys, argc, argv);
	jr_prepare(&d, &b, sys);
	jr_sample_phase(&d, &b, secs);
	jr_pipe_phase(&d, secs);
	d.rounds_done = 1;
	ret = jr_finish(&d, sys);
	jr_ubpf_close(&b);
	jr_model_free(&user);
	jr_pipe_free(&d.pipe);
	return ret;
}

/* jr_compare_cpus - -c, or jitmod's own CPUs. */
static void jr_compare_cpus(struct jr_opts *o)
{
	static char text[512];
	char err[128];

	if (o->have_cpus)
		return;
	if (jr_read_line(JR_PARAMS_DIR "/cpus", text, sizeof(text)) ||
	    jr_parse_cpus(text, o->cpus, err, sizeof(err)))
		jr_die(JR_EXIT_RUN, "cannot read jitmod's cpus parameter");
	o->have_cpus = true;
	o->cpus_text = text;
}

static void jr_jitmod_enable(int on)
{
	if (jr_write_param("enable", on))
		jr_die(JR_EXIT_RUN, "cannot set jitmod's enable=%d: %s", on,
		       strerror(errno));
}

/* jr_kernel_phase - jitmod samples for secs; its events go to d->kernel. */
static int jr_kernel_phase(struct jr_stream *s, uint64_t secs,
			   const char *ready_file)
{
	uint64_t ticks = secs * 10;
	int ret = 0;

	jr_jitmod_enable(1);
	jr_ready(ready_file);
	while (ticks-- && !jr_interrupted && !ret) {
		usleep(100000);
		ret = jr_stream_drain(s);
		if (!jr_module_loaded())
			return -ENODEV;
	}
	jr_jitmod_enable(0);
	usleep(200000); /* the last period's summary */
	return ret ? ret : jr_stream_drain(s);
}

int jr_run_compare(struct jr_opts *o, struct jr_sysinfo *sys, int argc,
		   char **argv)
{
	struct jr_model kernel, user;
	struct jr_stream s;
	struct jr_udoc d;
	struct jr_ubpf b;
	char text[64], err[256];
	uint64_t r;
	int ret = 0, was_on;

	jr_preflight(o);
	jr_compare_cpus(o);
	jr_check_online(o);
	jr_udoc_init(&d, o);
	jr_set_params(o);
	if (!o->threshold_ns &&
	    (jr_read_line(JR_PARAMS_DIR "/threshold_ns", text, sizeof(text)) ||
	     sscanf(text, "%" SCNu64, &o->threshold_ns) != 1))
		jr_die(JR_EXIT_RUN, "cannot read jitmod's threshold_ns");
	was_on = !jr_read_line(JR_PARAMS_DIR "/enable", text, sizeof(text)) &&
		 text[0] == '1';
	jr_model_init(&kernel, o->precision, o->bucket_ns, o->entries);
	jr_model_init(&user, o->precision, o->bucket_ns, o->entries);
	d.kernel = &kernel;
	d.user = &user;
	jr_sysinfo_fill(sys, argc, argv);
	jr_remove_stale_instances();
	jr_jitmod_enable(0);
	if (jr_stream_open(&s, o->buffer_kb, jr_model_sink, &kernel, err,
			   sizeof(err)))
		jr_die(JR_EXIT_RUN, "%s", err);
	jr_prepare(&d, &b, sys);
	for (r = 0; r < o->rounds && !jr_interrupted && !ret; r++) {
		if (!o->quiet)
			fprintf(stderr,
				"jitread: round %" PRIu64 "/%" PRIu64
				": kernel %" PRIu64 " s, user %" PRIu64
				" s%s\n",
				r + 1, o->rounds, o->phase_s, o->phase_s,
				o->no_pipeline ? "" : ", pipeline");
		ret = jr_kernel_phase(&s, o->phase_s, o->ready_file);
		if (ret)
			break;
		jr_sample_phase(&d, &b, o->phase_s);
		jr_pipe_phase(&d, o->phase_s);
		d.rounds_done++;
	}
	jr_stream_close(&s);
	if (jr_module_loaded())
		jr_jitmod_enable(was_on);
	if (ret == -ENODEV)
		fprintf(stderr,
			"jitread: jitmod was unloaded during the run; the report covers what was read before\n");
	else if (ret)
		fprintf(stderr, "jitread: reading the trace failed: %s\n",
			strerror(ret < 0 ? -ret : ret));
	ret = ret == -ENODEV ? JR_EXIT_GONE : ret ? JR_EXIT_RUN : 0;
	ret = jr_finish(&d, sys) ?: ret;
	jr_ubpf_close(&b);
	jr_model_free(&kernel);
	jr_model_free(&user);
	jr_pipe_free(&d.pipe);
	return ret;
}
