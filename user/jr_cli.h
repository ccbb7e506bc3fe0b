/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_cli.h - jitread's options and their parsing.
 */
#ifndef JR_CLI_H
#define JR_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "jr_rec.h"

#define JR_MAX_ACTIONS 8

enum jr_mode { JR_MODE_HIST, JR_MODE_TOP, JR_MODE_USER, JR_MODE_COMPARE };

struct jr_action {
	enum { JR_ACT_STOP, JR_ACT_TRACE, JR_ACT_EXEC, JR_ACT_SIGNAL } kind;
	const char *arg; /* file or command */
	int sig;
	int pid;
};

struct jr_opts {
	enum jr_mode mode;
	unsigned char cpus[JR_MAX_CPUS];
	bool have_cpus;
	const char *cpus_text;
	unsigned char house[JR_MAX_CPUS];
	bool have_house;
	uint64_t duration_s; /* 0: until SIGINT */
	uint64_t threshold_ns; /* 0: leave the module's */
	uint64_t stop_us;
	uint64_t stop_total_us;
	bool quiet;
	bool no_header;
	bool with_zeros;
	const char *unit;
	double div;
	int precision;
	uint64_t bucket_ns;
	int entries;
	size_t buffer_kb;
	const char *json;
	const char *csv;
	const char *hgrm;
	const char *record;
	const char *replay;
	const char *ready_file;
	struct jr_action act[JR_MAX_ACTIONS];
	int nr_act;
	/* --user and --compare */
	int work; /* enum jr_work */
	int wait; /* enum jr_wait */
	int fifo_prio;
	bool no_pipeline;
	uint64_t interval_ns;
	uint64_t ring_size;
	uint64_t warmup_ms;
	uint64_t max_gaps;
	uint64_t rounds;
	uint64_t phase_s;
	const char *input;
	const char *journal;
};

int jr_parse_cpus(const char *text, unsigned char *set, char *err,
		  size_t errlen);
int jr_parse_duration(const char *text, uint64_t *secs);
int jr_parse_args(int argc, char **argv, struct jr_opts *o, char *err,
		  size_t errlen);
void jr_usage(FILE *out);

#endif /* JR_CLI_H */
