/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_attach.bpf.h - attach mode of jr_ubpf.bpf.c: the watch follows a
 * running process's threads instead of a sampler's, so that the same
 * probes record what takes a target thread's CPU away while it wants to
 * run.  Included by jr_ubpf.bpf.c after its state and maps.
 *
 * The watch.  A CPU is watched while a target thread runs there, or waits
 * there after being switched out runnable (preempted): an interrupt then
 * delays it as surely as it delays the sampler.  Each task that runs on
 * the CPU while a target waits there gets a thread window, charged to
 * that task, as the sampler's windows are.  Only this CPU writes its own
 * state, watch and acpu entries, in sched_switch, so no lock is needed;
 * userspace seeds them, for the threads running as it attaches, before
 * the probes are attached.
 *
 * A waiting target can be moved to another CPU by the load balancer.
 * Then the old CPU stops being watched as soon as a probe there finds the
 * target's CPU changed (jr_attach_here); its open thread window ends at
 * its next switch, so its last window may run long by up to one
 * scheduler slice.
 *
 * The tally.  What is not noise is counted per thread and read from the
 * tasks map at the end: time running, waits (switched out runnable until
 * back on a CPU, wherever: the total preemption a thread suffered),
 * voluntary sleeps, page faults with their duration, and migrations.
 */
#ifndef JR_ATTACH_BPF_H
#define JR_ATTACH_BPF_H

/* the process to watch; 0: the sampler's mode, userspace sets the watch */
const volatile __u32 attach_tgid;
/* only the threads in the tids map, not all of the process's */
const volatile bool attach_tid_filter;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, JR_UBPF_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct jr_ubpf_task);
} tasks SEC(".maps");

/* --tid: the threads to watch */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, JR_UBPF_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u8);
} tids SEC(".maps");

/* -c: the CPUs where a target thread is watched (1), by CPU */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, JR_UBPF_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u8);
} allow SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, JR_UBPF_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct jr_ubpf_acpu);
} acpu SEC(".maps");

__u64 tasks_full; /* target threads the tasks map had no room for */

/* jr_is_target - whether task p is one of the threads to watch. */
static __always_inline bool jr_is_target(struct task_struct *p)
{
	__u32 tid = p->pid;

	if (p->tgid != (int)attach_tgid)
		return false;
	return !attach_tid_filter || bpf_map_lookup_elem(&tids, &tid);
}

/* jr_task - p's tally, made on first sight. */
static __always_inline struct jr_ubpf_task *jr_task(struct task_struct *p)
{
	__u32 tid = p->pid;
	struct jr_ubpf_task *t = bpf_map_lookup_elem(&tasks, &tid), n;

	if (t)
		return t;
	__builtin_memset(&n, 0, sizeof(n));
	n.cpu = -1;
	bpf_probe_read_kernel_str(n.comm, sizeof(n.comm), p->comm);
	if (bpf_map_update_elem(&tasks, &tid, &n, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&tasks, &tid)) {
		__sync_fetch_and_add(&tasks_full, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&tasks, &tid);
}

/* jr_runnable - prev was switched out wanting to run (preempted). */
static __always_inline bool jr_runnable(bool preempt, struct task_struct *p)
{
	struct task_struct___old *old = (void *)p;

	if (preempt)
		return true;
	if (bpf_core_field_exists(p->__state))
		return BPF_CORE_READ(p, __state) == 0;
	return BPF_CORE_READ(old, state) == 0;
}

/*
 * jr_attach_here - in attach mode, whether a probe on cpu should record:
 * a target runs here, or the one waiting here has not been moved away.
 */
static __always_inline bool jr_attach_here(__u32 cpu)
{
	struct jr_ubpf_acpu *a = bpf_map_lookup_elem(&acpu, &cpu);
	struct jr_ubpf_task *t;
	__u32 tid;

	if (!a)
		return false;
	if (a->running)
		return true;
	tid = a->waiting;
	t = tid ? bpf_map_lookup_elem(&tasks, &tid) : NULL;
	return t && t->wait_at && t->cpu == (int)cpu;
}

/* jr_attach_out - target prev leaves cpu: running, then waiting or asleep */
static __always_inline void jr_attach_out(struct jr_ubpf_acpu *c, __u32 cpu,
					  bool allowed, bool preempt,
					  struct task_struct *prev, __u64 now)
{
	struct jr_ubpf_task *t = jr_task(prev);
	bool runnable = jr_runnable(preempt, prev);

	if (c->running == (__u32)prev->pid)
		c->running = 0;
	if (runnable && allowed && !c->waiting)
		c->waiting = prev->pid;
	if (!t)
		return;
	if (t->run_at)
		t->run_ns += now - t->run_at;
	t->run_at = 0;
	t->cpu = cpu;
	if (runnable)
		t->wait_at = now;
	else
		t->sleep_at = now;
}

/* jr_attach_in - target next is switched in on cpu: a wait or sleep ends */
static __always_inline void jr_attach_in(struct jr_ubpf_acpu *c, __u32 cpu,
					 bool allowed, struct task_struct *next,
					 __u64 now)
{
	struct jr_ubpf_task *t = jr_task(next);
	__u64 d;

	if (c->waiting == (__u32)next->pid)
		c->waiting = 0;
	c->running = allowed ? next->pid : 0;
	if (!t)
		return;
	if (t->wait_at) {
		d = now - t->wait_at;
		t->waits++;
		t->wait_ns += d;
		if (d > t->wait_max_ns)
			t->wait_max_ns = d;
	} else if (t->sleep_at) {
		t->sleeps++;
		t->sleep_ns += now - t->sleep_at;
	}
	if (t->cpu >= 0 && t->cpu != (int)cpu && (t->wait_at || t->sleep_at))
		t->migrations++;
	t->wait_at = 0;
	t->sleep_at = 0;
	t->run_at = now;
	t->cpu = cpu;
}

/* jr_attach_reset - the CPU starts being watched: no window is open. */
static __always_inline void jr_attach_reset(struct jr_bpf_cpu *c)
{
	int i;

	for (i = 0; i < JR_W_NR; i++)
		c->w[i].depth = 0;
	c->work_start = 0;
	c->timer_start = 0;
	c->hrt_start[0] = 0;
	c->hrt_start[1] = 0;
	c->csd_start = 0;
	c->tick_dep = 0;
}

/*
 * jr_attach_switch - follow the target's threads through one switch on
 * this CPU; the CPU's state when it is watched afterwards, else NULL, and
 * in *waiting the target thread waiting here, if any.
 */
static __always_inline struct jr_bpf_cpu *
jr_attach_switch(bool preempt, struct task_struct *prev,
		 struct task_struct *next, __u64 now, __u32 *waiting)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, watched, *wp;
	struct jr_ubpf_acpu *a = bpf_map_lookup_elem(&acpu, &cpu);
	struct jr_bpf_cpu *c = bpf_map_lookup_elem(&state, &zero);
	__u8 *ok = bpf_map_lookup_elem(&allow, &cpu);
	bool allowed = ok && *ok;

	wp = bpf_map_lookup_elem(&watch, &cpu);
	if (!c || !wp || !a)
		return NULL;
	/*
	 * No switch happens inside an interrupt: an irq window still open
	 * here lost its exit while the CPU was not watched (its waiting
	 * target was moved away meanwhile), so it is closed unrecorded.
	 */
	c->w[JR_W_IRQ].depth = 0;
	if (jr_is_target(prev))
		jr_attach_out(a, cpu, allowed, preempt, prev, now);
	if (a->waiting && a->waiting != (__u32)next->pid &&
	    !jr_attach_here(cpu))
		a->waiting = 0;
	if (jr_is_target(next))
		jr_attach_in(a, cpu, allowed, next, now);
	else
		a->running = 0;
	watched = a->running ?: a->waiting;
	if (watched && !*wp) {
		jr_attach_reset(c);
		a->since = now;
	} else if (!watched && *wp && a->since) {
		a->total_ns += now - a->since;
		a->since = 0;
	}
	*wp = watched;
	c->tid = watched;
	*waiting = a->waiting;
	return watched ? c : NULL;
}

/*
 * Page faults: handle_mm_fault() in a target thread, gross (what nests in
 * it, and any sleep for I/O, included).  fentry and fexit need the
 * function in the kernel's BTF and function tracing allowed; without
 * them the loader takes the x86 tracepoint instead, which only counts.
 */
/* jr_current_task - the running thread's tally when it is a target's */
static __always_inline struct jr_ubpf_task *jr_current_task(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;

	if (!attach_tgid || (__u32)(id >> 32) != attach_tgid)
		return NULL;
	return bpf_map_lookup_elem(&tasks, &tid);
}

SEC("fentry/handle_mm_fault")
int BPF_PROG(jr_a_fault_entry)
{
	struct jr_ubpf_task *t = jr_current_task();

	if (t)
		t->fault_at = bpf_ktime_get_ns();
	return 0;
}

SEC("fexit/handle_mm_fault")
int BPF_PROG(jr_a_fault_exit)
{
	struct jr_ubpf_task *t = jr_current_task();
	__u64 d;

	if (!t || !t->fault_at)
		return 0;
	d = bpf_ktime_get_ns() - t->fault_at;
	t->fault_at = 0;
	t->faults++;
	t->fault_ns += d;
	if (d > t->fault_max_ns)
		t->fault_max_ns = d;
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(jr_a_fault_count, unsigned long address)
{
	struct jr_ubpf_task *t = jr_current_task();

	if (t)
		t->faults++;
	return 0;
}

#endif /* JR_ATTACH_BPF_H */
