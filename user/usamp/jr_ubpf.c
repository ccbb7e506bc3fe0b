// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ubpf.c - the user side of the BPF classifier.
 *
 * Loading can fail for reasons that are no fault of the run: no root, no
 * CAP_BPF, a kernel without BTF.  Then the sampler runs unclassified and
 * the caller says so in one line; the reason is kept in b->why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/jr_ksym.h"
#include "usamp/jr_ubpf.h"
#include "jr_ubpf.skel.h"

static int jr_quiet_print(enum libbpf_print_level level, const char *fmt,
			  va_list ap)
{
	if (level == LIBBPF_WARN && getenv("JITREAD_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int jr_on_rec(void *ctx, void *data, size_t len)
{
	struct jr_ubpf *b = ctx;
	struct jr_ubpf_rec *n;

	if (len < sizeof(*b->recs))
		return 0;
	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 65536;

		n = realloc(b->recs, cap * sizeof(*n));
		if (!n) {
			b->oom = true;
			return -ENOMEM;
		}
		b->recs = n;
		b->cap = cap;
	}
	memcpy(&b->recs[b->nr++], data, sizeof(*b->recs));
	return 0;
}

/*
 * jr_btf_has_tp - whether the kernel has tracepoint tp.  A tp_btf or
 * raw_tp program attaches to the btf_trace_<name> type, so that type's
 * presence in the kernel's BTF is the exact test.
 */
static bool jr_btf_has_tp(struct btf *vmlinux, const char *tp)
{
	char type[128];

	snprintf(type, sizeof(type), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) >= 0;
}

/*
 * jr_skip_missing - do not load probes for tracepoints this kernel lacks,
 * nor fentry/fexit probes on functions its BTF does not have.  Attach
 * mode's own probes (jr_a_*) load only in attach mode, and either the
 * fentry/fexit pair that times faults (fentry) or the tracepoint that
 * only counts them.
 */
static void jr_skip_missing(struct jr_ubpf *b, struct btf *vmlinux, bool attach,
			    bool fentry)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, b->skel->obj) {
		const char *sec = bpf_program__section_name(p);
		const char *tp = strchr(sec, '/');
		bool fn = !strncmp(sec, "fentry/", 7) ||
			  !strncmp(sec, "fexit/", 6);
		bool mine = !strncmp(bpf_program__name(p), "jr_a_", 5);

		if (!tp)
			continue;
		if ((mine && !attach) || (mine && fn != fentry) ||
		    (fn ? btf__find_by_name_kind(vmlinux, tp + 1,
						 BTF_KIND_FUNC) < 0 :
			  !jr_btf_has_tp(vmlinux, tp + 1)))
			bpf_program__set_autoload(p, false);
	}
}

/*
 * jr_name_details - the details this kernel lets the probes name, as
 * jitmod's "details" parameter lists them: a kind whose tracepoints
 * (JIT_DETAIL_TPS) all exist.
 */
static void jr_name_details(struct jr_ubpf *b, struct btf *vmlinux)
{
	static const char *const kinds[JIT_DETAIL_NR] =
		JIT_DETAILS(JIT_X_NAME2);
	static const char *const tps[JIT_DETAIL_TP_NR] =
		JIT_DETAIL_TPS(JIT_X_DETAIL_TP_NAME);
	static const int kind[JIT_DETAIL_TP_NR] =
		JIT_DETAIL_TPS(JIT_X_DETAIL_TP_KIND);
	bool ok[JIT_DETAIL_NR];
	size_t n = 0;
	int i;

	for (i = 0; i < JIT_DETAIL_NR; i++)
		ok[i] = true;
	for (i = 0; i < JIT_DETAIL_TP_NR; i++)
		if (!jr_btf_has_tp(vmlinux, tps[i]))
			ok[kind[i]] = false;
	b->details[0] = 0;
	for (i = 0; i < JIT_DETAIL_NR; i++)
		if (ok[i] && n < sizeof(b->details))
			n += snprintf(b->details + n, sizeof(b->details) - n,
				      "%s%s", n ? "," : "", kinds[i]);
}

/*
 * jr_ubpf_start - the loaded classifier: seeded (attach mode), attached,
 * armed (attach mode), its ring mapped.  On failure b->why says why and
 * the caller destroys the skeleton.
 */
static int jr_ubpf_start(struct jr_ubpf *b, const struct jr_ubpf_target *t)
{
	int ret;

	if (t) {
		ret = t->seed(b, t->ctx);
		if (ret) {
			snprintf(b->why, sizeof(b->why),
				 "cannot seed the BPF maps: %s",
				 strerror(-ret));
			return ret;
		}
	}
	ret = jr_ubpf_bpf__attach(b->skel);
	if (ret) {
		snprintf(b->why, sizeof(b->why), "cannot attach BPF: %s",
			 strerror(-ret));
		return ret;
	}
	if (t) {
		ret = t->arm(b, t->ctx);
		if (ret) {
			snprintf(b->why, sizeof(b->why),
				 "cannot arm the BPF watch: %s",
				 strerror(-ret));
			return ret;
		}
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), jr_on_rec,
				 b, NULL);
	if (!b->rb) {
		ret = -errno;
		snprintf(b->why, sizeof(b->why), "cannot map the BPF ring: %s",
			 strerror(errno));
		return ret;
	}
	return 0;
}

/*
 * jr_ubpf_try - load the classifier (with fentry: attach mode's fentry
 * probes too); with t, in attach mode for t's process, its maps seeded
 * by t->seed between load and attach.  -EAGAIN: the load failed and
 * fentry probes were in it.
 */
static int jr_ubpf_try(struct jr_ubpf *b, const struct jr_ubpf_target *t,
		       bool fentry)
{
	struct btf *vmlinux;
	int ret;

	memset(b, 0, sizeof(*b));
	libbpf_set_print(jr_quiet_print);
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		snprintf(
			b->why, sizeof(b->why),
			"cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s",
			strerror(errno));
		return -ENOENT;
	}
	b->skel = jr_ubpf_bpf__open();
	if (!b->skel) {
		btf__free(vmlinux);
		snprintf(b->why, sizeof(b->why), "cannot open the BPF object");
		return -EINVAL;
	}
	if (t) {
		b->skel->rodata->attach_tgid = t->tgid;
		b->skel->rodata->attach_tid_filter = t->tid_filter;
	}
	jr_skip_missing(b, vmlinux, t, fentry);
	jr_name_details(b, vmlinux);
	btf__free(vmlinux);
	b->faults = t && bpf_program__autoload(b->skel->progs.jr_a_fault_exit);
	b->fault_count =
		t && (b->faults ||
		      bpf_program__autoload(b->skel->progs.jr_a_fault_count));
	ret = jr_ubpf_bpf__load(b->skel);
	if (ret) {
		snprintf(b->why, sizeof(b->why), "cannot load BPF: %s%s",
			 strerror(-ret),
			 geteuid() ?
				 " (run as root or with CAP_BPF+CAP_PERFMON)" :
				 "");
		if (b->faults)
			ret = -EAGAIN;
		goto err_destroy;
	}
	ret = jr_ubpf_start(b, t);
	if (ret)
		goto err_destroy;
	b->ok = true;
	return 0;

err_destroy:
	jr_ubpf_bpf__destroy(b->skel);
	b->skel = NULL;
	return ret;
}

/*
 * jr_ubpf_open_mode - load the classifier, in attach mode with t.  A
 * kernel may refuse fentry probes where it allows tracepoints (function
 * tracing locked down): then faults are counted but not timed.
 */
int jr_ubpf_open_mode(struct jr_ubpf *b, const struct jr_ubpf_target *t)
{
	int ret = jr_ubpf_try(b, t, true);

	if (ret == -EAGAIN)
		ret = jr_ubpf_try(b, t, false);
	if (!ret)
		jr_ksym_preload(); /* the records carry kernel addresses */
	return ret;
}

/* jr_ubpf_open - load the classifier for the sampler's threads. */
int jr_ubpf_open(struct jr_ubpf *b)
{
	return jr_ubpf_open_mode(b, NULL);
}

/* jr_ubpf_map_fd - the fd of map name, for attach's seeding and tally. */
int jr_ubpf_map_fd(struct jr_ubpf *b, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(b->skel->obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

/* jr_ubpf_watch - classify what interrupts tid on cpu; tid 0 stops. */
int jr_ubpf_watch(struct jr_ubpf *b, int cpu, pid_t tid)
{
	__u32 k = cpu, v = tid;

	if (!b->ok)
		return 0;
	if (cpu < 0 || cpu >= JR_UBPF_MAX_CPUS)
		return -EINVAL;
	return bpf_map_update_elem(bpf_map__fd(b->skel->maps.watch), &k, &v,
				   BPF_ANY);
}

int jr_ubpf_poll(struct jr_ubpf *b, int timeout_ms)
{
	int ret;

	/*
	 * The probes submit without a wakeup: a wakeup is an irq_work on the
	 * watched CPU, noise we would cause and then record.  So sleep for the
	 * timeout, then consume whatever is there.  Without BPF the caller's
	 * loop keeps the same pace rather than spinning.
	 */
	if (timeout_ms)
		usleep(timeout_ms * 1000);
	if (!b->ok)
		return 0;
	ret = ring_buffer__consume(b->rb);
	if (b->oom)
		return -ENOMEM;
	return ret < 0 ? ret : 0;
}

uint64_t jr_ubpf_drops(struct jr_ubpf *b)
{
	return b->ok ? b->skel->bss->drops : 0;
}

/* jr_ubpf_tasks_full - attach: target threads the tally had no room for */
uint64_t jr_ubpf_tasks_full(struct jr_ubpf *b)
{
	return b->ok ? b->skel->bss->tasks_full : 0;
}

/* jr_ubpf_reset - forget the records collected so far. */
void jr_ubpf_reset(struct jr_ubpf *b)
{
	b->nr = 0;
	if (b->ok)
		b->skel->bss->drops = 0;
}

void jr_ubpf_close(struct jr_ubpf *b)
{
	ring_buffer__free(b->rb);
	if (b->skel)
		jr_ubpf_bpf__destroy(b->skel);
	free(b->recs);
	memset(b, 0, sizeof(*b));
}
