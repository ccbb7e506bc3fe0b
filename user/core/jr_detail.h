/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_detail.h - what ran inside a source's windows (jitmod:detail), and
 * how often and how regularly a source comes.
 */
#ifndef JR_DETAIL_H
#define JR_DETAIL_H

#include <stdint.h>

#include "core/jr_rec.h"

#define JR_MAX_DETAIL 16 /* named rows per source; the rest are "other" */
#define JR_PEND_MAX 64 /* details per CPU waiting for their window */
#define JR_IA_PER_OCT 4 /* inter-arrival bins per octave */
#define JR_IA_BINS (40 * JR_IA_PER_OCT) /* 1 ns .. about 18 minutes */

/*
 * struct jr_detail_row - one named thing inside a source's windows.
 * For work, timer and hrtimer rows, count is the windows it ran in and
 * total_ns its share of their net time, split by the callbacks' own
 * times; for tick rows, the local_timer windows whose tick that
 * dependency kept, and their whole net time.
 */
struct jr_detail_row {
	char name[56]; /* "work:vmstat_update", "tick:RCU" */
	uint64_t count;
	uint64_t total_ns;
};

struct jr_src_detail {
	int nr; /* rows used, other included */
	struct jr_detail_row row[JR_MAX_DETAIL + 1];
};

/* struct jr_ia - a source's inter-arrival times, in log bins. */
struct jr_ia {
	uint64_t n; /* intervals */
	uint32_t bin[JR_IA_BINS];
	uint64_t sum[JR_IA_BINS];
};

/* struct jr_pend - details seen on one CPU, not yet given a window. */
struct jr_pend {
	int nr;
	struct jr_rec r[JR_PEND_MAX];
	uint64_t orphans; /* dropped: their window made no event */
};

void jr_pend_add(struct jr_pend *p, const struct jr_rec *r);
int jr_pend_claim(struct jr_pend *p, const struct jr_rec *win,
		  struct jr_src_detail **det);
void jr_pend_flush(struct jr_pend *p);
int jr_ia_add(struct jr_ia **ia, uint64_t *last_ns, uint64_t ts_ns);
double jr_ia_period(const struct jr_ia *ia, uint64_t *period_ns);

#endif /* JR_DETAIL_H */
