/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_ubpf.h - load the BPF classifier, watch sampler threads, collect its
 * records.
 */
#ifndef JR_UBPF_LOADER_H
#define JR_UBPF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "jitmod_abi.h"
#include "core/jr_rec.h"
#include "usamp/bpf/jr_ubpf_rec.h"

struct jr_ubpf_bpf;
struct ring_buffer;

struct jr_ubpf {
	struct jr_ubpf_bpf *skel;
	struct ring_buffer *rb;
	struct jr_ubpf_rec *recs;
	size_t nr, cap;
	bool ok;
	bool oom;
	char why[200]; /* when !ok: the one line saying why */
	char details[40]; /* the details the probes name: "work,timer,..." */
	bool faults; /* attach: page faults are timed (fentry works) */
	bool fault_count; /* attach: page faults are at least counted */
};

/*
 * struct jr_ubpf_target - attach mode: the process whose threads the
 * probes follow; seed, which fills the maps from what runs now
 * (jr_ubpf_map_fd) once they exist and before any probe runs, and arm,
 * which turns the watch on once every probe is attached.
 */
struct jr_ubpf_target {
	pid_t tgid;
	bool tid_filter; /* only the threads seed puts in the tids map */
	int (*seed)(struct jr_ubpf *b, void *ctx);
	int (*arm)(struct jr_ubpf *b, void *ctx);
	void *ctx;
};

extern const char *const jr_ubpf_vectors[JIT_VEC_NR];

int jr_ubpf_open(struct jr_ubpf *b);
int jr_ubpf_open_mode(struct jr_ubpf *b, const struct jr_ubpf_target *t);
int jr_ubpf_map_fd(struct jr_ubpf *b, const char *name);
uint64_t jr_ubpf_tasks_full(struct jr_ubpf *b);
int jr_ubpf_watch(struct jr_ubpf *b, int cpu, pid_t tid);
int jr_ubpf_poll(struct jr_ubpf *b, int timeout_ms);
uint64_t jr_ubpf_drops(struct jr_ubpf *b);
void jr_ubpf_reset(struct jr_ubpf *b);
void jr_ubpf_close(struct jr_ubpf *b);
void jr_ubpf_to_rec(const struct jr_ubpf_rec *b, struct jr_rec *r);

#endif /* JR_UBPF_LOADER_H */
