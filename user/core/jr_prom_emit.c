// SPDX-License-Identifier: GPL-2.0
/*
 * jr_prom_emit.c - the classic buckets every format writes.
 */
#include <stdbool.h>

#include "core/jr_prom_emit.h"

const uint64_t jr_prom_le_ns[JR_PROM_NR_LE] = {
	100,	 250,	   500,	     1000,     2500,	  5000,	   10000,
	25000,	 50000,	   100000,   250000,   500000,	  1000000, 2500000,
	5000000, 10000000, 25000000, 50000000, 100000000,
};

/* the same bounds as le="..." values, in seconds */
const char *const jr_prom_le[JR_PROM_NR_LE] = {
	"1e-07",   "2.5e-07", "5e-07",	"1e-06",   "2.5e-06", "5e-06", "1e-05",
	"2.5e-05", "5e-05",   "0.0001", "0.00025", "0.0005",  "0.001", "0.0025",
	"0.005",   "0.01",    "0.025",	"0.05",	   "0.1",
};

/*
 * jr_prom_buckets - the classic buckets' cumulative counts: a slot of the
 * histogram counts where it begins.
 */
void jr_prom_buckets(const struct jr_hist *h, uint64_t *below)
{
	struct jr_hist_iter it;
	uint64_t n = 0;
	bool more;
	int i;

	jr_hist_iter_init(&it, h);
	more = h->counts && jr_hist_iter_next(&it);
	for (i = 0; i < JR_PROM_NR_LE; i++) {
		while (more && it.value_lo <= jr_prom_le_ns[i]) {
			n = it.cumulative;
			more = jr_hist_iter_next(&it);
		}
		below[i] = n;
	}
}
