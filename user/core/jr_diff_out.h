/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_diff_out.h - jitread diff's text and JSON.
 */
#ifndef JR_DIFF_OUT_H
#define JR_DIFF_OUT_H

#include <stdio.h>

#include "core/jr_diff.h"

/* struct jr_diff_view - how the comparison is shown */
struct jr_diff_view {
	const char *label_a, *label_b;
	const char *unit; /* of times in the text */
	double div; /* ns per unit */
};

int jr_diff_text(FILE *out, const struct jr_diff *d,
		 const struct jr_diff_view *v);
int jr_diff_json(FILE *out, const struct jr_diff *d,
		 const struct jr_diff_view *v);

/* jr_diff_out_why.c: a CPU's rows of why, when both reports compared sides */
void jr_diff_why_text(FILE *out, const struct jr_dcpu *c,
		      const struct jr_diff_view *v);
void jr_diff_why_json(FILE *out, const struct jr_dcpu *c);

#endif /* JR_DIFF_OUT_H */
