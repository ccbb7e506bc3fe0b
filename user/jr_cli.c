// SPDX-License-Identifier: GPL-2.0
/*
 * jr_cli.c - jitread's command line, in rtla/rt-tests vocabulary.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jr_cli.h"
#include "jr_hist.h"
#include "jr_pipe.h"
#include "jr_usamp.h"

void jr_usage(FILE *out)
{
	fprintf(out,
		"usage: jitread [--hist | --top] [options]\n"
		"       jitread --replay FILE [report options]\n"
		"       jitread --user -c CPUS [options]    (no module needed)\n"
		"       jitread --compare [-c CPUS] [options]\n"
		"\n"
		"Reads the jitmod:* events from a tracefs instance of its own and reports\n"
		"per-CPU noise: percentiles per class, a bucket histogram, the noise\n"
		"sources by total time and a summary.  Times are in ns unless -u us.\n"
		"\n"
		"  --hist               histograms and tables at the end (default)\n"
		"  --top                a per-CPU table refreshed every second\n"
		"  -c, --cpus LIST      report only these CPUs (must be sampled)\n"
		"  -d, --duration D     run for D: 30s, 5m, 1h, 1d (default: until ^C)\n"
		"  -T, --threshold NS   set jitmod's threshold_ns first\n"
		"  -s, --stop-us US     set jitmod's stop_us (stop on one gap > US)\n"
		"  -S, --stop-total-us US  set jitmod's stop_total_us\n"
		"  --on-threshold A     when jitmod stops: stop | trace[=FILE] |\n"
		"                       exec=CMD | signal=SIG,PID (repeatable)\n"
		"  -H, --house LIST     pin jitread itself to these CPUs\n"
		"  --ready-file FILE    create FILE once sampling has begun (for scripts)\n"
		"  -q, --quiet          no status line, no text report\n"
		"  -u, --unit ns|us     unit of the text tables (default ns)\n"
		"  --precision N        histogram significant digits, 1-4 (default 3)\n"
		"  --bucket-size NS     bucket table width in ns (default 1000)\n"
		"  --entries N          bucket table rows (default 256)\n"
		"  --buffer-kb KB       per-CPU ring buffer of our instance (default 8192)\n"
		"  --no-header          no header lines\n"
		"  --with-zeros         print empty rows and classes too\n"
		"  --json FILE          versioned JSON report\n"
		"  --csv DIR            percentiles.csv, sources.csv, summary.csv\n"
		"  --hgrm DIR           HdrHistogram .hgrm per CPU and class\n"
		"  --record FILE        save every event for --replay\n"
		"  --replay FILE        analyse a recording; no root, no module\n"
		"\n"
		"Userspace side (--user) and kernel-vs-user comparison (--compare):\n"
		"  --user               sample the CPUs from a user thread each, then run\n"
		"                       the three-thread pipeline; BPF classifies the gaps\n"
		"  --compare            alternate jitmod and the user side on the same CPUs\n"
		"  --rounds R           --compare: R kernel and R user phases (default 2)\n"
		"  --phase D            --compare: length of each phase (default 10s)\n"
		"  --work MODE          user sampler: none (the gap loop, default), usleep,\n"
		"                       nanosleep, memwalk, arith, kill, gettime\n"
		"  --fifo PRIO          run the user threads SCHED_FIFO at PRIO (1-99)\n"
		"  --max-gaps N         user gaps kept per CPU and phase (default 1000000)\n"
		"  --no-pipeline        skip the pipeline\n"
		"  --wait STRATEGY      pipeline waits: spin (default), yield, sleep;\n"
		"                       only yield and sleep may share a CPU\n"
		"  --interval-us US     pipeline publication interval (default 10)\n"
		"  --ring N             pipeline ring slots, a power of two (default 4096)\n"
		"  --warmup-ms MS       pipeline warm-up left out of the figures (default 1000)\n"
		"  --input FILE         pipeline messages: 8-byte payloads (default: generated)\n"
		"  --journal FILE       pipeline journal (default: a temporary file, removed)\n"
		"  -h, --help           this text\n");
}

/* jr_parse_cpus - "1-3,5" into a set; an empty or bad list is an error. */
int jr_parse_cpus(const char *text, unsigned char *set, char *err,
		  size_t errlen)
{
	const char *p = text;
	int n = 0;

	memset(set, 0, JR_MAX_CPUS);
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0 || a >= JR_MAX_CPUS)
			goto bad;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= JR_MAX_CPUS)
				goto bad;
			p = end;
		}
		for (; a <= b; a++, n++)
			set[a] = 1;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (n)
		return 0;
bad:
	snprintf(err, errlen, "bad CPU list '%s' (want e.g. 1-3,5)", text);
	return -EINVAL;
}

/* jr_parse_duration - "30s", "5m", "1h", "1d" or plain seconds. */
int jr_parse_duration(const char *text, uint64_t *secs)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	if (!*text || *text == '-')
		return -EINVAL;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -EINVAL;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		mul = 60;
		break;
	case 'h':
		mul = 3600;
		break;
	case 'd':
		mul = 86400;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	if (!v || v > UINT64_MAX / mul / 1000000000ULL)
		return -EINVAL;
	*secs = v * mul;
	return 0;
}

static int jr_parse_u64(const char *text, uint64_t lo, uint64_t hi,
			uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!*text || *text == '-')
		return -EINVAL;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int jr_parse_action(const char *text, struct jr_opts *o, char *err,
			   size_t errlen)
{
	struct jr_action *a;

	if (o->nr_act == JR_MAX_ACTIONS) {
		snprintf(err, errlen, "at most %d --on-threshold actions",
			 JR_MAX_ACTIONS);
		return -EINVAL;
	}
	a = &o->act[o->nr_act];
	memset(a, 0, sizeof(*a));
	if (!strcmp(text, "stop")) {
		a->kind = JR_ACT_STOP;
	} else if (!strcmp(text, "trace") || !strncmp(text, "trace=", 6)) {
		a->kind = JR_ACT_TRACE;
		a->arg = text[5] ? text + 6 : "jitread_trace.txt";
	} else if (!strncmp(text, "exec=", 5) && text[5]) {
		a->kind = JR_ACT_EXEC;
		a->arg = text + 5;
	} else if (!strncmp(text, "signal=", 7) &&
		   sscanf(text + 7, "%d,%d", &a->sig, &a->pid) == 2 &&
		   a->sig > 0 && a->sig < NSIG && a->pid > 0) {
		a->kind = JR_ACT_SIGNAL;
	} else {
		snprintf(
			err, errlen,
			"bad --on-threshold '%s' (stop, trace[=FILE], exec=CMD, signal=SIG,PID)",
			text);
		return -EINVAL;
	}
	o->nr_act++;
	return 0;
}

enum {
	OPT_HIST = 256,
	OPT_TOP,
	OPT_PRECISION,
	OPT_BUCKET,
	OPT_ENTRIES,
	OPT_NOHDR,
	OPT_ZEROS,
	OPT_JSON,
	OPT_CSV,
	OPT_HGRM,
	OPT_RECORD,
	OPT_REPLAY,
	OPT_ONTHR,
	OPT_READY,
	OPT_BUFKB,
	OPT_USER,
	OPT_COMPARE,
	OPT_ROUNDS,
	OPT_PHASE,
	OPT_WORK,
	OPT_FIFO,
	OPT_MAXGAPS,
	OPT_NOPIPE,
	OPT_WAIT,
	OPT_INTERVAL,
	OPT_RING,
	OPT_WARMUP,
	OPT_INPUT,
	OPT_JOURNAL,
};

static const struct option jr_longopts[] = {
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "top", no_argument, NULL, OPT_TOP },
	{ "cpus", required_argument, NULL, 'c' },
	{ "duration", required_argument, NULL, 'd' },
	{ "threshold", required_argument, NULL, 'T' },
	{ "stop-us", required_argument, NULL, 's' },
	{ "stop-total-us", required_argument, NULL, 'S' },
	{ "house", required_argument, NULL, 'H' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "unit", required_argument, NULL, 'u' },
	{ "precision", required_argument, NULL, OPT_PRECISION },
	{ "bucket-size", required_argument, NULL, OPT_BUCKET },
	{ "entries", required_argument, NULL, OPT_ENTRIES },
	{ "buffer-kb", required_argument, NULL, OPT_BUFKB },
	{ "no-header", no_argument, NULL, OPT_NOHDR },
	{ "with-zeros", no_argument, NULL, OPT_ZEROS },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "hgrm", required_argument, NULL, OPT_HGRM },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "on-threshold", required_argument, NULL, OPT_ONTHR },
	{ "ready-file", required_argument, NULL, OPT_READY },
	{ "user", no_argument, NULL, OPT_USER },
	{ "compare", no_argument, NULL, OPT_COMPARE },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "phase", required_argument, NULL, OPT_PHASE },
	{ "work", required_argument, NULL, OPT_WORK },
	{ "fifo", required_argument, NULL, OPT_FIFO },
	{ "max-gaps", required_argument, NULL, OPT_MAXGAPS },
	{ "no-pipeline", no_argument, NULL, OPT_NOPIPE },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "interval-us", required_argument, NULL, OPT_INTERVAL },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "warmup-ms", required_argument, NULL, OPT_WARMUP },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "journal", required_argument, NULL, OPT_JOURNAL },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* jr_parse_user_opt - the --user/--compare options; -EINVAL: bad value. */
static int jr_parse_user_opt(int c, const char *arg, struct jr_opts *o)
{
	uint64_t v = 0;
	int i;

	switch (c) {
	case OPT_USER:
		o->mode = JR_MODE_USER;
		return 0;
	case OPT_COMPARE:
		o->mode = JR_MODE_COMPARE;
		return 0;
	case OPT_NOPIPE:
		o->no_pipeline = true;
		return 0;
	case OPT_INPUT:
		o->input = arg;
		return 0;
	case OPT_JOURNAL:
		o->journal = arg;
		return 0;
	case OPT_PHASE:
		return jr_parse_duration(arg, &o->phase_s);
	case OPT_WORK:
		o->work = jr_usamp_parse_work(arg);
		return o->work < 0 ? -EINVAL : 0;
	case OPT_WAIT:
		for (i = 0; i < JR_WAIT_NR; i++)
			if (!strcmp(arg, jr_wait_names[i]))
				o->wait = i;
		return strcmp(arg, jr_wait_names[o->wait]) ? -EINVAL : 0;
	case OPT_ROUNDS:
		return jr_parse_u64(arg, 1, 1000, &o->rounds);
	case OPT_FIFO:
		if (jr_parse_u64(arg, 1, 99, &v))
			return -EINVAL;
		o->fifo_prio = (int)v;
		return 0;
	case OPT_MAXGAPS:
		return jr_parse_u64(arg, 1, 100000000, &o->max_gaps);
	case OPT_INTERVAL:
		if (jr_parse_u64(arg, 1, 1000000, &v))
			return -EINVAL;
		o->interval_ns = v * 1000;
		return 0;
	case OPT_RING:
		if (jr_parse_u64(arg, 2, 1 << 24, &o->ring_size) ||
		    (o->ring_size & (o->ring_size - 1)))
			return -EINVAL;
		return 0;
	case OPT_WARMUP:
		return jr_parse_u64(arg, 0, 3600000, &o->warmup_ms);
	}
	return -EINVAL;
}

/* jr_check_user_opts - what --user and --compare cannot be combined with. */
static int jr_check_user_opts(const struct jr_opts *o, char *err, size_t errlen)
{
	const char *m = o->mode == JR_MODE_USER ? "--user" : "--compare";

	if (o->mode != JR_MODE_USER && o->mode != JR_MODE_COMPARE)
		return 0;
	if (o->replay || o->record || o->nr_act || o->stop_us ||
	    o->stop_total_us || o->hgrm) {
		snprintf(
			err, errlen,
			"%s cannot be combined with --replay, --record, --hgrm, --on-threshold, -s or -S",
			m);
		return -EINVAL;
	}
	if (o->mode == JR_MODE_USER && !o->have_cpus) {
		snprintf(
			err, errlen,
			"--user needs -c CPUS: the CPUs to sample from userspace");
		return -EINVAL;
	}
	return 0;
}

/* jr_parse_args - fill o; 1 for --help, 0 to run, -EINVAL with err. */
int jr_parse_args(int argc, char **argv, struct jr_opts *o, char *err,
		  size_t errlen)
{
	uint64_t v;
	int c, li;

	memset(o, 0, sizeof(*o));
	o->unit = "ns";
	o->div = 1.0;
	o->precision = JR_HIST_DEFAULT_PRECISION;
	o->bucket_ns = 1000;
	o->entries = 256;
	o->buffer_kb = 8192;
	o->interval_ns = 10000;
	o->ring_size = 4096;
	o->warmup_ms = 1000;
	o->max_gaps = 1000000;
	o->rounds = 2;
	o->phase_s = 10;
	opterr = 0;
	optind = 1;
	for (;;) {
		li = -1;
		c = getopt_long(argc, argv, ":c:d:T:s:S:H:qu:h", jr_longopts,
				&li);
		if (c == -1)
			break;
		switch (c) {
		case OPT_HIST:
			o->mode = JR_MODE_HIST;
			break;
		case OPT_TOP:
			o->mode = JR_MODE_TOP;
			break;
		case 'c':
			if (jr_parse_cpus(optarg, o->cpus, err, errlen))
				return -EINVAL;
			o->have_cpus = true;
			o->cpus_text = optarg;
			break;
		case 'H':
			if (jr_parse_cpus(optarg, o->house, err, errlen))
				return -EINVAL;
			o->have_house = true;
			break;
		case 'd':
			if (jr_parse_duration(optarg, &o->duration_s))
				goto bad_value;
			break;
		case 'T':
			if (jr_parse_u64(optarg, 1, 1000000000,
					 &o->threshold_ns))
				goto bad_value;
			break;
		case 's':
			if (jr_parse_u64(optarg, 1, 60000000, &o->stop_us))
				goto bad_value;
			break;
		case 'S':
			if (jr_parse_u64(optarg, 1, 60000000,
					 &o->stop_total_us))
				goto bad_value;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'u':
			if (!strcmp(optarg, "ns"))
				o->div = 1.0;
			else if (!strcmp(optarg, "us"))
				o->div = 1000.0;
			else
				goto bad_value;
			o->unit = o->div == 1.0 ? "ns" : "us";
			break;
		case OPT_PRECISION:
			if (jr_parse_u64(optarg, JR_HIST_MIN_PRECISION,
					 JR_HIST_MAX_PRECISION, &v))
				goto bad_value;
			o->precision = (int)v;
			break;
		case OPT_BUCKET:
			if (jr_parse_u64(optarg, 1, 1000000000, &o->bucket_ns))
				goto bad_value;
			break;
		case OPT_ENTRIES:
			if (jr_parse_u64(optarg, 1, 1000000, &v))
				goto bad_value;
			o->entries = (int)v;
			break;
		case OPT_BUFKB:
			if (jr_parse_u64(optarg, 64, 4194304, &v))
				goto bad_value;
			o->buffer_kb = v;
			break;
		case OPT_NOHDR:
			o->no_header = true;
			break;
		case OPT_ZEROS:
			o->with_zeros = true;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_CSV:
			o->csv = optarg;
			break;
		case OPT_HGRM:
			o->hgrm = optarg;
			break;
		case OPT_RECORD:
			o->record = optarg;
			break;
		case OPT_REPLAY:
			o->replay = optarg;
			break;
		case OPT_READY:
			o->ready_file = optarg;
			break;
		case OPT_ONTHR:
			if (jr_parse_action(optarg, o, err, errlen))
				return -EINVAL;
			break;
		case 'h':
			return 1;
		case OPT_USER ... OPT_JOURNAL:
			if (jr_parse_user_opt(c, optarg, o))
				goto bad_value;
			break;
		case ':':
			snprintf(err, errlen, "option '%s' needs a value",
				 argv[optind - 1]);
			return -EINVAL;
		default:
			snprintf(err, errlen,
				 "unknown option '%s' (see --help)",
				 argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (o->replay && (o->record || o->mode == JR_MODE_TOP ||
			  o->threshold_ns || o->stop_us || o->stop_total_us)) {
		snprintf(
			err, errlen,
			"--replay reads a file: no --record, --top, -T, -s or -S");
		return -EINVAL;
	}
	return jr_check_user_opts(o, err, errlen);

bad_value:
	if (li >= 0)
		snprintf(err, errlen, "bad value '%s' for --%s (see --help)",
			 optarg, jr_longopts[li].name);
	else
		snprintf(err, errlen, "bad value '%s' for -%c (see --help)",
			 optarg, c);
	return -EINVAL;
}
