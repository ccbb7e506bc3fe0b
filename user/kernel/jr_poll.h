/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_poll.h - how long the live reader sleeps between polls.
 */
#ifndef JR_POLL_H
#define JR_POLL_H

#include <stdint.h>

#define JR_POLL_MAX_NS 100000000ULL
#define JR_POLL_MIN_NS 10000000ULL
#define JR_FILL_SHARE 8 /* sleep while this share of a buffer fills */
#define JR_BURST_BPS (1ULL << 20) /* a burst from quiet, bytes per second */

uint64_t jr_poll_rate(uint64_t rate, uint64_t got, uint64_t dt_ns);
uint64_t jr_poll_sleep_ns(uint64_t buffer_bytes, uint64_t rate);

#endif /* JR_POLL_H */
