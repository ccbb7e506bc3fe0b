/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_auto.h - rtla's auto analysis (-a): the account of what made jitmod
 * stop, from the events read before the stop.
 */
#ifndef JR_AUTO_H
#define JR_AUTO_H

#include <stddef.h>
#include <stdio.h>

#include "core/jr_rec.h"

/*
 * jr_auto_account - to out, what made jitmod stop (the record stop):
 * from recs[0..nr), the last events of the run, oldest first; times in
 * unit, div ns each.  0, or -ENOENT when the gap is not among recs.
 */
int jr_auto_account(FILE *out, const struct jr_rec *recs, size_t nr,
		    const struct jr_rec *stop, double div, const char *unit);

#endif /* JR_AUTO_H */
