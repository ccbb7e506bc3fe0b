/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_cmd_attach.h - what jitread serve --attach shares with jitread
 * attach: the report of a finished run.
 */
#ifndef JR_CMD_ATTACH_H
#define JR_CMD_ATTACH_H

#include "cmd/jr_opts.h"
#include "cmd/jr_out.h"
#include "kernel/jr_sysinfo.h"
#include "usamp/jr_attach.h"

/* how often the ring is read, in ms */
#define JR_ATTACH_POLL_MS 100

int jr_attach_report(struct jr_opts *o, struct jr_attach *a, struct jr_model *m,
		     struct jr_sysinfo *sys, struct jr_outputs *outs);

#endif /* JR_CMD_ATTACH_H */
