// SPDX-License-Identifier: GPL-2.0
/*
 * jr_poll.c - how long the live reader sleeps between polls.
 *
 * It never blocks in the kernel: a waiter on a ring buffer makes the
 * writer queue an irq_work to wake it, on the CPU that wrote, which is
 * the CPU jitmod measures.  So it sleeps, as long as JR_FILL_SHARE of a
 * CPU's buffer takes to fill at the rate the stream brought lately: a
 * big buffer at a modest rate is read every 100 ms, a small one in a
 * flood every 10 ms.  A quiet stream can burst before the next poll, so
 * the sleep is also never longer than half a buffer takes to fill at
 * JR_BURST_BPS (a flood under TCG): a quiet 64 KB buffer is read every
 * 31 ms.
 */
#include "kernel/jr_poll.h"

#define JR_NS_PER_S 1000000000ULL

/*
 * jr_poll_rate - the rate, in bytes per second, after an interval of
 * dt_ns that brought got bytes: a rise counts at once, and a quieter
 * interval halves the rate, so one calm poll in a flood does not stretch
 * the next sleep to its longest.
 */
uint64_t jr_poll_rate(uint64_t rate, uint64_t got, uint64_t dt_ns)
{
	uint64_t now;

	if (!dt_ns)
		return rate;
	now = got > UINT64_MAX / JR_NS_PER_S ? UINT64_MAX / dt_ns :
					       got * JR_NS_PER_S / dt_ns;
	return now > rate / 2 ? now : rate / 2;
}

/* jr_poll_sleep_ns - the sleep before the next poll, in ns. */
uint64_t jr_poll_sleep_ns(uint64_t buffer_bytes, uint64_t rate)
{
	uint64_t ns = buffer_bytes / 2 * JR_NS_PER_S / JR_BURST_BPS, fill;

	if (rate) {
		fill = buffer_bytes / JR_FILL_SHARE * JR_NS_PER_S / rate;
		if (fill < ns)
			ns = fill;
	}
	if (ns > JR_POLL_MAX_NS)
		ns = JR_POLL_MAX_NS;
	if (ns < JR_POLL_MIN_NS)
		ns = JR_POLL_MIN_NS;
	return ns;
}
