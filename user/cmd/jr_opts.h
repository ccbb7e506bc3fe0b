/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_opts.h - the options of every subcommand, in one table.
 *
 * Each option says which subcommands take it; a subcommand's parser and
 * its usage text both come from that table, so an option is described
 * once and no subcommand accepts an option it would ignore.
 */
#ifndef JR_OPTS_H
#define JR_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "common/jr_parse.h"
#include "core/jr_verdict.h"

enum jr_cmd {
	JR_CMD_HIST,
	JR_CMD_TOP,
	JR_CMD_RECORD,
	JR_CMD_REPORT,
	JR_CMD_USER,
	JR_CMD_COMPARE,
	JR_CMD_DIFF,
	JR_CMD_AUDIT,
	JR_CMD_ADVISE,
	JR_CMD_SERVE,
	JR_CMD_SURVEY,
	JR_NR_CMDS,
};

#define JR_MAX_ACTIONS 8

struct jr_action {
	enum {
		JR_ACT_STOP,
		JR_ACT_CONTINUE,
		JR_ACT_TRACE,
		JR_ACT_EXEC,
		JR_ACT_SIGNAL,
	} kind;
	const char *arg; /* file or command */
	int sig;
	int pid;
};

/* --on-threshold's or --on-end's actions, run in order */
struct jr_actions {
	struct jr_action a[JR_MAX_ACTIONS];
	int nr;
	bool cont; /* continue: jitmod samples again after a stop */
};

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
	const char *record;
	const char *ready_file;
	struct jr_actions on_thr; /* when jitmod stops on a threshold */
	struct jr_actions on_end; /* when the run ends */
};

/* how the report looks and where it goes */
struct jr_out_opts {
	bool quiet;
	bool no_header;
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
	int wait; /* enum jr_wait */
	int fifo_prio;
	bool no_pipeline;
	uint64_t interval_ns;
	uint64_t ring_size;
	uint64_t warmup_ns;
	uint64_t max_gaps;
	uint64_t rounds;
	uint64_t phase_ns;
	const char *input;
	const char *journal;
	uint64_t journal_bytes; /* the ring's size, header included */
};

/* jitread diff */
struct jr_diff_opts {
	const char *file_b; /* the report after (o->file: before) */
	double min_change; /* a fraction of the first report's value */
	bool fail_worse; /* exit 4 when the verdict is worse */
};

/* jitread audit */
struct jr_audit_opts {
	const char *sysroot; /* read /proc and /sys under this directory */
	bool fail_warn; /* exit 4 when an item warns */
};

/* jitread advise */
struct jr_advise_opts {
	const char *audit; /* an audit's JSON instead of the report's */
	double min_ppm; /* evidence below this share of a CPU's time */
	uint64_t min_count; /* or below this many events */
	bool fail_advice; /* exit 4 when there is advice */
};

/* jitread serve */
enum jr_sampler { JR_SAMPLER_AUTO, JR_SAMPLER_JITMOD, JR_SAMPLER_USER };

struct jr_serve_opts {
	const char *listen; /* NULL with --textfile alone */
	const char *textfile; /* a directory */
	uint64_t interval_ns; /* how often the metrics are refreshed */
	int top; /* sources per CPU with series of their own */
	int sampler; /* enum jr_sampler */
};

/* jitread survey */
enum jr_survey_mode { JR_SURVEY_GAPS, JR_SURVEY_FWQ };

struct jr_survey_opts {
	unsigned char cpus[JR_MAX_CPUS]; /* --rank-cpus */
	bool have_cpus;
	int mode; /* enum jr_survey_mode */
	uint64_t quantum_ns;
	uint64_t every; /* quanta between barriers */
	uint64_t timeout_ns;
	int worst;
};

struct jr_opts {
	enum jr_cmd cmd;
	bool legacy; /* the old form, "jitread --hist": bare -T is in ns */
	unsigned char cpus[JR_MAX_CPUS];
	bool have_cpus;
	const char *cpus_text;
	const char *file; /* report: the recording; diff: the first report */
	struct jr_live_opts live;
	struct jr_out_opts out;
	struct jr_user_opts user;
	struct jr_diff_opts diff;
	struct jr_audit_opts audit;
	struct jr_advise_opts advise;
	struct jr_serve_opts serve;
	struct jr_survey_opts survey;
};

int jr_parse_opts(enum jr_cmd cmd, const char *cmd_name, bool legacy, int argc,
		  char **argv, struct jr_opts *o, struct jr_err *e);
void jr_opts_usage(FILE *out, enum jr_cmd cmd);

#endif /* JR_OPTS_H */
