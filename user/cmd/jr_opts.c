// SPDX-License-Identifier: GPL-2.0
/*
 * jr_opts.c - the options subcommands share, and the parser of a
 * subcommand's table (its own options go to its own handler).
 *
 * Times take units everywhere (500ns, 2us, 1.5ms, 30s, 5m, 1h, 1d).  A
 * bare number follows rtla's convention for the same option: -T, -s, -S
 * and -b are in us, -d in s.  Text tables are in us.  The old form
 * ("jitread --hist -T 5000") keeps its bare -T and --bucket-size in ns,
 * and its tables in ns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_opts.h"
#include "core/jr_hist.h"
#include "core/jr_prom.h"
#include "usamp/jr_pipe.h"
#include "usamp/jr_usamp.h"

#define JR_HELP_COL 28 /* where an option's help text starts */
#define JR_MAX_OPTS 64 /* options of one subcommand */

/* jr_opts_defaults - what every subcommand starts from */
static void jr_opts_defaults(struct jr_opts *o, bool legacy)
{
	memset(o, 0, sizeof(*o));
	o->legacy = legacy;
	o->out.unit = legacy ? "ns" : "us";
	o->out.div = legacy ? 1.0 : 1e3;
	o->out.precision = JR_HIST_DEFAULT_PRECISION;
	o->out.hlog_interval_ns = JR_S;
	o->out.bucket_ns = 1000;
	o->out.entries = 256;
	o->live.buffer_kb = 8192;
	o->user.interval_ns = 10 * JR_US;
	jr_wait_parse("auto", o->user.wait);
	o->user.ring_size = 4096;
	o->user.journal_bytes = JR_JOURNAL_DEFAULT;
	o->user.warmup_ns = 1000 * JR_MS;
	o->user.max_gaps = 262144;
	o->user.rounds = 1;
}

int jr_opt_int(const char *arg, uint64_t lo, uint64_t hi, int *out)
{
	uint64_t v;

	if (jr_parse_u64(arg, lo, hi, &v))
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int jr_opt_name(const char *arg, const char *const *names, int nr, int *out)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int jr_set_unit(const char *arg, struct jr_out_opts *out)
{
	static const char *const units[] = { "ns", "us", "ms" };
	int i;

	if (jr_opt_name(arg, units, 3, &i))
		return -EINVAL;
	out->unit = units[i];
	out->div = i == 0 ? 1.0 : i == 1 ? 1e3 : 1e6;
	return 0;
}

/* jr_apply_user - the user side's options. */
static enum jr_optres jr_apply_user(int key, const char *arg,
				    struct jr_user_opts *u)
{
	switch (key) {
	case JR_K_WORK:
		return jr_taken(
			jr_opt_name(arg, jr_work_names, JR_WORK_NR, &u->work));
	case JR_K_FIFO:
		return jr_taken(jr_opt_int(arg, 1, 99, &u->fifo_prio));
	case JR_K_MAXGAPS:
		return jr_taken(jr_parse_u64(arg, 1, 100000000, &u->max_gaps));
	case JR_K_NOPIPE:
		u->no_pipeline = true;
		return JR_OPT_TAKEN;
	case JR_K_NOBPF:
		u->no_bpf = true;
		return JR_OPT_TAKEN;
	case JR_K_WAIT:
		return jr_taken(jr_wait_parse(arg, u->wait));
	case JR_K_INTERVAL:
		return jr_taken(jr_parse_time(arg, JR_US, JR_US, JR_S,
					      &u->interval_ns));
	case JR_K_RING:
		if (jr_parse_u64(arg, 2, 1 << 24, &u->ring_size) ||
		    (u->ring_size & (u->ring_size - 1)))
			return JR_OPT_BAD;
		return JR_OPT_TAKEN;
	case JR_K_WARMUP:
		return jr_taken(jr_parse_time(arg, JR_MS, 0, 3600 * JR_S,
					      &u->warmup_ns));
	case JR_K_INPUT:
		u->input = arg;
		return JR_OPT_TAKEN;
	case JR_K_JOURNAL:
		u->journal = arg;
		return JR_OPT_TAKEN;
	case JR_K_JOURNAL_SIZE:
		return jr_taken(jr_parse_size(arg, JR_JOURNAL_MIN,
					      JR_JOURNAL_MAX,
					      &u->journal_bytes));
	}
	return JR_OPT_NOT_MINE;
}

/* jr_apply_out - how the report looks and where it goes. */
static enum jr_optres jr_apply_out(int key, const char *arg, bool legacy,
				   struct jr_out_opts *out)
{
	switch (key) {
	case JR_K_QUIET:
		out->quiet = true;
		return JR_OPT_TAKEN;
	case JR_K_UNIT:
		return jr_taken(jr_set_unit(arg, out));
	case JR_K_PRECISION:
		return jr_taken(jr_opt_int(arg, JR_HIST_MIN_PRECISION,
					   JR_HIST_MAX_PRECISION,
					   &out->precision));
	case JR_K_BUCKET:
		return jr_taken(jr_parse_time(arg, legacy ? JR_NS : JR_US, 1,
					      JR_S, &out->bucket_ns));
	case JR_K_ENTRIES:
		return jr_taken(jr_opt_int(arg, 1, 1000000, &out->entries));
	case JR_K_NOHDR:
		out->no_header = true;
		return JR_OPT_TAKEN;
	case JR_K_ZEROS:
		out->with_zeros = true;
		return JR_OPT_TAKEN;
	case JR_K_NOSUMMARY:
		out->no_summary = true;
		return JR_OPT_TAKEN;
	case JR_K_NOINDEX:
		out->no_index = true;
		return JR_OPT_TAKEN;
	case JR_K_JSON:
		out->json = arg;
		return JR_OPT_TAKEN;
	case JR_K_CSV:
		out->csv = arg;
		return JR_OPT_TAKEN;
	case JR_K_HGRM:
		out->hgrm = arg;
		return JR_OPT_TAKEN;
	case JR_K_HLOG:
		out->hlog = arg;
		return JR_OPT_TAKEN;
	case JR_K_HLOG_INT:
		return jr_taken(jr_parse_time(arg, JR_S, JR_MS, 86400 * JR_S,
					      &out->hlog_interval_ns));
	}
	return JR_OPT_NOT_MINE;
}

/* jr_set_us - a time of whole us, from lo_ns to 60 s; bare: us */
static int jr_set_us(const char *arg, uint64_t lo_ns, uint64_t *us)
{
	uint64_t ns;

	if (jr_parse_time(arg, JR_US, lo_ns, 60 * JR_S, &ns) || ns % JR_US)
		return -EINVAL;
	*us = ns / JR_US;
	return 0;
}

/* jr_apply_live - what a live run does to jitmod and to itself. */
static enum jr_optres jr_apply_live(int key, const char *arg, bool legacy,
				    struct jr_live_opts *l, struct jr_err *e)
{
	char *t;

	switch (key) {
	case JR_K_DURATION:
		return jr_taken(jr_parse_time(
			arg, JR_S, JR_S, 3650 * 86400 * JR_S, &l->duration_ns));
	case JR_K_THRESHOLD:
		return jr_taken(jr_parse_time(arg, legacy ? JR_NS : JR_US, 1,
					      JR_S, &l->threshold_ns));
	case JR_K_STOP:
		return jr_taken(jr_set_us(arg, JR_US, &l->stop_us));
	case JR_K_STOP_TOTAL:
		return jr_taken(jr_set_us(arg, JR_US, &l->stop_total_us));
	case JR_K_HOUSE:
		if (jr_parse_cpus(arg, l->house, e))
			return JR_OPT_SAID;
		l->have_house = true;
		return JR_OPT_TAKEN;
	case JR_K_BUFKB:
		return jr_taken(jr_parse_u64(arg, 64, 4194304, &l->buffer_kb));
	case JR_K_RECORD:
		l->record = arg;
		return JR_OPT_TAKEN;
	case JR_K_READY:
		l->ready_file = arg;
		return JR_OPT_TAKEN;
	case JR_K_ONTHR:
		if (jr_parse_action(arg, false, &l->on_thr, e) ||
		    jr_check_actions(&l->on_thr, e))
			return JR_OPT_SAID;
		return JR_OPT_TAKEN;
	case JR_K_ONEND:
		return jr_parse_action(arg, true, &l->on_end, e) ? JR_OPT_SAID :
								   JR_OPT_TAKEN;
	case JR_K_TRACE:
		/* kept for the run: the action points into it */
		if (asprintf(&t, "trace%s%s", arg ? "=" : "", arg ? arg : "") <
		    0) {
			jr_fail(e, -ENOMEM, "out of memory");
			return JR_OPT_SAID;
		}
		return jr_parse_action(t, false, &l->on_thr, e) ? JR_OPT_SAID :
								  JR_OPT_TAKEN;
	case JR_K_RUNTIME:
		return jr_taken(jr_set_us(arg, JR_US, &l->runtime_us));
	case JR_K_PERIOD:
		return jr_taken(jr_set_us(arg, JR_US, &l->period_us));
	case JR_K_WAKE_SPIN:
		l->have_warmup = true;
		return jr_taken(jr_set_us(arg, 0, &l->warmup_us));
	case JR_K_OLD_WARMUP:
		jr_fail(e, -EINVAL,
			"--warmup is now --wake-spin (jitmod's spin after each wake-up); rtla's --warm-up S samples S seconds before collecting");
		return JR_OPT_SAID;
	}
	return JR_OPT_NOT_MINE;
}

/* jr_add_cond - one --fail-if; side= only where there are two sides. */
static enum jr_optres jr_add_cond(const char *arg, struct jr_opts *o,
				  struct jr_err *e)
{
	struct jr_cond *c = &o->out.conds[o->out.nr_conds];

	if (o->out.nr_conds == JR_MAX_CONDS) {
		jr_fail(e, -EINVAL, "at most %d --fail-if conditions",
			JR_MAX_CONDS);
		return JR_OPT_SAID;
	}
	if (jr_cond_parse(arg, c, e))
		return JR_OPT_SAID;
	if (c->side != JR_SIDE_ANY && !o->two_sides) {
		jr_fail(e, -EINVAL,
			"--fail-if '%s': side= is for jitread compare", arg);
		return JR_OPT_SAID;
	}
	o->out.nr_conds++;
	return JR_OPT_TAKEN;
}

/* jr_apply - one option: the shared ones here, the rest by d's handler. */
static enum jr_optres jr_apply(const struct jr_cmd_def *d, int key,
			       const char *arg, struct jr_opts *o,
			       struct jr_err *e)
{
	struct jr_optenv env = { .o = o, .own = o->own, .e = e };
	enum jr_optres ret;

	switch (key) {
	case JR_K_CPUS:
		if (jr_parse_cpus(arg, o->cpus, e))
			return JR_OPT_SAID;
		o->have_cpus = true;
		o->cpus_text = arg;
		return JR_OPT_TAKEN;
	case JR_K_FAIL_IF:
		return jr_add_cond(arg, o, e);
	}
	/*
	 * d's own handler first: an option of its own may take a letter
	 * that a shared group it does not list uses (attach's -p).
	 */
	ret = d->apply ? d->apply(key, arg, &env) : JR_OPT_NOT_MINE;
	if (ret == JR_OPT_NOT_MINE)
		ret = jr_apply_live(key, arg, o->legacy, &o->live, e);
	if (ret == JR_OPT_NOT_MINE)
		ret = jr_apply_user(key, arg, &o->user);
	if (ret == JR_OPT_NOT_MINE)
		ret = jr_apply_out(key, arg, o->legacy, &o->out);
	/* an option of d's table that no handler takes: a bad table */
	return ret == JR_OPT_NOT_MINE ? JR_OPT_BAD : ret;
}

/* A subcommand's options, its groups' in their places. */
struct jr_optlist {
	const struct jr_optdef *d[JR_MAX_OPTS];
	size_t n;
	bool over; /* more than JR_MAX_OPTS: a bad table */
};

static void jr_optlist_add(struct jr_optlist *l, const struct jr_optdef *t)
{
	for (; t->name || t->group; t++) {
		if (t->group)
			jr_optlist_add(l, t->group);
		else if (l->n < JR_MAX_OPTS)
			l->d[l->n++] = t;
		else
			l->over = true;
	}
}

/* jr_optlist_of - c's options, in the order of its table */
static void jr_optlist_of(const struct jr_cmd_def *c, struct jr_optlist *l)
{
	l->n = 0;
	l->over = false;
	jr_optlist_add(l, c->opts);
}

/* jr_optdef_of - the option of d that arg ("-x", "--name[=v]") names */
static const struct jr_optdef *jr_optdef_of(const struct jr_cmd_def *c,
					    const char *arg)
{
	struct jr_optlist l;
	size_t i, n;

	if (arg[0] != '-')
		return NULL;
	jr_optlist_of(c, &l);
	for (i = 0; i < l.n; i++) {
		const struct jr_optdef *d = l.d[i];

		if (arg[1] != '-') {
			if (d->key < 128 && arg[1] == d->key)
				return d;
			continue;
		}
		n = strcspn(arg + 2, "=");
		if (strlen(d->name) == n && !strncmp(arg + 2, d->name, n))
			return d;
	}
	return NULL;
}

/*
 * jr_optional_arg - an optional argument as rtla takes it: "-t=F" and
 * "-C=NAME" without their '=', and "-t F", "--trace F" with a space
 * when the next word is not an option.
 */
static const char *jr_optional_arg(const struct jr_optlist *l, int key,
				   const char *arg, int argc, char **argv)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->d[i]->key == key)
			break;
	if (i == l->n || !l->d[i]->arg || l->d[i]->arg[0] != '[')
		return arg;
	if (arg && arg[0] == '=')
		return arg + 1;
	if (!arg && optind < argc && argv[optind][0] != '-')
		return argv[optind++];
	return arg;
}

/* jr_unknown - arg is not d's: say whether another subcommand takes it */
static int jr_unknown(const struct jr_cmd_def *d,
		      const struct jr_cmd_def *const *all, size_t nr_all,
		      const char *arg, struct jr_err *e)
{
	size_t i;

	for (i = 0; i < nr_all; i++)
		if (jr_optdef_of(all[i], arg))
			return jr_fail(
				e, -EINVAL,
				"'%s' is not an option of 'jitread %s' (see jitread %s --help)",
				arg, d->name, d->name);
	return jr_fail(e, -EINVAL,
		       "unknown option '%s' (see jitread %s --help)", arg,
		       d->name);
}

/* jr_getopt_tables - the options of l in getopt_long's form. */
static void jr_getopt_tables(const struct jr_optlist *l, struct option *lo,
			     char *so)
{
	size_t i, n = 0, s = 0;

	so[s++] = ':';
	for (i = 0; i < l->n; i++) {
		const struct jr_optdef *d = l->d[i];

		lo[n].name = d->name;
		lo[n].has_arg = !d->arg		 ? no_argument :
				d->arg[0] == '[' ? optional_argument :
						   required_argument;
		lo[n].flag = NULL;
		lo[n].val = d->key;
		n++;
		if (d->key < 128 && !strchr(so, d->key)) {
			so[s++] = (char)d->key;
			if (d->arg)
				so[s++] = ':';
			if (d->arg && d->arg[0] == '[')
				so[s++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	so[s] = '\0';
}

/*
 * jr_check - what needs more than one option to judge, then the
 * subcommand's own check.  With --json -, stdout carries the JSON alone,
 * so no text report goes there.
 */
static int jr_check(const struct jr_cmd_def *d, struct jr_opts *o,
		    struct jr_err *e)
{
	if (o->out.json && !strcmp(o->out.json, "-"))
		o->out.quiet = true;
	if (o->live.runtime_us > o->live.period_us && o->live.period_us)
		return jr_fail(e, -EINVAL, "--runtime is longer than --period");
	return d->check ? d->check(o, d->name, e) : 0;
}

/*
 * jr_parse_opts - fill o from argv[1..] for subcommand d (argv[0] is its
 * name); all are every subcommand, to tell an option of another from an
 * unknown one.  1 for --help, 0 to run, -EINVAL with e.
 */
int jr_parse_opts(const struct jr_cmd_def *d,
		  const struct jr_cmd_def *const *all, size_t nr_all,
		  bool legacy, int argc, char **argv, struct jr_opts *o,
		  struct jr_err *e)
{
	struct option lo[JR_MAX_OPTS + 1];
	char so[2 * JR_MAX_OPTS + 2] = "";
	struct jr_optlist l;
	enum jr_optres res;
	int c, li;

	jr_optlist_of(d, &l);
	if (l.over)
		return jr_fail(e, -EINVAL, "jitread %s: over %d options",
			       d->name, JR_MAX_OPTS);
	jr_opts_defaults(o, legacy);
	o->cmd = d->name;
	/* for the run: freed at exit */
	if (d->own_size && !(o->own = calloc(1, d->own_size)))
		return jr_fail(e, -ENOMEM, "out of memory");
	if (d->defaults)
		d->defaults(o);
	jr_getopt_tables(&l, lo, so);
	opterr = 0;
	optind = 1;
	for (;;) {
		li = -1;
		c = getopt_long(argc, argv, so, lo, &li);
		if (c == -1)
			break;
		if (c == JR_K_HELP)
			return 1;
		if (c == ':')
			return jr_fail(e, -EINVAL, "option '%s' needs a value",
				       argv[optind - 1]);
		if (c == '?')
			return jr_unknown(d, all, nr_all, argv[optind - 1], e);
		optarg = (char *)jr_optional_arg(&l, c, optarg, argc, argv);
		res = jr_apply(d, c, optarg, o, e);
		if (res == JR_OPT_SAID)
			return -EINVAL;
		if (res == JR_OPT_TAKEN)
			continue;
		if (li >= 0)
			return jr_fail(e, -EINVAL,
				       "bad value '%s' for --%s (see --help)",
				       optarg, lo[li].name);
		return jr_fail(e, -EINVAL,
			       "bad value '%s' for -%c (see --help)", optarg,
			       c);
	}
	if (d->nr_args > 0 && optind < argc && !o->file)
		o->file = argv[optind++];
	if (d->nr_args > 1 && optind < argc)
		o->file_b = argv[optind++];
	if (optind < argc)
		return jr_fail(e, -EINVAL, "unexpected argument '%s'",
			       argv[optind]);
	return jr_check(d, o, e);
}

/* jr_help_of - d's help in c: c's own where it has one, else the shared */
static const char *jr_help_of(const struct jr_cmd_def *c,
			      const struct jr_optdef *d)
{
	const struct jr_opthelp *h;

	for (h = c->helps; h && h->key; h++)
		if (h->key == d->key)
			return h->help;
	return d->help;
}

/* jr_opts_usage - c's options, from its table. */
void jr_opts_usage(FILE *out, const struct jr_cmd_def *c)
{
	struct jr_optlist l;
	size_t i;

	jr_optlist_of(c, &l);
	for (i = 0; i < l.n; i++) {
		const struct jr_optdef *d = l.d[i];
		const char *h, *nl;
		char head[64];
		int len;

		if (!d->help)
			continue;
		if (d->arg && d->arg[0] == '[')
			snprintf(head, sizeof(head), "  -%c, --%s[=%.*s]",
				 d->key, d->name, (int)strlen(d->arg) - 2,
				 d->arg + 1);
		else if (d->key < 128)
			snprintf(head, sizeof(head), "  -%c, --%s%s%s", d->key,
				 d->name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		else
			snprintf(head, sizeof(head), "      --%s%s%s", d->name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		if (strlen(head) > JR_HELP_COL - 1) {
			fprintf(out, "%s\n", head);
			head[0] = '\0';
		}
		for (h = jr_help_of(c, d); h; h = nl ? nl + 1 : NULL) {
			nl = strchr(h, '\n');
			len = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(out, "%-*s%.*s\n", JR_HELP_COL, head, len, h);
			head[0] = '\0';
		}
	}
}
