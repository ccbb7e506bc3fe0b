// SPDX-License-Identifier: GPL-2.0
/*
 * jr_out.c - the report's options and files, as every kernel-side
 * subcommand writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/jr_out.h"
#ifndef JR_CORE_ONLY
#include "tune/jr_audit_check.h"
#endif
#include "common/jr_safe.h"

struct jr_report_opts jr_report_opts_of(const struct jr_opts *o)
{
	struct jr_report_opts ro = {
		.unit = o->out.unit,
		.div = o->out.div,
		.no_header = o->out.no_header,
		.with_zeros = o->out.with_zeros,
		.no_summary = o->out.no_summary,
		.no_index = o->out.no_index,
		.cpu_set = o->have_cpus ? o->cpus : NULL,
	};

	return ro;
}

/* jr_model_of - an empty model with the histograms -b, -E and
 * --precision ask for. */
void jr_model_of(struct jr_model *m, const struct jr_opts *o)
{
	jr_model_init(m, o->out.precision, o->out.bucket_ns, o->out.entries);
}

/* jr_out_dir_open - --csv's or --hgrm's directory, made if need be. */
static void jr_out_dir_open(struct jr_out_dir *d, const char *path)
{
	struct jr_err e;

	d->path = path;
	d->fd = -1;
	if (path) {
		d->fd = jr_safe_dir(path, 1, &e);
		if (d->fd < 0)
			jr_die(JR_EXIT_RUN, "%s", e.msg);
	}
}

/* jr_trace_dirs - the directory of each trace= action; dies on a bad one. */
static void jr_trace_dirs(const struct jr_actions *l)
{
	struct jr_err e;
	int i;

	for (i = 0; i < l->nr; i++)
		if (l->a[i].kind == JR_ACT_TRACE &&
		    jr_safe_parent(l->a[i].arg, &e))
			jr_die(JR_EXIT_RUN, "trace=%s", e.msg);
}

/* jr_hlog_start - --hlog's file and header; start_epoch_s 0: not live. */
static void jr_hlog_start(struct jr_outputs *f, const struct jr_opts *o,
			  double start_epoch_s)
{
	struct jr_err e;
	FILE *fp;

	memset(&f->hlog, 0, sizeof(f->hlog));
	if (!o->out.hlog)
		return;
	fp = jr_safe_fopen(o->out.hlog, &e);
	if (!fp)
		jr_die(JR_EXIT_RUN, "%s", e.msg);
	if (jr_hlog_open(&f->hlog, fp, o->out.hlog_interval_ns,
			 o->out.precision, start_epoch_s))
		jr_die(JR_EXIT_RUN, "out of memory");
}

/*
 * jr_outputs_open - --json (stdout for "-"), --csv, --hgrm and --hlog,
 * and the directories of trace= actions, checked now; dies on a bad one.
 * start_epoch_s dates --hlog's intervals in a live run (0: a recording).
 */
void jr_outputs_open(struct jr_outputs *f, const struct jr_opts *o,
		     double start_epoch_s)
{
	const char *path = o->out.json;
	struct jr_err e;

	f->json = NULL;
	if (path) {
		f->json = strcmp(path, "-") ? jr_safe_fopen(path, &e) : stdout;
		if (!f->json)
			jr_die(JR_EXIT_RUN, "%s", e.msg);
	}
	jr_out_dir_open(&f->csv, o->out.csv);
	jr_out_dir_open(&f->hgrm, o->out.hgrm);
	jr_hlog_start(f, o, start_epoch_s);
	jr_trace_dirs(&o->live.on_thr);
	jr_trace_dirs(&o->live.on_end);
}

/* jr_json_close - close --json's file; JR_EXIT_RUN after a failed write. */
int jr_json_close(struct jr_outputs *f, const char *path, int write_err)
{
	int bad = write_err || ferror(f->json);

	if (f->json != stdout)
		bad |= fclose(f->json) != 0;
	else
		bad |= fflush(stdout) != 0;
	f->json = NULL;
	if (bad) {
		jr_warn("%s: write failed", path);
		return JR_EXIT_RUN;
	}
	return 0;
}

#ifdef JR_CORE_ONLY
/* A build without the optional layers has no audit to add. */
int jr_json_audit_block(FILE *out, const unsigned char *cpus)
{
	(void)out;
	(void)cpus;
	return 0;
}
#else
/*
 * jr_json_audit_block - the audit of cpus (none set: the default ones) as
 * a report's "audit" member, read now; nothing when it cannot be read
 * (jitread audit says why).
 */
int jr_json_audit_block(FILE *out, const unsigned char *cpus)
{
	unsigned char def[JR_MAX_CPUS];
	struct jr_checks c = { 0 };
	struct jr_audit a = { 0 };
	struct jr_err e;
	int cpu, ret = 0;

	for (cpu = 0; cpu < JR_MAX_CPUS && !cpus[cpu]; cpu++)
		;
	if (cpu == JR_MAX_CPUS && !jr_audit_default_cpus("", def))
		cpus = def;
	if (!jr_audit_read(&a, "", cpus, &e) && !jr_audit_checks(&a, &c)) {
		fprintf(out, ",\n  \"audit\": ");
		ret = jr_audit_json(out, &a, &c, false);
	}
	free(c.k);
	jr_audit_free(&a);
	return ret;
}
#endif

static int jr_json_audit_extra(FILE *out, void *ctx)
{
	return jr_json_audit_block(out, ctx);
}

/*
 * jr_report_json_live - a live run's JSON report, with the audit of the
 * CPUs it measured as they are set up at the end of the run.
 */
static int jr_report_json_live(FILE *out, const struct jr_model *m,
			       const struct jr_sysinfo *sys,
			       const struct jr_report_opts *ro)
{
	static unsigned char cpus[JR_MAX_CPUS];
	int cpu;

	memset(cpus, 0, sizeof(cpus));
	for (cpu = 0; cpu < m->nr_cpus && cpu < JR_MAX_CPUS; cpu++)
		if (m->cpu[cpu].seen && jr_cpu_wanted(m, ro, cpu))
			cpus[cpu] = 1;
	return jr_report_json_doc(out, "kernel", m, "kernel", sys, ro,
				  jr_json_audit_extra, cpus);
}

/*
 * jr_report_files - --json, --csv and --hgrm into what jr_outputs_open
 * opened; a live run's JSON holds the audit.  Each is tried; 0, or
 * JR_EXIT_RUN after saying what failed.
 */
int jr_report_files(struct jr_outputs *f, const struct jr_model *m,
		    const struct jr_sysinfo *sys, const struct jr_opts *o,
		    bool live)
{
	struct jr_report_opts ro = jr_report_opts_of(o);
	struct jr_err e;
	int ret = 0;

	if (f->json)
		ret = jr_json_close(
			f, o->out.json,
			live ? jr_report_json_live(f->json, m, sys, &ro) :
			       jr_report_json(f->json, m, sys, &ro));
	if (f->csv.fd >= 0 && jr_report_csv(&f->csv, m, &ro, &e)) {
		jr_warn("%s", e.msg);
		ret = JR_EXIT_RUN;
	}
	if (f->hgrm.fd >= 0 && jr_report_hgrm(&f->hgrm, m, &ro, &e)) {
		jr_warn("%s", e.msg);
		ret = JR_EXIT_RUN;
	}
	if (f->hlog.f) {
		int err = jr_hlog_close(&f->hlog);

		if (fclose(f->hlog.f) && !err)
			err = -EIO;
		f->hlog.f = NULL;
		if (err) {
			jr_warn("%s: %s", o->out.hlog,
				err == -ENOMEM ? "out of memory" :
						 "write failed");
			ret = JR_EXIT_RUN;
		}
	}
	jr_outputs_close(f);
	return ret;
}

/* jr_outputs_close - whatever is still open (after an early exit). */
void jr_outputs_close(struct jr_outputs *f)
{
	if (f->json && f->json != stdout)
		fclose(f->json);
	f->json = NULL;
	if (f->csv.fd >= 0)
		close(f->csv.fd);
	if (f->hgrm.fd >= 0)
		close(f->hgrm.fd);
	f->csv.fd = f->hgrm.fd = -1;
	if (f->hlog.f) {
		jr_hlog_close(&f->hlog);
		fclose(f->hlog.f);
		f->hlog.f = NULL;
	}
}

/*
 * jr_fail_if - judge the --fail-if conditions of side on m: those naming
 * side, and those naming none when side is the primary one.  side_name
 * labels the lines in a comparison.  ret when the run failed already,
 * else JR_EXIT_VERDICT when a condition held, else 0.
 */
int jr_fail_if(const struct jr_opts *o, const struct jr_model *m,
	       enum jr_side side, bool primary, const char *side_name, int ret)
{
	struct jr_report_opts ro = jr_report_opts_of(o);
	const struct jr_cond *c;
	int i, r, failed = 0;

	for (i = 0; i < o->out.nr_conds; i++) {
		c = &o->out.conds[i];
		if (c->side != side && (c->side != JR_SIDE_ANY || !primary))
			continue;
		r = jr_verdict(stderr, m, &ro, c, side_name);
		if (r < 0) {
			jr_warn("--fail-if: out of memory");
			return ret ? ret : JR_EXIT_RUN;
		}
		failed += r;
	}
	if (ret)
		return ret;
	return failed ? JR_EXIT_VERDICT : 0;
}
