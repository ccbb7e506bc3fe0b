// SPDX-License-Identifier: GPL-2.0
/*
 * jr_attach.c - jitread attach: follow a running process's threads with
 * the BPF classifier in attach mode (bpf/jr_attach.bpf.h).
 *
 * There is no sampler and so no gap: each record is an interference
 * window that delayed a target thread, net of what nested in it, and is
 * fed to the model as the sampler's records are.  Per CPU, the summary's
 * runtime is the time a target thread ran or waited there, and its noise
 * the windows' net time, so "% available" keeps its meaning: the share of
 * the target's time on that CPU that was its own.
 *
 * Hardware noise (SMIs, a hypervisor's steal) takes the CPU without any
 * kernel event, so only a sampler sees it; attach reports none, and says
 * so, rather than guess.
 *
 * jitread's own threads.  The reader wakes every JR_ATTACH_POLL_MS; when
 * it runs on a CPU where a target thread waits, its window is counted as
 * the summary's self time, not as noise, as the user sampler does.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "jitmod_abi.h"
#include "common/jr_sys.h"
#include "common/jr_tsc.h"
#include "usamp/jr_attach.h"

/*
 * jr_task_stat - thread tid of process tgid: its state letter, the CPU it
 * last ran on and its name, from /proc/TGID/task/TID/stat.
 */
static int jr_task_stat(pid_t tgid, int tid, char *state, int *cpu, char *comm,
			size_t len)
{
	char path[64], buf[1024], *open, *close, *p;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
	if (jr_read_line(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open || close[1] != ' ')
		return -EINVAL;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	*state = close[2];
	/* after the state (field 3), processor is field 39 */
	p = close + 2;
	for (field = 3; field < 39 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return -EINVAL;
	*cpu = atoi(p);
	return 0;
}

/* jr_want_tid - tid is one of --tid's, or every thread is wanted */
static bool jr_want_tid(const struct jr_attach_cfg *cfg, int tid)
{
	int i;

	if (!cfg->tids)
		return true;
	for (i = 0; i < cfg->nr_tids; i++)
		if (cfg->tids[i] == tid)
			return true;
	return false;
}

static bool jr_want_cpu(const struct jr_attach_cfg *cfg, int cpu)
{
	return cpu >= 0 && cpu < JR_MAX_CPUS && (!cfg->cpus || cfg->cpus[cpu]);
}

/*
 * jr_attach_check - before anything is loaded: tgid is a process (not a
 * thread of another), and each --tid is one of its threads.
 */
int jr_attach_check(const struct jr_attach_cfg *cfg, struct jr_err *e)
{
	char path[64], line[128];
	int i, tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", cfg->tgid);
	f = fopen(path, "r");
	if (!f)
		return jr_fail(e, -ESRCH, "no process %d", cfg->tgid);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	if (tgid != cfg->tgid)
		return jr_fail(
			e, -EINVAL,
			"%d is a thread of process %d: use -p %d --tid %d",
			cfg->tgid, tgid, tgid, cfg->tgid);
	for (i = 0; i < cfg->nr_tids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d", cfg->tgid,
			 cfg->tids[i]);
		if (access(path, F_OK))
			return jr_fail(e, -ESRCH,
				       "--tid %d: not a thread of process %d",
				       cfg->tids[i], cfg->tgid);
	}
	return 0;
}

/* jr_seed_task - one thread as it is now, in the tasks and CPU maps */
static int jr_seed_task(struct jr_attach *a, int tid, uint64_t now)
{
	struct jr_ubpf_task t = { 0 };
	struct jr_ubpf_acpu c;
	__u32 k = tid, cpu;
	char state;
	int ret, on;

	if (jr_task_stat(a->cfg.tgid, tid, &state, &on, t.comm, sizeof(t.comm)))
		return 0; /* gone since the directory was read */
	t.cpu = on;
	if (state == 'R')
		t.run_at = now;
	ret = bpf_map_update_elem(jr_ubpf_map_fd(&a->b, "tasks"), &k, &t,
				  BPF_NOEXIST);
	if (ret || state != 'R' || !jr_want_cpu(&a->cfg, on) ||
	    on >= a->nr_cpus)
		return ret == -EEXIST ? 0 : ret;
	cpu = on;
	ret = bpf_map_lookup_elem(jr_ubpf_map_fd(&a->b, "acpu"), &cpu, &c);
	if (ret || c.running)
		return ret;
	c.running = tid;
	c.since = now;
	ret = bpf_map_update_elem(jr_ubpf_map_fd(&a->b, "acpu"), &cpu, &c,
				  BPF_ANY);
	if (!ret)
		a->armed[cpu] = tid;
	return ret;
}

/*
 * jr_attach_seed - between load and attach: the CPUs and threads to
 * watch, and the threads running now, so that a thread that spins
 * without ever being switched is watched from the start (jr_attach_arm).
 */
/*
 * jr_attach_arm - once every probe is attached: the watch on the CPUs of
 * the threads running as it attached.  Not before: the probes attach one
 * by one, and an interrupt that entered a watched window with its exit's
 * probe not yet there would leave the window open for good.
 */
static int jr_attach_arm(struct jr_ubpf *b, void *ctx)
{
	struct jr_attach *a = ctx;
	struct jr_ubpf_acpu c;
	int cpu, ret = 0;
	__u32 k, v;

	for (cpu = 0; cpu < a->nr_cpus && !ret; cpu++) {
		k = cpu;
		v = a->armed[cpu];
		/* a switch there since has set the watch itself */
		if (!v ||
		    bpf_map_lookup_elem(jr_ubpf_map_fd(b, "acpu"), &k, &c) ||
		    c.running != v)
			continue;
		ret = bpf_map_update_elem(jr_ubpf_map_fd(b, "watch"), &k, &v,
					  BPF_ANY);
	}
	return ret;
}

static int jr_attach_seed(struct jr_ubpf *b, void *ctx)
{
	struct jr_attach *a = ctx;
	uint64_t now = jr_mono_ns();
	__u8 one = 1;
	struct dirent *de;
	char path[64];
	int cpu, i, ret = 0;
	__u32 k;
	DIR *d;

	for (cpu = 0; cpu < a->nr_cpus && !ret; cpu++) {
		k = cpu;
		if (jr_want_cpu(&a->cfg, cpu))
			ret = bpf_map_update_elem(jr_ubpf_map_fd(b, "allow"),
						  &k, &one, BPF_ANY);
	}
	for (i = 0; i < a->cfg.nr_tids && !ret; i++) {
		k = a->cfg.tids[i];
		ret = bpf_map_update_elem(jr_ubpf_map_fd(b, "tids"), &k, &one,
					  BPF_ANY);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", a->cfg.tgid);
	d = opendir(path);
	if (!d)
		return ret ?: -errno;
	while (!ret && (de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid > 0 && jr_want_tid(&a->cfg, tid))
			ret = jr_seed_task(a, tid, now);
	}
	closedir(d);
	return ret;
}

/*
 * jr_attach_held - the pid still names the process the pidfd holds: not
 * reaped, though it may have exited (a zombie keeps its pid).
 */
static bool jr_attach_held(const struct jr_attach *a)
{
	char path[64];

	if (a->pidfd >= 0)
		return !syscall(SYS_pidfd_send_signal, a->pidfd, 0, NULL, 0);
	snprintf(path, sizeof(path), "/proc/%d", a->cfg.tgid);
	return !access(path, F_OK);
}

int jr_attach_open(struct jr_attach *a, const struct jr_attach_cfg *cfg,
		   struct jr_err *e)
{
	struct jr_ubpf_target t = { .tgid = cfg->tgid,
				    .tid_filter = cfg->tids != NULL,
				    .seed = jr_attach_seed,
				    .arm = jr_attach_arm,
				    .ctx = a };
	int cpu, ret;
	char state;

	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	a->pidfd = -1;
	a->nr_cpus = libbpf_num_possible_cpus();
	if (a->nr_cpus <= 0 || a->nr_cpus > JR_UBPF_MAX_CPUS)
		return jr_fail(e, -EINVAL, "cannot count the possible CPUs");
	a->cpu_noise_ns = calloc(a->nr_cpus, sizeof(*a->cpu_noise_ns));
	a->cpu_max_ns = calloc(a->nr_cpus, sizeof(*a->cpu_max_ns));
	a->cpu_self_ns = calloc(a->nr_cpus, sizeof(*a->cpu_self_ns));
	a->cpu_told_ns = calloc(a->nr_cpus, sizeof(*a->cpu_told_ns));
	a->armed = calloc(a->nr_cpus, sizeof(*a->armed));
	if (!a->cpu_noise_ns || !a->cpu_max_ns || !a->cpu_self_ns ||
	    !a->cpu_told_ns || !a->armed)
		return jr_fail(e, -ENOMEM, "out of memory");
	/*
	 * The pidfd first: until the process it holds is reaped, its pid
	 * is not reused, so what /proc says from here on is of that
	 * process, once jr_attach_held() finds it still there after the
	 * reads.  Without pidfd_open (before 5.3) a reused pid goes
	 * unnoticed.
	 */
	a->pidfd = (int)syscall(SYS_pidfd_open, cfg->tgid, 0);
	if (a->pidfd < 0 && errno == ESRCH)
		return jr_fail(e, -ESRCH, "process %d exited", cfg->tgid);
	ret = jr_attach_check(cfg, e);
	if (ret)
		return ret;
	jr_task_stat(cfg->tgid, cfg->tgid, &state, &cpu, a->comm,
		     sizeof(a->comm));
	if (jr_ubpf_open_mode(&a->b, &t))
		return jr_fail(e, -EPERM, "%s", a->b.why);
	a->start_ns = jr_mono_ns();
	if (!jr_attach_held(a))
		return jr_fail(e, -ESRCH, "process %d exited", cfg->tgid);
	return 0;
}

/*
 * jr_th_slot - tid's slot in th_at: its entry's, or the free one where it
 * goes.  Open addressing, probed in turn; th_at has twice th's capacity,
 * so a lookup stays a few probes at any count of threads (the kernel's
 * limit is in the millions).
 */
static uint32_t *jr_th_slot(const struct jr_attach *a, int32_t tid)
{
	size_t mask = 2 * a->cap_th - 1;
	size_t i = ((uint32_t)tid * 2654435761u) & mask;

	while (a->th_at[i] && a->th[a->th_at[i] - 1].tid != tid)
		i = (i + 1) & mask;
	return &a->th_at[i];
}

/* jr_th_index - th_at made again for th as it is: 0, or -ENOMEM */
static int jr_th_index(struct jr_attach *a)
{
	size_t i;

	free(a->th_at);
	a->th_at = calloc(2 * a->cap_th, sizeof(*a->th_at));
	if (!a->th_at)
		return -ENOMEM;
	for (i = 0; i < a->nr_th; i++)
		*jr_th_slot(a, a->th[i].tid) = (uint32_t)i + 1;
	return 0;
}

/* jr_thread - tid's entry, made on first sight; NULL: out of memory */
static struct jr_athread *jr_thread(struct jr_attach *a, int32_t tid)
{
	struct jr_athread *n;
	uint32_t *slot;

	if (a->cap_th) {
		slot = jr_th_slot(a, tid);
		if (*slot)
			return &a->th[*slot - 1];
	}
	if (a->nr_th == a->cap_th) {
		size_t cap = a->cap_th ? 2 * a->cap_th : 16;

		n = realloc(a->th, cap * sizeof(*n));
		if (!n)
			return NULL;
		a->th = n;
		a->cap_th = cap;
		if (jr_th_index(a))
			return NULL;
	}
	n = &a->th[a->nr_th++];
	memset(n, 0, sizeof(*n));
	n->tid = tid;
	*jr_th_slot(a, tid) = (uint32_t)a->nr_th;
	return n;
}

/*
 * jr_take - one BPF record: jitread's own thread windows are self time;
 * every other one goes to the model (the target's tid in v[6]) and to
 * its thread's account.
 */
static int jr_take(struct jr_attach *a, const struct jr_ubpf_rec *b,
		   jr_sink_fn sink, void *ctx)
{
	struct jr_athread *t;
	struct jr_rec r;

	if (b->cpu >= (uint32_t)a->nr_cpus ||
	    (a->end_ns && b->start_ns > a->end_ns))
		return 0;
	if (b->cls == JIT_NOISE_THREAD && jr_own_thread(b->id)) {
		a->cpu_self_ns[b->cpu] += b->net_ns;
		return 0;
	}
	jr_ubpf_to_rec(b, &r);
	r.v[6] = (uint32_t)b->tid;
	a->events++;
	if (b->cls < JR_ACLS) {
		a->cpu_noise_ns[b->cpu] += b->net_ns;
		if (b->net_ns > a->cpu_max_ns[b->cpu])
			a->cpu_max_ns[b->cpu] = b->net_ns;
		t = jr_thread(a, b->tid);
		if (!t)
			return -ENOMEM;
		t->n[b->cls]++;
		t->ns[b->cls] += b->net_ns;
		if (b->net_ns > t->max_ns[b->cls])
			t->max_ns[b->cls] = b->net_ns;
	}
	return sink(ctx, &r);
}

/* jr_attach_poll - wait timeout_ms, then take every record written. */
int jr_attach_poll(struct jr_attach *a, int timeout_ms, jr_sink_fn sink,
		   void *ctx)
{
	size_t i;
	int ret;

	ret = jr_ubpf_poll(&a->b, timeout_ms);
	for (i = 0; !ret && i < a->b.nr; i++)
		ret = jr_take(a, &a->b.recs[i], sink, ctx);
	a->b.nr = 0;
	return ret;
}

/* jr_attach_gone - the process has exited. */
bool jr_attach_gone(struct jr_attach *a)
{
	struct pollfd p = { .fd = a->pidfd, .events = POLLIN };

	if (a->pidfd >= 0)
		return poll(&p, 1, 0) == 1;
	return kill(a->cfg.tgid, 0) && errno == ESRCH;
}

/* jr_close_task - what t was doing as the run ended counts up to end */
static void jr_close_task(struct jr_ubpf_task *t, uint64_t end)
{
	uint64_t d;

	if (t->run_at && end > t->run_at)
		t->run_ns += end - t->run_at;
	if (t->wait_at && end > t->wait_at) {
		d = end - t->wait_at;
		t->waits++;
		t->wait_ns += d;
		if (d > t->wait_max_ns)
			t->wait_max_ns = d;
	}
	if (t->sleep_at && end > t->sleep_at) {
		t->sleeps++;
		t->sleep_ns += end - t->sleep_at;
	}
}

/*
 * jr_attach_tally - the probes' per-thread tally into the threads, each
 * one's open run, wait or sleep counted up to now
 */
int jr_attach_tally(struct jr_attach *a, uint64_t now)
{
	int fd = jr_ubpf_map_fd(&a->b, "tasks");
	struct jr_athread *t;
	__u32 key, next, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		t = jr_thread(a, (int32_t)key);
		if (!t)
			return -ENOMEM;
		if (bpf_map_lookup_elem(fd, &key, &t->t))
			continue; /* gone meanwhile: cannot be, no deletes */
		jr_close_task(&t->t, now);
	}
	return 0;
}

static int jr_tid_cmp(const void *x, const void *y)
{
	const struct jr_athread *a = x, *b = y;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* jr_cpu_summary - CPU cpu's summary since the last, up to now */
static int jr_cpu_summary(struct jr_attach *a, int cpu, uint64_t watched,
			  uint64_t now, jr_sink_fn sink, void *ctx)
{
	struct jr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = JR_SUMMARY;
	r.cpu = cpu;
	r.ts_ns = now;
	r.v[0] = watched > a->cpu_told_ns[cpu] ? watched - a->cpu_told_ns[cpu] :
						 0;
	r.v[1] = a->cpu_noise_ns[cpu];
	r.v[2] = a->cpu_max_ns[cpu];
	r.v[5] = a->cpu_self_ns[cpu];
	if (watched > a->cpu_told_ns[cpu])
		a->cpu_told_ns[cpu] = watched;
	a->cpu_noise_ns[cpu] = a->cpu_max_ns[cpu] = a->cpu_self_ns[cpu] = 0;
	return sink(ctx, &r);
}

/*
 * jr_attach_summarise - a summary per CPU of what was watched there since
 * the last one, up to now: the time a target ran or waited there, the
 * windows' net time, the longest, and jitread's own time; then the
 * ring's drops since, filed under the first CPU summarised (the ring
 * does not say on which CPU).  Summaries add up in the model, so one at
 * the end and one every refresh say the same.
 */
int jr_attach_summarise(struct jr_attach *a, uint64_t now, jr_sink_fn sink,
			void *ctx)
{
	int fd = jr_ubpf_map_fd(&a->b, "acpu"), cpu, first = -1, ret = 0;
	uint64_t drops = jr_ubpf_drops(&a->b);
	struct jr_ubpf_acpu c;
	struct jr_rec r;
	__u32 k;

	for (cpu = 0; !ret && cpu < a->nr_cpus; cpu++) {
		k = cpu;
		if (bpf_map_lookup_elem(fd, &k, &c))
			continue;
		if (c.since && now > c.since)
			c.total_ns += now - c.since;
		if (c.total_ns <= a->cpu_told_ns[cpu] && !a->cpu_noise_ns[cpu])
			continue;
		if (first < 0)
			first = cpu;
		ret = jr_cpu_summary(a, cpu, c.total_ns, now, sink, ctx);
	}
	if (ret || first < 0 || drops <= a->drops_told)
		return ret;
	memset(&r, 0, sizeof(r));
	r.type = JR_LOST;
	r.cpu = first;
	r.ts_ns = now;
	r.v[0] = drops - a->drops_told;
	a->drops_told = drops;
	return sink(ctx, &r);
}

/*
 * jr_attach_finish - the last records, the last summaries, and the
 * per-thread tally, sorted by tid.
 */
int jr_attach_finish(struct jr_attach *a, jr_sink_fn sink, void *ctx)
{
	char state;
	int on, ret;

	/*
	 * The end first, then what the ring holds: the reader may have been
	 * kept off its CPU for a while, and what happened meanwhile, up to
	 * the end, belongs to the run.
	 */
	a->end_ns = jr_mono_ns();
	ret = jr_attach_poll(a, 0, sink, ctx);
	jr_task_stat(a->cfg.tgid, a->cfg.tgid, &state, &on, a->comm,
		     sizeof(a->comm)); /* it may have exec'd since */
	if (!ret)
		ret = jr_attach_summarise(a, a->end_ns, sink, ctx);
	if (!ret)
		ret = jr_attach_tally(a, a->end_ns);
	a->tasks_full = jr_ubpf_tasks_full(&a->b);
	a->drops = jr_ubpf_drops(&a->b);
	if (a->nr_th) {
		qsort(a->th, a->nr_th, sizeof(*a->th), jr_tid_cmp);
		if (jr_th_index(a) && !ret)
			ret = -ENOMEM;
	}
	return ret;
}

void jr_attach_close(struct jr_attach *a)
{
	jr_ubpf_close(&a->b);
	if (a->pidfd >= 0)
		close(a->pidfd);
	free(a->cpu_noise_ns);
	free(a->cpu_max_ns);
	free(a->cpu_self_ns);
	free(a->cpu_told_ns);
	free(a->armed);
	free(a->th);
	free(a->th_at);
	memset(a, 0, sizeof(*a));
	a->pidfd = -1;
}
