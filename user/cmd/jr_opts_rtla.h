/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_opts_rtla.h - rtla osnoise's options that a live run takes beyond
 * the shared groups, and -D's account of the parsed command line.
 */
#ifndef JR_OPTS_RTLA_H
#define JR_OPTS_RTLA_H

#include "cmd/jr_opts.h"

/* one of them into env->o */
enum jr_optres jr_apply_rtla(int key, const char *arg,
			     const struct jr_optenv *env);
/* -D: what the command line set, on stderr */
void jr_opts_debug(const struct jr_opts *o);

#endif /* JR_OPTS_RTLA_H */
