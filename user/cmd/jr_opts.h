/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_opts.h - what subcommands share: the option groups, the values they
 * set, and the parser that runs a subcommand's own table.
 *
 * A subcommand (struct jr_cmd_def) lists its options in a table: shared
 * ones by their groups (jr_optgroups.c) and its own beside them, with its defaults, the handler
 * of its own options and its check, all in its own file.  Its usage text
 * comes from the same table, so no subcommand accepts an option it would
 * ignore.
 */
#ifndef JR_OPTS_H
#define JR_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "cmd/jr_actions.h"
#include "common/jr_parse.h"
#include "core/jr_verdict.h"
#include "kernel/jr_xevents.h"
#include "usamp/jr_pipe.h"

#define JR_MAX_EVENTS 16

/* what a live run does to jitmod and to itself */
struct jr_live_opts {
	uint64_t duration_ns; /* 0: until SIGINT */
	uint64_t threshold_ns; /* 0: leave the module's */
	uint64_t stop_us;
	uint64_t stop_total_us;
	unsigned char house[JR_MAX_CPUS];
	bool have_house;
	size_t buffer_kb;
	uint64_t runtime_us; /* 0: leave the module's */
	uint64_t period_us; /* 0: leave the module's */
	/* with have_warmup: jitmod's warmup_us, and the user sampler's */
	uint64_t warmup_us;
	bool have_warmup;
	uint64_t warm_up_ns; /* rtla's --warm-up: sampled, not collected */
	int prio; /* with have_prio: jitmod's prio, 0 SCHED_OTHER */
	bool have_prio;
	bool irqs_off; /* jitmod's irqs_off for the run (hwnoise) */
	bool cgroup; /* -C: the samplers into cgroup_name, or ours */
	const char *cgroup_name;
	struct jr_xevent events[JR_MAX_EVENTS]; /* -e */
	int nr_events;
	uint64_t auto_us; /* -a: -s US -T 1 -t, and an account of the stop */
	const char *record;
	const char *ready_file;
	struct jr_actions on_thr; /* when jitmod stops on a threshold */
	struct jr_actions on_end; /* when the run ends */
};

/* how the report looks and where it goes */
struct jr_out_opts {
	bool quiet;
	bool no_header;
	bool no_summary;
	bool no_index;
	bool with_zeros;
	const char *unit;
	double div;
	int precision;
	uint64_t bucket_ns;
	int entries;
	const char *json;
	const char *csv;
	const char *hgrm;
	const char *hlog;
	uint64_t hlog_interval_ns;
	struct jr_cond conds[JR_MAX_CONDS]; /* --fail-if */
	int nr_conds;
};

/* the user side: sampler, pipeline and the comparison's phases */
struct jr_user_opts {
	int work; /* enum jr_work */
	enum jr_wait wait[JR_NR_PT]; /* each thread's; JR_WAIT_AUTO */
	int fifo_prio;
	bool no_pipeline;
	bool no_bpf; /* no classifier: every user gap unclassified */
	uint64_t interval_ns;
	uint64_t ring_size;
	uint64_t warmup_ns;
	uint64_t max_gaps;
	uint64_t rounds; /* compare's; 1 elsewhere */
	uint64_t phase_ns;
	const char *input;
	const char *journal;
	uint64_t journal_bytes; /* the ring's size, header included */
};

struct jr_opts {
	const char *cmd; /* the subcommand's name */
	bool legacy; /* the old form, "jitread --hist": bare -T is in ns */
	bool two_sides; /* --fail-if may say side= (compare) */
	bool debug; /* -D: say what the run sets and does, on stderr */
	unsigned char cpus[JR_MAX_CPUS];
	bool have_cpus;
	const char *cpus_text;
	const char *file; /* the first argument: a recording or a report */
	const char *file_b; /* the second (diff's report after) */
	struct jr_live_opts live;
	struct jr_out_opts out;
	struct jr_user_opts user;
	void *own; /* the subcommand's own values: its own_size bytes */
};

/*
 * The keys of the shared options; a subcommand's own options take keys
 * from JR_K_OWN up (or a letter no shared option uses).
 */
enum jr_key {
	JR_K_CPUS = 'c',
	JR_K_DURATION = 'd',
	JR_K_THRESHOLD = 'T',
	JR_K_STOP = 's',
	JR_K_STOP_TOTAL = 'S',
	JR_K_HOUSE = 'H',
	JR_K_QUIET = 'q',
	JR_K_UNIT = 'u',
	JR_K_BUCKET = 'b',
	JR_K_ENTRIES = 'E',
	JR_K_HELP = 'h',
	JR_K_RUNTIME = 'r', /* rtla's -r, -p and -t[FILE] */
	JR_K_PERIOD = 'p',
	JR_K_TRACE = 't',
	JR_K_PRIO = 'P', /* rtla's -P, -C, -e, -a, -D */
	JR_K_CGROUP = 'C',
	JR_K_EVENT = 'e',
	JR_K_AUTO = 'a',
	JR_K_DEBUG = 'D',
	JR_K_PRECISION = 256,
	JR_K_BUFKB,
	JR_K_NOHDR,
	JR_K_ZEROS,
	JR_K_JSON,
	JR_K_CSV,
	JR_K_HGRM,
	JR_K_HLOG,
	JR_K_HLOG_INT,
	JR_K_RECORD,
	JR_K_ONTHR,
	JR_K_ONEND,
	JR_K_READY,
	JR_K_FAIL_IF,
	JR_K_WORK,
	JR_K_FIFO,
	JR_K_MAXGAPS,
	JR_K_NOPIPE,
	JR_K_NOBPF,
	JR_K_WAIT,
	JR_K_INTERVAL,
	JR_K_RING,
	JR_K_JOURNAL_SIZE,
	JR_K_WARMUP,
	JR_K_INPUT,
	JR_K_JOURNAL,
	JR_K_WAKE_SPIN,
	JR_K_OLD_WARMUP,
	JR_K_WARM_UP,
	JR_K_FILTER,
	JR_K_TRIGGER,
	JR_K_NOSUMMARY,
	JR_K_NOINDEX,
	JR_K_NOPERIOD,
	JR_K_OWN = 1024,
};

/*
 * struct jr_optdef - one option of a table, or (group set) a table of
 * shared options in its place.  A table ends with { 0 }.
 */
struct jr_optdef {
	const char *name;
	int key; /* enum jr_key, or the subcommand's own */
	const char *arg; /* NULL: a flag; "[NAME]": optional, --opt=NAME */
	const char *help; /* NULL: an alias, not in the usage text */
	const struct jr_optdef *group;
};

/* struct jr_opthelp - a subcommand's own help for a shared option */
struct jr_opthelp {
	int key; /* 0 ends a list */
	const char *help;
};

/* what an option's handler made of an option */
enum jr_optres {
	JR_OPT_TAKEN, /* applied */
	JR_OPT_BAD, /* a bad value: the parser says for which option */
	JR_OPT_SAID, /* refused, and the handler's e says why */
	JR_OPT_NOT_MINE, /* not one of the handler's options */
};

/* jr_taken - a value parser's 0 or error as a handler's result */
static inline enum jr_optres jr_taken(int ret)
{
	return ret ? JR_OPT_BAD : JR_OPT_TAKEN;
}

/*
 * What an option's handler is given: the run's options, the subcommand's
 * own values (o->own, there for convenience) and where to say why.
 */
struct jr_optenv {
	struct jr_opts *o;
	void *own;
	struct jr_err *e;
};

/*
 * struct jr_cmd_def - a subcommand: its options, the size of its own
 * values (o->own, zeroed before its defaults), the defaults it changes,
 * the handler of its own options, what it checks once all are read, and
 * its run.
 */
struct jr_cmd_def {
	const char *name;
	const char *summary; /* one line, for jitread --help */
	const char *synopsis; /* after "usage: jitread NAME " */
	const char *about; /* what it does, a few lines */
	const struct jr_optdef *opts; /* its table, groups in their places */
	const struct jr_opthelp *helps; /* its own help for shared options */
	int nr_args; /* FILE arguments it takes after its options */
	size_t own_size;
	void (*defaults)(struct jr_opts *o);
	enum jr_optres (*apply)(int key, const char *arg,
				const struct jr_optenv *env);
	int (*check)(struct jr_opts *o, const char *name, struct jr_err *e);
	int (*run)(struct jr_opts *o, int argc, char **argv);
};

/* the shared options (jr_optgroups.c), one by one and in groups */
extern const struct jr_optdef jr_opt_cpus[];
extern const struct jr_optdef jr_opt_duration[];
extern const struct jr_optdef jr_opt_threshold[];
extern const struct jr_optdef jr_opt_house[];
extern const struct jr_optdef jr_opt_record[];
extern const struct jr_optdef jr_opt_ready[];
extern const struct jr_optdef jr_opt_bufkb[];
extern const struct jr_optdef jr_opt_quiet[];
extern const struct jr_optdef jr_opt_unit[];
extern const struct jr_optdef jr_opt_precision[];
extern const struct jr_optdef jr_opt_json[];
extern const struct jr_optdef jr_opt_fifo[];
extern const struct jr_optdef jr_opt_help[];
extern const struct jr_optdef jr_opts_duty[];
extern const struct jr_optdef jr_opts_stop[];
extern const struct jr_optdef jr_opts_rtla[];
extern const struct jr_optdef jr_opts_shown[];
extern const struct jr_optdef jr_opts_files[];
extern const struct jr_optdef jr_opts_live[];
extern const struct jr_optdef jr_opts_user_side[];

int jr_parse_opts(const struct jr_cmd_def *d,
		  const struct jr_cmd_def *const *all, size_t nr_all,
		  bool legacy, int argc, char **argv, struct jr_opts *o,
		  struct jr_err *e);
void jr_opts_usage(FILE *out, const struct jr_cmd_def *d);
int jr_opt_int(const char *arg, uint64_t lo, uint64_t hi, int *out);
int jr_opt_name(const char *arg, const char *const *names, int nr, int *out);

#endif /* JR_OPTS_H */
