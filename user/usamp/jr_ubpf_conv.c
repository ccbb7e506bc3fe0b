// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ubpf_conv.c - the BPF classifier's records as the records every
 * other command feeds the model.  Apart from the loader (jr_ubpf.c), so
 * that what reads records needs no libbpf.
 */
#include <stdio.h>
#include <string.h>

#include "common/jr_ksym.h"
#include "usamp/jr_ubpf.h"

/* by enum jit_vector, as the BPF program numbers them */
const char *const jr_ubpf_vectors[JIT_VEC_NR] = JIT_VECTORS(JIT_X_NAME);

/*
 * jr_detail_fn - a detail's function; for an IPI, "FN@CALLSITE" when
 * the sender was seen (CALLSITE: the function that queued it).
 */
static void jr_detail_fn(const struct jr_ubpf_rec *b, char *buf, size_t len)
{
	char fn[JR_NAME_LEN], site[JR_NAME_LEN];

	buf[0] = 0;
	if (!b->addr)
		return;
	jr_ksym(b->addr, fn, sizeof(fn));
	if (b->vec != JIT_DETAIL_IPI || !b->callsite) {
		snprintf(buf, len, "%s", fn);
		return;
	}
	jr_ksym(b->callsite, site, sizeof(site));
	if ((size_t)snprintf(buf, len, "%s@%s", fn, site) >= len)
		snprintf(buf, len, "%s", fn);
}

/* jr_ubpf_to_rec - a BPF record as the kernel side would have emitted it. */
void jr_ubpf_to_rec(const struct jr_ubpf_rec *b, struct jr_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = b->start_ns;
	r->cpu = b->cpu;
	r->v[0] = b->net_ns;
	r->id = b->id;
	r->id2 = -1;
	switch (b->cls) {
	case JR_UBPF_DETAIL:
		r->type = JR_DETAIL;
		r->cls = b->vec;
		r->id2 = b->wcls;
		/* as jitmod's: the pid in v[1], the tick's mask or the
		 * IPI's sender in id */
		r->v[1] = b->vec == JIT_DETAIL_WORK ? (uint32_t)b->id : 0;
		if (b->vec != JIT_DETAIL_TICK && b->vec != JIT_DETAIL_IPI)
			r->id = 0;
		jr_detail_fn(b, r->name, sizeof(r->name));
		break;
	case JIT_NOISE_IRQ:
		r->type = JR_IRQ;
		if (b->vec != JR_UBPF_NO_VEC && b->vec < JIT_VEC_NR) {
			r->id2 = b->vec;
			snprintf(r->name, sizeof(r->name), "%s",
				 jr_ubpf_vectors[b->vec]);
		} else {
			snprintf(r->name, sizeof(r->name), "%.*s",
				 JR_UBPF_NAME_LEN, b->name);
		}
		break;
	case JIT_NOISE_SOFTIRQ:
		r->type = JR_SOFTIRQ;
		r->cls = b->vec;
		break;
	case JIT_NOISE_NMI:
		r->type = JR_NMI;
		jr_ksym(b->addr, r->name, sizeof(r->name));
		break;
	default:
		r->type = JR_THREAD;
		snprintf(r->name, sizeof(r->name), "%.*s", 16, b->name);
		break;
	}
}
