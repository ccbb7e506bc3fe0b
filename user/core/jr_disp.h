/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_disp.h - how much burstier than Poisson a CPU's gaps came, from its
 * report's timeline.
 *
 * The kept gaps are counted in bins of 1 s (a fifth of their span when
 * that is under 5 s).  For counts, the index of dispersion is the bins'
 * variance over their mean: 1 for gaps that come independently, more for
 * bursts.  For a noise total it is the bins' variance over what a
 * compound Poisson sum would give, the mean of their squared gaps.  Both
 * are at least 1, and 1 when the timeline cannot tell (fewer than two
 * bins or gaps).  An index above 1 is an estimate from few bins when the
 * run was short: dof says from how many (bins - 1), so that a judgement
 * can allow for it; 0 when the index is 1.
 */
#ifndef JR_DISP_H
#define JR_DISP_H

#include "core/jr_rdoc.h"

struct jr_disp {
	double phi; /* the index, at least 1 */
	int dof; /* its degrees of freedom; 0: phi is 1 */
};

struct jr_disp jr_disp_count(const struct jr_rcpu *c, uint64_t level_ns,
			     int hcls);
struct jr_disp jr_disp_total(const struct jr_rcpu *c, uint64_t floor_ns);

#endif /* JR_DISP_H */
