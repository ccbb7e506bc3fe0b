/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_cmd_serve_attach.h - jitread serve --attach PID (jr_cmd_serve_attach.c).
 */
#ifndef JR_CMD_SERVE_ATTACH_H
#define JR_CMD_SERVE_ATTACH_H

#include "cmd/jr_opts.h"

int jr_serve_attach(struct jr_opts *o, int argc, char **argv);

#endif /* JR_CMD_SERVE_ATTACH_H */
