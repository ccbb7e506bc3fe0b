/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_live_cgroup.h - rtla's -C: jitmod's samplers in a cgroup for the
 * run, through jitmod's cgroup_pid.
 */
#ifndef JR_LIVE_CGROUP_H
#define JR_LIVE_CGROUP_H

#include <sys/types.h>

#include "cmd/jr_opts.h"
#include "kernel/jr_kparams.h"

struct jr_cgroup_move {
	pid_t helper; /* a child that stays in -C's cgroup for the run, or 0 */
};

void jr_cgroup_join(const struct jr_opts *o, struct jr_ksave *saved,
		    struct jr_cgroup_move *m);
void jr_cgroup_leave(struct jr_cgroup_move *m);

#endif /* JR_LIVE_CGROUP_H */
