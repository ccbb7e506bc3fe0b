/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_tune_limits.h - the limits audit and advise judge a CPU by, so that
 * a finding of one is a finding of the other.
 */
#ifndef JR_TUNE_LIMITS_H
#define JR_TUNE_LIMITS_H

/* an idle state that takes longer than this to exit is a deep one, in us */
#define JR_DEEP_IDLE_US 10
/* an SMT sibling busier than this disturbs the CPU, in % */
#define JR_SIBLING_BUSY_PCT 5

#endif /* JR_TUNE_LIMITS_H */
