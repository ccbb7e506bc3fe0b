// SPDX-License-Identifier: GPL-2.0
/*
 * jr_opts.c - the options of every subcommand, in one table.
 *
 * Times take units everywhere (500ns, 2us, 1.5ms, 30s, 5m, 1h, 1d).  A
 * bare number follows rtla's convention for the same option: -T, -s, -S
 * and -b are in us, -d in s.  The old form ("jitread --hist -T 5000")
 * keeps its bare -T and --bucket-size in ns.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/jr_opts.h"
#include "core/jr_hist.h"
#include "core/jr_prom.h"
#include "usamp/jr_pipe.h"
#include "usamp/jr_usamp.h"

#define B(c) (1U << (c))
#define LIVE (B(JR_CMD_HIST) | B(JR_CMD_TOP) | B(JR_CMD_RECORD))
#define SHOWN \
	(B(JR_CMD_HIST) | B(JR_CMD_REPORT) | B(JR_CMD_USER) | B(JR_CMD_COMPARE))
#define DIFF B(JR_CMD_DIFF)
#define AUDIT B(JR_CMD_AUDIT)
#define ADVISE B(JR_CMD_ADVISE)
#define SERVE B(JR_CMD_SERVE)
#define SURVEY B(JR_CMD_SURVEY)
#define USERS (B(JR_CMD_USER) | B(JR_CMD_COMPARE))
#define ALL (B(JR_NR_CMDS) - 1)
#define JR_HELP_COL 28 /* where an option's help text starts */

enum jr_key {
	K_CPUS = 'c',
	K_DURATION = 'd',
	K_THRESHOLD = 'T',
	K_STOP = 's',
	K_STOP_TOTAL = 'S',
	K_HOUSE = 'H',
	K_QUIET = 'q',
	K_UNIT = 'u',
	K_BUCKET = 'b',
	K_ENTRIES = 'E',
	K_OUTPUT = 'o',
	K_HELP = 'h',
	K_PRECISION = 256,
	K_BUFKB,
	K_NOHDR,
	K_ZEROS,
	K_JSON,
	K_CSV,
	K_HGRM,
	K_HLOG,
	K_HLOG_INT,
	K_RECORD,
	K_REPLAY,
	K_ONTHR,
	K_ONEND,
	K_READY,
	K_ALIAS, /* --hist, --top, --user, --compare: the old form's mode */
	K_FAIL_IF,
	K_ROUNDS,
	K_PHASE,
	K_WORK,
	K_FIFO,
	K_MAXGAPS,
	K_NOPIPE,
	K_WAIT,
	K_INTERVAL,
	K_RING,
	K_JOURNAL_SIZE,
	K_WARMUP,
	K_INPUT,
	K_JOURNAL,
	K_MIN_CHANGE,
	K_FAIL_WORSE,
	K_SYSROOT,
	K_FAIL_WARN,
	K_AUDIT_FILE,
	K_MIN_PPM,
	K_MIN_COUNT,
	K_FAIL_ADVICE,
	K_RUNTIME,
	K_PERIOD,
	K_LISTEN,
	K_TEXTFILE,
	K_REFRESH,
	K_TOP_N,
	K_SAMPLER,
	K_RANK_CPUS,
	K_MODE,
	K_QUANTUM = 'g',
	K_EVERY = 512,
	K_TIMEOUT,
	K_WORST,
};

struct jr_optdef {
	const char *name;
	int key;
	const char *arg; /* NULL: a flag */
	unsigned int cmds; /* B(JR_CMD_*) of the subcommands taking it */
	const char *help; /* NULL: an alias, not in the usage text */
};

static const struct jr_optdef jr_optdefs[] = {
	{ "cpus", K_CPUS, "LIST", ALL,
	  "CPUs to report, or to sample (user, compare), e.g. 1-3,5" },
	{ "duration", K_DURATION, "TIME",
	  LIVE | B(JR_CMD_USER) | SERVE | SURVEY,
	  "run for TIME, e.g. 30s, 5m, 1h, 1d; bare: s\n"
	  "(default: until ^C; user: 10s)" },
	{ "threshold", K_THRESHOLD, "TIME", LIVE | USERS | SERVE | SURVEY,
	  "set jitmod's threshold (user: the sampler's); bare: us" },
	{ "runtime", K_RUNTIME, "TIME", LIVE | SERVE,
	  "set jitmod's runtime_us: sampling time per period\n"
	  "(serve: also the user sampler's; default 100ms); bare: us" },
	{ "period", K_PERIOD, "TIME", LIVE | SERVE,
	  "set jitmod's period_us (serve: default 1s); bare: us" },
	{ "stop", K_STOP, "TIME", LIVE,
	  "set jitmod's stop_us: stop on one gap above TIME; bare: us" },
	{ "stop-us", K_STOP, "TIME", LIVE, NULL },
	{ "stop-total", K_STOP_TOTAL, "TIME", LIVE,
	  "set jitmod's stop_total_us: stop on a period's noise; bare: us" },
	{ "stop-total-us", K_STOP_TOTAL, "TIME", LIVE, NULL },
	{ "on-threshold", K_ONTHR, "ACTION", LIVE,
	  "when jitmod stops: stop | continue | trace[=FILE] |\n"
	  "exec=CMD | signal=SIG,PID (repeatable)" },
	{ "on-end", K_ONEND, "ACTION", LIVE,
	  "when the run ends: trace[=FILE] | exec=CMD |\n"
	  "signal=SIG,PID (repeatable)" },
	{ "house", K_HOUSE, "LIST", LIVE | B(JR_CMD_COMPARE) | SERVE,
	  "pin jitread itself to these CPUs (serve: default,\n"
	  "the online CPUs not sampled)" },
	{ "listen", K_LISTEN, "ADDR", SERVE,
	  "serve /metrics on ADDR: HOST:PORT, [V6]:PORT, :PORT\n"
	  "(default 127.0.0.1:9478; none: --textfile only)" },
	{ "textfile", K_TEXTFILE, "DIR", SERVE,
	  "also write DIR/jitread.prom at every refresh, for\n"
	  "node_exporter's textfile collector" },
	{ "refresh", K_REFRESH, "TIME", SERVE,
	  "how often the metrics are brought up to date\n"
	  "(default 1s, at least 100ms); bare: s" },
	{ "top", K_TOP_N, "N", SERVE,
	  "sources per CPU with series of their own (default\n"
	  "10); the rest is source=\"other\"" },
	{ "rank-cpus", K_RANK_CPUS, "LIST", SURVEY,
	  "the CPUs the ranks of a node take, by local rank\n"
	  "(default: the launcher's binding)" },
	{ "cpus-per-rank", K_RANK_CPUS, "LIST", SURVEY, NULL },
	{ "mode", K_MODE, "MODE", SURVEY,
	  "gaps (the gap sampler, default) or fwq (fixed work\n"
	  "quanta with a barrier every --barrier-every)" },
	{ "quantum", K_QUANTUM, "TIME", SURVEY,
	  "fwq: the work quantum (default 100us); bare: us" },
	{ "barrier-every", K_EVERY, "K", SURVEY,
	  "fwq: quanta between barriers (default 100)" },
	{ "timeout", K_TIMEOUT, "TIME", SURVEY,
	  "how long to wait for a rank past the run (default\n"
	  "30s); bare: s" },
	{ "worst", K_WORST, "K", SURVEY, "ranks named worst (default 5)" },
	{ "sampler", K_SAMPLER, "WHICH", SERVE,
	  "jitmod, user (a user thread per -c CPU, no module)\n"
	  "or auto: jitmod where loaded (default)" },
	{ "output", K_OUTPUT, "FILE", B(JR_CMD_RECORD),
	  "the recording to write (required)" },
	{ "record", K_RECORD, "FILE", B(JR_CMD_HIST) | B(JR_CMD_TOP),
	  "also save every event to FILE, for jitread report" },
	{ "replay", K_REPLAY, "FILE", B(JR_CMD_REPORT), NULL },
	{ "ready-file", K_READY, "FILE", LIVE | USERS | SERVE,
	  "create FILE once sampling has begun (for scripts)" },
	{ "buffer-kb", K_BUFKB, "KB", LIVE | B(JR_CMD_COMPARE) | SERVE,
	  "per-CPU ring buffer of jitread's instance (default 8192)" },
	{ "quiet", K_QUIET, NULL, ALL, "no status line, no text report" },
	{ "unit", K_UNIT, "ns|us|ms", SHOWN | DIFF,
	  "unit of the text tables (default ns)" },
	{ "precision", K_PRECISION, "N", SHOWN | B(JR_CMD_TOP),
	  "histogram significant digits, 1-4 (default 3)" },
	{ "bucket-size", K_BUCKET, "TIME", SHOWN,
	  "bucket table width (default 1us); bare: us" },
	{ "entries", K_ENTRIES, "N", SHOWN, "bucket table rows (default 256)" },
	{ "no-header", K_NOHDR, NULL, SHOWN, "no header lines" },
	{ "with-zeros", K_ZEROS, NULL, SHOWN, "print empty rows and classes" },
	{ "fail-if", K_FAIL_IF, "COND", SHOWN,
	  "exit 4 when COND holds at the end (repeatable), e.g.\n"
	  "max>50us, p99.9999>10us, avail<99.99%, class=irq,max>5us,\n"
	  "cpu=all,count>1000; compare: side=kernel|user" },
	{ "json", K_JSON, "FILE",
	  SHOWN | B(JR_CMD_TOP) | DIFF | AUDIT | ADVISE | SERVE | SURVEY,
	  "versioned JSON report (- for stdout)" },
	{ "min-change", K_MIN_CHANGE, "PCT", DIFF,
	  "smallest change judged, in % of the first report's\n"
	  "value (default 10)" },
	{ "fail-worse", K_FAIL_WORSE, NULL, DIFF,
	  "exit 4 when the verdict is worse" },
	{ "sysroot", K_SYSROOT, "DIR", AUDIT,
	  "read /proc and /sys under DIR (a copy of a machine's)" },
	{ "fail-warn", K_FAIL_WARN, NULL, AUDIT, "exit 4 when an item warns" },
	{ "audit", K_AUDIT_FILE, "FILE", ADVISE,
	  "the audit to judge by (jitread audit --json); default:\n"
	  "the report's, else this machine's now" },
	{ "min-ppm", K_MIN_PPM, "PPM", ADVISE,
	  "least evidence for advice, in ppm of a CPU's sampled\n"
	  "time (default 1)" },
	{ "min-count", K_MIN_COUNT, "N", ADVISE,
	  "least events of evidence for advice (default 2)" },
	{ "fail-advice", K_FAIL_ADVICE, NULL, ADVISE,
	  "exit 4 when there is advice" },
	{ "csv", K_CSV, "DIR", B(JR_CMD_HIST) | B(JR_CMD_REPORT),
	  "percentiles.csv, sources.csv, summary.csv" },
	{ "hgrm", K_HGRM, "DIR", B(JR_CMD_HIST) | B(JR_CMD_REPORT),
	  "HdrHistogram .hgrm per CPU and class" },
	{ "hlog", K_HLOG, "FILE", B(JR_CMD_HIST) | B(JR_CMD_REPORT),
	  "HdrHistogram interval log of each CPU's gaps" },
	{ "hlog-interval", K_HLOG_INT, "TIME",
	  B(JR_CMD_HIST) | B(JR_CMD_REPORT),
	  "--hlog's interval (default 1s, at least 1ms); bare: s" },
	{ "rounds", K_ROUNDS, "R", B(JR_CMD_COMPARE),
	  "R kernel and R user phases (default 2)" },
	{ "phase", K_PHASE, "TIME", B(JR_CMD_COMPARE),
	  "length of each phase (default 10s); bare: s" },
	{ "work", K_WORK, "MODE", USERS,
	  "user sampler: none (the gap loop, default), usleep,\n"
	  "nanosleep, memwalk, arith, kill, gettime" },
	{ "fifo", K_FIFO, "PRIO", USERS | SERVE | SURVEY,
	  "run the user threads SCHED_FIFO at PRIO (1-99)" },
	{ "max-gaps", K_MAXGAPS, "N", USERS,
	  "user gaps waiting to be classified, per CPU (default 262144)" },
	{ "no-pipeline", K_NOPIPE, NULL, USERS, "skip the pipeline" },
	{ "wait", K_WAIT, "STRATEGY", USERS,
	  "pipeline waits: spin (default), yield, sleep;\n"
	  "only yield and sleep may share a CPU" },
	{ "interval-us", K_INTERVAL, "TIME", USERS,
	  "pipeline publication interval (default 10); bare: us" },
	{ "ring", K_RING, "N", USERS,
	  "pipeline ring slots, a power of two (default 4096)" },
	{ "warmup-ms", K_WARMUP, "TIME", USERS,
	  "pipeline warm-up left out (default 1000); bare: ms" },
	{ "input", K_INPUT, "FILE", USERS,
	  "pipeline messages: 8-byte payloads (default: generated)" },
	{ "journal", K_JOURNAL, "FILE", USERS,
	  "keep the pipeline journal in FILE (a new file);\n"
	  "compare with --rounds R > 1: FILE.1 .. FILE.R" },
	{ "journal-size", K_JOURNAL_SIZE, "SIZE", USERS,
	  "the journal keeps the last SIZE bytes of messages\n"
	  "(default 64M; K, M, G)" },
	{ "hist", K_ALIAS, NULL, B(JR_CMD_HIST) | B(JR_CMD_REPORT), NULL },
	{ "top", K_ALIAS, NULL, B(JR_CMD_TOP), NULL },
	{ "user", K_ALIAS, NULL, B(JR_CMD_USER), NULL },
	{ "compare", K_ALIAS, NULL, B(JR_CMD_COMPARE), NULL },
	{ "help", K_HELP, NULL, ALL, "this text" },
};

#define JR_NR_OPTDEFS (sizeof(jr_optdefs) / sizeof(jr_optdefs[0]))

static void jr_opts_defaults(struct jr_opts *o, enum jr_cmd cmd, bool legacy)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->legacy = legacy;
	o->out.unit = "ns";
	o->out.div = 1.0;
	o->out.precision = JR_HIST_DEFAULT_PRECISION;
	o->out.hlog_interval_ns = JR_S;
	o->out.bucket_ns = 1000;
	o->out.entries = 256;
	o->live.buffer_kb = 8192;
	o->user.interval_ns = 10 * JR_US;
	o->user.ring_size = 4096;
	o->user.journal_bytes = JR_JOURNAL_DEFAULT;
	o->user.warmup_ns = 1000 * JR_MS;
	o->user.max_gaps = 262144;
	o->user.rounds = 2;
	o->user.phase_ns = 10 * JR_S;
	o->diff.min_change = 0.1;
	o->advise.min_ppm = 1;
	o->advise.min_count = 2;
	o->serve.interval_ns = JR_S;
	o->survey.quantum_ns = 100 * JR_US;
	o->survey.every = 100;
	o->survey.timeout_ns = 30 * JR_S;
	o->survey.worst = 5;
	if (cmd == JR_CMD_SURVEY)
		o->live.duration_ns = 10 * JR_S;
	o->serve.top = 10;
	if (cmd == JR_CMD_SERVE) {
		o->serve.listen = "127.0.0.1:9478";
		o->live.runtime_us = 100000;
		o->live.period_us = 1000000;
	}
}

/*
 * jr_parse_signal - "signal=SIG,PID": both plain numbers in range, SIG a
 * signal, PID neither init nor jitread itself.
 */
static int jr_parse_signal(const char *opt, const char *text,
			   struct jr_action *a, struct jr_err *e)
{
	char sig[16], *comma = strchr(text + 7, ',');
	uint64_t s, pid;

	if (!comma || comma - (text + 7) >= (long)sizeof(sig))
		goto bad;
	memcpy(sig, text + 7, comma - (text + 7));
	sig[comma - (text + 7)] = '\0';
	if (jr_parse_u64(sig, 1, NSIG - 1, &s) ||
	    jr_parse_u64(comma + 1, 2, INT32_MAX, &pid))
		goto bad;
	if (pid == (uint64_t)getpid())
		return jr_fail(e, -EINVAL, "--%s '%s': that is jitread itself",
			       opt, text);
	a->kind = JR_ACT_SIGNAL;
	a->sig = (int)s;
	a->pid = (int)pid;
	return 0;
bad:
	return jr_fail(
		e, -EINVAL,
		"bad --%s '%s' (signal=SIG,PID: a signal number and a pid above 1)",
		opt, text);
}

/*
 * jr_parse_action - one ACTION of --on-threshold (stop, continue, trace,
 * exec, signal) or --on-end (trace, exec, signal) into l.
 */
static int jr_parse_action(const char *text, bool end, struct jr_actions *l,
			   struct jr_err *e)
{
	const char *opt = end ? "on-end" : "on-threshold";
	struct jr_action *a;

	if (l->nr == JR_MAX_ACTIONS)
		return jr_fail(e, -EINVAL, "at most %d --%s actions",
			       JR_MAX_ACTIONS, opt);
	a = &l->a[l->nr];
	memset(a, 0, sizeof(*a));
	if (!end && !strcmp(text, "stop")) {
		a->kind = JR_ACT_STOP;
	} else if (!end && !strcmp(text, "continue")) {
		a->kind = JR_ACT_CONTINUE;
		l->cont = true;
	} else if (!strcmp(text, "trace") || !strncmp(text, "trace=", 6)) {
		a->kind = JR_ACT_TRACE;
		a->arg = text[5] ? text + 6 : "jitread_trace.txt";
	} else if (!strncmp(text, "exec=", 5) && text[5]) {
		a->kind = JR_ACT_EXEC;
		a->arg = text + 5;
	} else if (!strncmp(text, "signal=", 7)) {
		if (jr_parse_signal(opt, text, a, e))
			return -EINVAL;
	} else {
		return jr_fail(e, -EINVAL,
			       "bad --%s '%s' (%strace[=FILE], "
			       "exec=CMD, signal=SIG,PID)",
			       opt, text, end ? "" : "stop, continue, ");
	}
	l->nr++;
	return 0;
}

/* jr_check_actions - stop and continue exclude each other. */
static int jr_check_actions(const struct jr_actions *l, struct jr_err *e)
{
	int i;

	for (i = 0; l->cont && i < l->nr; i++)
		if (l->a[i].kind == JR_ACT_STOP)
			return jr_fail(
				e, -EINVAL,
				"--on-threshold: stop and continue exclude each other");
	return 0;
}

static int jr_set_int(const char *arg, uint64_t lo, uint64_t hi, int *out)
{
	uint64_t v;

	if (jr_parse_u64(arg, lo, hi, &v))
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* jr_set_pct - "10" or "10%" (0-1000) as a fraction. */
static int jr_set_pct(const char *arg, double *frac)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || (*end && strcmp(end, "%")) || !(v >= 0) ||
	    v > 1000)
		return -EINVAL;
	*frac = v / 100;
	return 0;
}

/* jr_set_ppm - a number of ppm, 0 to 1000000. */
static int jr_set_ppm(const char *arg, double *ppm)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || *end || !(v >= 0) || v > 1e6)
		return -EINVAL;
	*ppm = v;
	return 0;
}

static int jr_set_name(const char *arg, const char *const *names, int nr,
		       int *out)
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

	if (jr_set_name(arg, units, 3, &i))
		return -EINVAL;
	out->unit = units[i];
	out->div = i == 0 ? 1.0 : i == 1 ? 1e3 : 1e6;
	return 0;
}

/* jr_apply_user - the user side's options; -EINVAL: a bad value. */
static int jr_apply_user(int key, const char *arg, struct jr_user_opts *u)
{
	switch (key) {
	case K_ROUNDS:
		return jr_parse_u64(arg, 1, 1000, &u->rounds);
	case K_PHASE:
		return jr_parse_time(arg, JR_S, JR_S, 86400 * JR_S,
				     &u->phase_ns);
	case K_WORK:
		return jr_set_name(arg, jr_work_names, JR_WORK_NR, &u->work);
	case K_FIFO:
		return jr_set_int(arg, 1, 99, &u->fifo_prio);
	case K_MAXGAPS:
		return jr_parse_u64(arg, 1, 100000000, &u->max_gaps);
	case K_NOPIPE:
		u->no_pipeline = true;
		return 0;
	case K_WAIT:
		return jr_set_name(arg, jr_wait_names, JR_WAIT_NR, &u->wait);
	case K_INTERVAL:
		return jr_parse_time(arg, JR_US, JR_US, JR_S, &u->interval_ns);
	case K_RING:
		if (jr_parse_u64(arg, 2, 1 << 24, &u->ring_size) ||
		    (u->ring_size & (u->ring_size - 1)))
			return -EINVAL;
		return 0;
	case K_WARMUP:
		return jr_parse_time(arg, JR_MS, 0, 3600 * JR_S, &u->warmup_ns);
	case K_INPUT:
		u->input = arg;
		return 0;
	case K_JOURNAL:
		u->journal = arg;
		return 0;
	case K_JOURNAL_SIZE:
		return jr_parse_size(arg, JR_JOURNAL_MIN, JR_JOURNAL_MAX,
				     &u->journal_bytes);
	}
	return -EINVAL;
}

/* jr_apply_out - how the report looks and where it goes. */
static int jr_apply_out(int key, const char *arg, bool legacy,
			struct jr_out_opts *out)
{
	switch (key) {
	case K_QUIET:
		out->quiet = true;
		return 0;
	case K_UNIT:
		return jr_set_unit(arg, out);
	case K_PRECISION:
		return jr_set_int(arg, JR_HIST_MIN_PRECISION,
				  JR_HIST_MAX_PRECISION, &out->precision);
	case K_BUCKET:
		return jr_parse_time(arg, legacy ? JR_NS : JR_US, 1, JR_S,
				     &out->bucket_ns);
	case K_ENTRIES:
		return jr_set_int(arg, 1, 1000000, &out->entries);
	case K_NOHDR:
		out->no_header = true;
		return 0;
	case K_ZEROS:
		out->with_zeros = true;
		return 0;
	case K_JSON:
		out->json = arg;
		return 0;
	case K_CSV:
		out->csv = arg;
		return 0;
	case K_HGRM:
		out->hgrm = arg;
		return 0;
	case K_HLOG:
		out->hlog = arg;
		return 0;
	case K_HLOG_INT:
		return jr_parse_time(arg, JR_S, JR_MS, 86400 * JR_S,
				     &out->hlog_interval_ns);
	}
	return -EINVAL;
}

static int jr_set_us(const char *arg, uint64_t *us)
{
	uint64_t ns;

	if (jr_parse_time(arg, JR_US, JR_US, 60 * JR_S, &ns) || ns % JR_US)
		return -EINVAL;
	*us = ns / JR_US;
	return 0;
}

/* jr_apply_live - what a live run does to jitmod and to itself. */
static int jr_apply_live(int key, const char *arg, bool legacy,
			 struct jr_live_opts *l, struct jr_err *e)
{
	switch (key) {
	case K_DURATION:
		return jr_parse_time(arg, JR_S, JR_S, 3650 * 86400 * JR_S,
				     &l->duration_ns);
	case K_THRESHOLD:
		return jr_parse_time(arg, legacy ? JR_NS : JR_US, 1, JR_S,
				     &l->threshold_ns);
	case K_STOP:
		return jr_set_us(arg, &l->stop_us);
	case K_STOP_TOTAL:
		return jr_set_us(arg, &l->stop_total_us);
	case K_HOUSE:
		if (jr_parse_cpus(arg, l->house, e))
			return -EBADMSG;
		l->have_house = true;
		return 0;
	case K_BUFKB:
		return jr_parse_u64(arg, 64, 4194304, &l->buffer_kb);
	case K_OUTPUT:
	case K_RECORD:
		l->record = arg;
		return 0;
	case K_READY:
		l->ready_file = arg;
		return 0;
	case K_ONTHR:
		if (jr_parse_action(arg, false, &l->on_thr, e) ||
		    jr_check_actions(&l->on_thr, e))
			return -EBADMSG;
		return 0;
	case K_ONEND:
		return jr_parse_action(arg, true, &l->on_end, e) ? -EBADMSG : 0;
	case K_RUNTIME:
		return jr_set_us(arg, &l->runtime_us);
	case K_PERIOD:
		return jr_set_us(arg, &l->period_us);
	}
	return -ENOENT;
}

/* jr_apply_serve - jitread serve's own options; -ENOENT: not one */
static int jr_apply_serve(int key, const char *arg, struct jr_serve_opts *s)
{
	static const char *const samplers[] = { "auto", "jitmod", "user" };

	switch (key) {
	case K_LISTEN:
		s->listen = strcmp(arg, "none") ? arg : NULL;
		return 0;
	case K_TEXTFILE:
		s->textfile = arg;
		return 0;
	case K_REFRESH:
		return jr_parse_time(arg, JR_S, 100 * JR_MS, 3600 * JR_S,
				     &s->interval_ns);
	case K_TOP_N:
		return jr_set_int(arg, 0, JR_PROM_MAX_TOP, &s->top);
	case K_SAMPLER:
		return jr_set_name(arg, samplers, 3, &s->sampler);
	}
	return -ENOENT;
}

/* jr_apply_survey - jitread survey's own options; -ENOENT: not one */
static int jr_apply_survey(int key, const char *arg, struct jr_survey_opts *s,
			   struct jr_err *e)
{
	static const char *const modes[] = { "gaps", "fwq" };

	switch (key) {
	case K_RANK_CPUS:
		if (jr_parse_cpus(arg, s->cpus, e))
			return -EBADMSG;
		s->have_cpus = true;
		return 0;
	case K_MODE:
		return jr_set_name(arg, modes, 2, &s->mode);
	case K_QUANTUM:
		return jr_parse_time(arg, JR_US, JR_US, JR_S, &s->quantum_ns);
	case K_EVERY:
		return jr_parse_u64(arg, 1, 1000000, &s->every);
	case K_TIMEOUT:
		return jr_parse_time(arg, JR_S, JR_S, 3600 * JR_S,
				     &s->timeout_ns);
	case K_WORST:
		return jr_set_int(arg, 1, 100000, &s->worst);
	}
	return -ENOENT;
}

/* jr_add_cond - one --fail-if; side= only where there are two sides. */
static int jr_add_cond(const char *arg, struct jr_opts *o, struct jr_err *e)
{
	struct jr_cond *c = &o->out.conds[o->out.nr_conds];

	if (o->out.nr_conds == JR_MAX_CONDS) {
		jr_fail(e, -EINVAL, "at most %d --fail-if conditions",
			JR_MAX_CONDS);
		return -EBADMSG;
	}
	if (jr_cond_parse(arg, c, e))
		return -EBADMSG;
	if (c->side != JR_SIDE_ANY && o->cmd != JR_CMD_COMPARE) {
		jr_fail(e, -EINVAL,
			"--fail-if '%s': side= is for jitread compare", arg);
		return -EBADMSG;
	}
	o->out.nr_conds++;
	return 0;
}

/*
 * jr_apply - one option; 0, -EINVAL for a bad value, -EBADMSG when e
 * already says what is wrong.
 */
static int jr_apply(int key, const char *arg, struct jr_opts *o,
		    struct jr_err *e)
{
	int ret;

	switch (key) {
	case K_CPUS:
		if (jr_parse_cpus(arg, o->cpus, e))
			return -EBADMSG;
		o->have_cpus = true;
		o->cpus_text = arg;
		return 0;
	case K_REPLAY:
		o->file = arg;
		return 0;
	case K_ALIAS:
		return 0;
	case K_MIN_CHANGE:
		return jr_set_pct(arg, &o->diff.min_change);
	case K_FAIL_WORSE:
		o->diff.fail_worse = true;
		return 0;
	case K_SYSROOT:
		o->audit.sysroot = arg;
		return 0;
	case K_FAIL_WARN:
		o->audit.fail_warn = true;
		return 0;
	case K_FAIL_IF:
		return jr_add_cond(arg, o, e);
	case K_AUDIT_FILE:
		o->advise.audit = arg;
		return 0;
	case K_MIN_PPM:
		return jr_set_ppm(arg, &o->advise.min_ppm);
	case K_MIN_COUNT:
		return jr_parse_u64(arg, 1, UINT32_MAX, &o->advise.min_count);
	case K_FAIL_ADVICE:
		o->advise.fail_advice = true;
		return 0;
	}
	ret = jr_apply_live(key, arg, o->legacy, &o->live, e);
	if (ret != -ENOENT)
		return ret;
	ret = jr_apply_serve(key, arg, &o->serve);
	if (ret != -ENOENT)
		return ret;
	ret = jr_apply_survey(key, arg, &o->survey, e);
	if (ret != -ENOENT)
		return ret;
	if (key >= K_ROUNDS)
		return jr_apply_user(key, arg, &o->user);
	return jr_apply_out(key, arg, o->legacy, &o->out);
}

static const struct jr_optdef *jr_optdef_of(const char *arg)
{
	size_t i, n;

	if (arg[0] != '-')
		return NULL;
	for (i = 0; i < JR_NR_OPTDEFS; i++) {
		const struct jr_optdef *d = &jr_optdefs[i];

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

static int jr_unknown(const char *cmd_name, const char *arg, struct jr_err *e)
{
	if (jr_optdef_of(arg))
		return jr_fail(
			e, -EINVAL,
			"'%s' is not an option of 'jitread %s' (see jitread %s --help)",
			arg, cmd_name, cmd_name);
	return jr_fail(e, -EINVAL,
		       "unknown option '%s' (see jitread %s --help)", arg,
		       cmd_name);
}

/* jr_getopt_tables - cmd's options in getopt_long's form. */
static void jr_getopt_tables(enum jr_cmd cmd, struct option *lo, char *so)
{
	size_t i, n = 0, s = 0;

	so[s++] = ':';
	for (i = 0; i < JR_NR_OPTDEFS; i++) {
		const struct jr_optdef *d = &jr_optdefs[i];

		if (!(d->cmds & B(cmd)))
			continue;
		lo[n].name = d->name;
		lo[n].has_arg = d->arg ? required_argument : no_argument;
		lo[n].flag = NULL;
		lo[n].val = d->key;
		n++;
		if (d->key < 128 && !strchr(so, d->key)) {
			so[s++] = (char)d->key;
			if (d->arg)
				so[s++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	so[s] = '\0';
}

/*
 * jr_check - what needs more than one option to judge.  With --json -,
 * stdout carries the JSON alone, so no text report goes there.
 */
static int jr_check(struct jr_opts *o, const char *cmd_name, struct jr_err *e)
{
	if (o->out.json && !strcmp(o->out.json, "-")) {
		if (o->cmd == JR_CMD_TOP)
			return jr_fail(
				e, -EINVAL,
				"jitread %s prints its frames on stdout: give --json a file",
				cmd_name);
		o->out.quiet = true;
	}
	if (o->cmd == JR_CMD_REPORT && !o->file)
		return jr_fail(e, -EINVAL,
			       "jitread %s needs the recording to read",
			       cmd_name);
	if (o->cmd == JR_CMD_ADVISE && !o->file)
		return jr_fail(e, -EINVAL,
			       "jitread %s needs a JSON report to judge",
			       cmd_name);
	if (o->cmd == JR_CMD_DIFF && !o->diff.file_b)
		return jr_fail(
			e, -EINVAL,
			"jitread %s needs two JSON reports: before and after",
			cmd_name);
	if (o->cmd == JR_CMD_RECORD && !o->live.record)
		return jr_fail(
			e, -EINVAL,
			"jitread %s needs -o FILE, the recording to write",
			cmd_name);
	if (o->cmd == JR_CMD_SERVE && !o->serve.listen && !o->serve.textfile)
		return jr_fail(
			e, -EINVAL,
			"--listen none needs --textfile DIR: nothing to serve");
	if (o->live.runtime_us > o->live.period_us && o->live.period_us)
		return jr_fail(e, -EINVAL, "--runtime is longer than --period");
	if (o->cmd == JR_CMD_USER && !o->have_cpus)
		return jr_fail(
			e, -EINVAL,
			"jitread %s needs -c CPUS: the CPUs to sample from userspace",
			cmd_name);
	return 0;
}

/*
 * jr_parse_opts - fill o from argv[1..] for subcommand cmd (argv[0] is
 * its name); 1 for --help, 0 to run, -EINVAL with e.
 */
int jr_parse_opts(enum jr_cmd cmd, const char *cmd_name, bool legacy, int argc,
		  char **argv, struct jr_opts *o, struct jr_err *e)
{
	struct option lo[JR_NR_OPTDEFS + 1];
	char so[2 * JR_NR_OPTDEFS + 2] = "";
	int c, li, ret;

	jr_opts_defaults(o, cmd, legacy);
	jr_getopt_tables(cmd, lo, so);
	opterr = 0;
	optind = 1;
	for (;;) {
		li = -1;
		c = getopt_long(argc, argv, so, lo, &li);
		if (c == -1)
			break;
		if (c == K_HELP)
			return 1;
		if (c == ':')
			return jr_fail(e, -EINVAL, "option '%s' needs a value",
				       argv[optind - 1]);
		if (c == '?')
			return jr_unknown(cmd_name, argv[optind - 1], e);
		ret = jr_apply(c, optarg, o, e);
		if (ret == -EBADMSG)
			return -EINVAL;
		if (ret && li >= 0)
			return jr_fail(e, -EINVAL,
				       "bad value '%s' for --%s (see --help)",
				       optarg, lo[li].name);
		if (ret)
			return jr_fail(e, -EINVAL,
				       "bad value '%s' for -%c (see --help)",
				       optarg, c);
	}
	if ((cmd == JR_CMD_REPORT || cmd == JR_CMD_DIFF ||
	     cmd == JR_CMD_ADVISE) &&
	    optind < argc && !o->file)
		o->file = argv[optind++];
	if (cmd == JR_CMD_DIFF && optind < argc)
		o->diff.file_b = argv[optind++];
	if (optind < argc)
		return jr_fail(e, -EINVAL, "unexpected argument '%s'",
			       argv[optind]);
	return jr_check(o, cmd_name, e);
}

/* jr_opts_usage - cmd's options, from the table. */
void jr_opts_usage(FILE *out, enum jr_cmd cmd)
{
	size_t i;

	for (i = 0; i < JR_NR_OPTDEFS; i++) {
		const struct jr_optdef *d = &jr_optdefs[i];
		const char *h, *nl;
		char head[64];
		int len;

		if (!(d->cmds & B(cmd)) || !d->help)
			continue;
		if (d->key < 128)
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
		for (h = d->help; h; h = nl ? nl + 1 : NULL) {
			nl = strchr(h, '\n');
			len = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(out, "%-*s%.*s\n", JR_HELP_COL, head, len, h);
			head[0] = '\0';
		}
	}
}
