/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_live_cgroup.h - rtla's -C: jitmod's samplers into a cgroup for the
 * run, and back into their own at its end.
 */
#ifndef JR_LIVE_CGROUP_H
#define JR_LIVE_CGROUP_H

#include <sys/types.h>

#include "cmd/jr_opts.h"

#define JR_CG_MAX 64 /* sampler threads moved */

struct jr_cgroup_move {
	char mnt[256]; /* the cgroup2 mount */
	int nr;
	struct {
		pid_t pid;
		char from[256]; /* its cgroup, under mnt */
	} t[JR_CG_MAX];
};

void jr_cgroup_join(const struct jr_opts *o, struct jr_cgroup_move *m);
void jr_cgroup_leave(struct jr_cgroup_move *m);

#endif /* JR_LIVE_CGROUP_H */
