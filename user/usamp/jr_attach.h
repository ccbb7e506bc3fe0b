/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_attach.h - jitread attach's measurement: the BPF classifier in
 * attach mode on a running process's threads, its records turned into
 * the same records every other command feeds the model, and a per-thread
 * account beside them.
 */
#ifndef JR_ATTACH_H
#define JR_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/jr_err.h"
#include "common/jr_parse.h"
#include "core/jr_rec.h"
#include "usamp/jr_ubpf.h"

#define JR_ATTACH_MAX_TIDS 1024 /* --tid */

/* the noise classes a thread can be seen to suffer: irq to thread */
#define JR_ACLS JIT_NOISE_HW_SMI

/* struct jr_athread - one target thread: its tally and its noise */
struct jr_athread {
	int32_t tid;
	struct jr_ubpf_task t; /* as the probes counted it */
	uint64_t n[JR_ACLS], ns[JR_ACLS], max_ns[JR_ACLS];
};

struct jr_attach_cfg {
	pid_t tgid;
	const int32_t *tids; /* --tid, or NULL: every thread */
	int nr_tids;
	const unsigned char *cpus; /* -c, or NULL: every CPU */
};

struct jr_attach {
	struct jr_attach_cfg cfg;
	struct jr_ubpf b;
	char comm[16]; /* the process's */
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC */
	uint64_t events; /* records turned into the model's */
	/*
	 * per CPU, nr_cpus, since its last summary: noise, the longest
	 * window, jitread's own time; and the watched time summarised
	 */
	uint64_t *cpu_noise_ns, *cpu_max_ns, *cpu_self_ns, *cpu_told_ns;
	uint32_t *armed; /* per CPU: the thread to watch once attached */
	int nr_cpus;
	struct jr_athread *th; /* nr_th, by tid once finished */
	size_t nr_th, cap_th;
	uint32_t *th_at; /* 2 x cap_th slots: 1 + th's index by tid, 0 free */
	uint64_t tasks_full, drops; /* as the probes counted them */
	uint64_t drops_told; /* the drops summarised */
	int pidfd; /* readable once the process has exited; -1 unknown */
};

int jr_attach_check(const struct jr_attach_cfg *cfg, struct jr_err *e);
int jr_attach_open(struct jr_attach *a, const struct jr_attach_cfg *cfg,
		   struct jr_err *e);
int jr_attach_poll(struct jr_attach *a, int timeout_ms, jr_sink_fn sink,
		   void *ctx);
bool jr_attach_gone(struct jr_attach *a);
int jr_attach_summarise(struct jr_attach *a, uint64_t now, jr_sink_fn sink,
			void *ctx);
int jr_attach_tally(struct jr_attach *a, uint64_t now);
int jr_attach_finish(struct jr_attach *a, jr_sink_fn sink, void *ctx);
void jr_attach_close(struct jr_attach *a);

/* jr_attach_out.c */
void jr_attach_text(FILE *out, const struct jr_attach *a, double div,
		    const char *unit);
int jr_attach_json(FILE *out, const struct jr_attach *a);

#endif /* JR_ATTACH_H */
