/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_cmd_top.h - top's frames and run, which hwnoise shares with a table of
 * its own.
 */
#ifndef JR_CMD_TOP_H
#define JR_CMD_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/jr_live.h"

/* a command's table: its name, its header line, and a CPU's row */
struct jr_top_view {
	const char *cmd;
	const char *head;
	void (*row)(FILE *out, int cpu, const struct jr_cpu *p,
		    const char *avail, uint64_t hw, double div);
};

void jr_top_frames(struct jr_live *c, double elapsed, bool last,
		   const struct jr_top_view *v);
int jr_top_go(struct jr_opts *o, int argc, char **argv,
	      void (*frame)(struct jr_live *, double, bool));
extern const struct jr_optdef jr_top_opts[];
int jr_top_check(struct jr_opts *o, const char *name, struct jr_err *e);

#endif /* JR_CMD_TOP_H */
