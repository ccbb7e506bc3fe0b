/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_live_setup.h - before a live run: checks, jitread's own CPUs, and
 * jitmod's settings.
 */
#ifndef JR_LIVE_SETUP_H
#define JR_LIVE_SETUP_H

#include "cmd/jr_opts.h"
#include "kernel/jr_kparams.h"

void jr_preflight(struct jr_opts *o);
void jr_house_default(struct jr_opts *o, const unsigned char *sampled);
void jr_house_jitmod(struct jr_opts *o);
void jr_pin_house(const struct jr_opts *o);
void jr_claim_params(const struct jr_opts *o, struct jr_ksave *saved,
		     const char *what);
void jr_set_params(const struct jr_opts *o, struct jr_ksave *saved);
void jr_set_stops(const struct jr_opts *o, struct jr_ksave *saved);
void jr_restore_or_warn(struct jr_ksave *saved);

#endif /* JR_LIVE_SETUP_H */
