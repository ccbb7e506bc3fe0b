// SPDX-License-Identifier: GPL-2.0
/*
 * jr_optgroups.c - the options subcommands share, as tables.  A
 * subcommand's table names a group by an entry { .group = TABLE }, which
 * stands for that table's options in its place; each table ends with
 * { 0 }.
 */
#include "cmd/jr_opts.h"

/* the shared options, one by one */
const struct jr_optdef jr_opt_cpus[] = {
	{ .name = "cpus",
	  .key = JR_K_CPUS,
	  .arg = "LIST",
	  .help = "CPUs to report, e.g. 1-3,5" },
	{ 0 },
};

const struct jr_optdef jr_opt_duration[] = {
	{ .name = "duration",
	  .key = JR_K_DURATION,
	  .arg = "TIME",
	  .help = "run for TIME, e.g. 30s, 5m, 1h, 1d; bare: s\n"
		  "(default: until ^C)" },
	{ 0 },
};

const struct jr_optdef jr_opt_threshold[] = {
	{ .name = "threshold",
	  .key = JR_K_THRESHOLD,
	  .arg = "TIME",
	  .help = "set jitmod's threshold_ns; bare: us" },
	{ 0 },
};

const struct jr_optdef jr_opt_house[] = {
	{ .name = "house",
	  .key = JR_K_HOUSE,
	  .arg = "LIST",
	  .help = "pin jitread's own threads to these CPUs\n"
		  "(default: the online CPUs not sampled)" },
	{ .name = "house-keeping",
	  .key = JR_K_HOUSE,
	  .arg = "LIST",
	  .help = NULL /* rtla's name */ },
	{ 0 },
};

const struct jr_optdef jr_opt_record[] = {
	{ .name = "record",
	  .key = JR_K_RECORD,
	  .arg = "FILE",
	  .help = "also save every event to FILE, for jitread report" },
	{ 0 },
};

const struct jr_optdef jr_opt_ready[] = {
	{ .name = "ready-file",
	  .key = JR_K_READY,
	  .arg = "FILE",
	  .help = "create FILE once sampling has begun (for scripts)" },
	{ 0 },
};

const struct jr_optdef jr_opt_bufkb[] = {
	{ .name = "buffer-kb",
	  .key = JR_K_BUFKB,
	  .arg = "KB",
	  .help = "per-CPU ring buffer of jitread's instance (default 8192)" },
	{ .name = "trace-buffer-size",
	  .key = JR_K_BUFKB,
	  .arg = "KB",
	  .help = NULL /* rtla's */ },
	{ 0 },
};

const struct jr_optdef jr_opt_quiet[] = {
	{ .name = "quiet",
	  .key = JR_K_QUIET,
	  .help = "no status line, no text report" },
	{ 0 },
};

const struct jr_optdef jr_opt_unit[] = {
	{ .name = "unit",
	  .key = JR_K_UNIT,
	  .arg = "ns|us|ms",
	  .help = "unit of the text tables (default us)" },
	{ 0 },
};

const struct jr_optdef jr_opt_precision[] = {
	{ .name = "precision",
	  .key = JR_K_PRECISION,
	  .arg = "N",
	  .help = "histogram significant digits, 1-4 (default 3)" },
	{ 0 },
};

const struct jr_optdef jr_opt_json[] = {
	{ .name = "json",
	  .key = JR_K_JSON,
	  .arg = "FILE",
	  .help = "versioned JSON report (- for stdout)" },
	{ 0 },
};

const struct jr_optdef jr_opt_fifo[] = {
	{ .name = "fifo",
	  .key = JR_K_FIFO,
	  .arg = "PRIO",
	  .help = "run the user threads SCHED_FIFO at PRIO (1-99)" },
	{ 0 },
};

const struct jr_optdef jr_opt_help[] = {
	{ .name = "help", .key = JR_K_HELP, .help = "this text" },
	{ 0 },
};

/* what a live run sets in jitmod: its duty cycle, and when it stops */
const struct jr_optdef jr_opts_duty[] = {
	{ .name = "runtime",
	  .key = JR_K_RUNTIME,
	  .arg = "TIME",
	  .help = "set jitmod's runtime_us: sampling time per period;\n"
		  "bare: us" },
	{ .name = "period",
	  .key = JR_K_PERIOD,
	  .arg = "TIME",
	  .help = "set jitmod's period_us; bare: us" },
	{ .name = "wake-spin",
	  .key = JR_K_WAKE_SPIN,
	  .arg = "TIME",
	  .help = "set jitmod's warmup_us: spun after each sleep, not\n"
		  "sampled; bare: us" },
	{ .name = "warmup",
	  .key = JR_K_OLD_WARMUP,
	  .arg = "TIME",
	  .help = NULL /* refused */ },
	{ 0 },
};

const struct jr_optdef jr_opts_stop[] = {
	{ .name = "stop",
	  .key = JR_K_STOP,
	  .arg = "TIME",
	  .help = "set jitmod's stop_us: stop on one gap above TIME; bare: us" },
	{ .name = "stop-us", .key = JR_K_STOP, .arg = "TIME" },
	{ .name = "stop-total",
	  .key = JR_K_STOP_TOTAL,
	  .arg = "TIME",
	  .help = "set jitmod's stop_total_us: stop on a period's noise; bare: us" },
	{ .name = "stop-total-us", .key = JR_K_STOP_TOTAL, .arg = "TIME" },
	{ .name = "on-threshold",
	  .key = JR_K_ONTHR,
	  .arg = "ACTION",
	  .help = "when jitmod stops: stop | continue | trace[=FILE] |\n"
		  "exec=CMD | signal=SIG,PID (repeatable; rtla's forms too)" },
	{ .name = "trace",
	  .key = JR_K_TRACE,
	  .arg = "[FILE]",
	  .help = "--on-threshold trace[=FILE], as rtla's -t[FILE]" },
	{ .name = "on-end",
	  .key = JR_K_ONEND,
	  .arg = "ACTION",
	  .help = "when the run ends: trace[=FILE] | exec=CMD |\n"
		  "signal=SIG,PID (repeatable; rtla's forms too)" },
	{ 0 },
};

/* rtla's options of a live run that the groups above do not cover */
const struct jr_optdef jr_opts_rtla[] = {
	{ .name = "priority",
	  .key = JR_K_PRIO,
	  .arg = "f:PRIO|o:0",
	  .help = "set jitmod's prio: SCHED_FIFO at PRIO (1-99), or\n"
		  "SCHED_OTHER (o:0); F: and O: too, as rtla" },
	{ .name = "cgroup",
	  .key = JR_K_CGROUP,
	  .arg = "[NAME]",
	  .help = "the samplers into cgroup NAME (a path under the\n"
		  "cgroup2 mount), or into jitread's own; back at the end" },
	{ .name = "warm-up",
	  .key = JR_K_WARM_UP,
	  .arg = "S",
	  .help = "sample S seconds before collecting; bare: s" },
	{ .name = "event",
	  .key = JR_K_EVENT,
	  .arg = "SYS[:EVENT]",
	  .help = "also trace this event into -t's file (repeatable)" },
	{ .name = "filter",
	  .key = JR_K_FILTER,
	  .arg = "FILTER",
	  .help = "the filter of the -e before it" },
	{ .name = "trigger",
	  .key = JR_K_TRIGGER,
	  .arg = "TRIGGER",
	  .help = "the trigger of the -e before it" },
	{ .name = "auto",
	  .key = JR_K_AUTO,
	  .arg = "US",
	  .help = "rtla's auto analysis: -s US -T 1 -t, and what ran\n"
		  "inside the gap that stopped jitmod" },
	{ .name = "debug",
	  .key = JR_K_DEBUG,
	  .help = "say on stderr what the run sets and does" },
	{ 0 },
};

/* how a report's tables look, and when the run fails */
const struct jr_optdef jr_opts_shown[] = {
	{ .group = jr_opt_unit },
	{ .group = jr_opt_precision },
	{ .name = "bucket-size",
	  .key = JR_K_BUCKET,
	  .arg = "TIME",
	  .help = "bucket table width (default 1us); bare: us" },
	{ .name = "entries",
	  .key = JR_K_ENTRIES,
	  .arg = "N",
	  .help = "bucket table rows (default 256)" },
	{ .name = "no-header", .key = JR_K_NOHDR, .help = "no header lines" },
	{ .name = "no-summary",
	  .key = JR_K_NOSUMMARY,
	  .help = "no summary table" },
	{ .name = "no-index",
	  .key = JR_K_NOINDEX,
	  .help = "bucket table without its index column" },
	{ .name = "with-zeros",
	  .key = JR_K_ZEROS,
	  .help = "print empty rows and classes" },
	{ .name = "fail-if",
	  .key = JR_K_FAIL_IF,
	  .arg = "COND",
	  .help = "exit 4 when COND holds at the end (repeatable), e.g.\n"
		  "max>50us, p99.9999>10us, avail<99.99%, class=irq,max>5us,\n"
		  "cpu=all,count>1000, source=irq:local_timer,rate>1" },
	{ 0 },
};

/* a report's files beside the JSON */
const struct jr_optdef jr_opts_files[] = {
	{ .name = "csv",
	  .key = JR_K_CSV,
	  .arg = "DIR",
	  .help = "percentiles.csv, sources.csv, summary.csv" },
	{ .name = "hgrm",
	  .key = JR_K_HGRM,
	  .arg = "DIR",
	  .help = "HdrHistogram .hgrm per CPU and class" },
	{ .name = "hlog",
	  .key = JR_K_HLOG,
	  .arg = "FILE",
	  .help = "HdrHistogram interval log of each CPU's gaps" },
	{ .name = "hlog-interval",
	  .key = JR_K_HLOG_INT,
	  .arg = "TIME",
	  .help = "--hlog's interval (default 1s, at least 1ms); bare: s" },
	{ 0 },
};

/* what every live run of jitmod takes: its CPUs, length, settings, reader */
const struct jr_optdef jr_opts_live[] = {
	{ .group = jr_opt_cpus },
	{ .group = jr_opt_duration },
	{ .group = jr_opt_threshold },
	{ .group = jr_opts_duty },
	{ .group = jr_opts_stop },
	{ .group = jr_opts_rtla },
	{ .group = jr_opt_house },
	{ .group = jr_opt_ready },
	{ .group = jr_opt_bufkb },
	{ .group = jr_opt_quiet },
	{ 0 },
};

/* the user side: its sampler and the pipeline */
const struct jr_optdef jr_opts_user_side[] = {
	{ .name = "work",
	  .key = JR_K_WORK,
	  .arg = "MODE",
	  .help = "user sampler: none (the gap loop, default), usleep,\n"
		  "nanosleep, memwalk, arith, kill, gettime" },
	{ .group = jr_opt_fifo },
	{ .name = "max-gaps",
	  .key = JR_K_MAXGAPS,
	  .arg = "N",
	  .help = "user gaps waiting to be classified, per CPU (default 262144)" },
	{ .name = "no-pipeline",
	  .key = JR_K_NOPIPE,
	  .help = "skip the pipeline" },
	{ .name = "no-bpf",
	  .key = JR_K_NOBPF,
	  .help = "no BPF classifier: every user gap unclassified" },
	{ .name = "wait",
	  .key = JR_K_WAIT,
	  .arg = "STRATEGY",
	  .help = "pipeline waits: auto (default: spin on a CPU of its\n"
		  "own, yield on a shared one), spin, yield, sleep, or\n"
		  "three for producer,accumulator,journaller" },
	{ .name = "interval-us",
	  .key = JR_K_INTERVAL,
	  .arg = "TIME",
	  .help = "pipeline publication interval (default 10); bare: us" },
	{ .name = "ring",
	  .key = JR_K_RING,
	  .arg = "N",
	  .help = "pipeline ring slots, a power of two (default 4096)" },
	{ .name = "warmup-ms",
	  .key = JR_K_WARMUP,
	  .arg = "TIME",
	  .help = "pipeline warm-up left out (default 1000); bare: ms" },
	{ .name = "input",
	  .key = JR_K_INPUT,
	  .arg = "FILE",
	  .help = "pipeline messages: 8-byte payloads (default: generated)" },
	{ .name = "journal",
	  .key = JR_K_JOURNAL,
	  .arg = "FILE",
	  .help = "keep the pipeline journal in FILE (a new file);\n"
		  "compare with --rounds R > 1: FILE.1 .. FILE.R" },
	{ .name = "journal-size",
	  .key = JR_K_JOURNAL_SIZE,
	  .arg = "SIZE",
	  .help = "the journal keeps the last SIZE bytes of messages\n"
		  "(default 64M; K, M, G)" },
	{ 0 },
};
