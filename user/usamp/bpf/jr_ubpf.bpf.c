// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ubpf.bpf.c - classify what interrupts jitread's userspace sampler.
 *
 * The same tracepoints jitmod hooks, as BTF-typed tracepoints (CO-RE, so
 * one object runs on every kernel with BTF).  A probe returns at once
 * unless its CPU has a watched thread, jitread's sampler for that CPU.
 * Windows nest as in jitmod: NMI > IRQ > softirq > thread, and when an
 * inner window closes, every enclosing one still open is pushed forward by
 * its duration, so each record's time is net of what nested inside it.
 *
 * Records are submitted without a wakeup: a wakeup is an irq_work on this
 * CPU, noise of our own making.  jitread polls the ring on a timer instead.
 *
 * A thread window opens when the sampler is switched out and closes when
 * anything else is switched in; it is charged to the task that ran.
 *
 * Details, as jitmod's: a work item, timer_list or hrtimer callback that
 * ran inside a window of its class, and what kept the tick, each written
 * just before its window's record and stamped with that window's arrival.
 */
#include "jr_ktypes.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "jitmod_abi.h"
#include "jr_ubpf_rec.h"

char LICENSE[] SEC("license") = "GPL";

struct jr_win {
	__u64 depth;
	__u64 arrival;
	__u64 delta_start;
};

struct jr_bpf_cpu {
	struct jr_win w[JR_W_NR];
	__s32 thread_pid;
	char thread_comm[16];
	/* PREEMPT_RT: the task running the open softirq window, as jitmod */
	__u32 softirq_owner;
	__u64 softirq_paused; /* when the owner was switched out */
	__u64 softirq_pushed; /* softirq time already taken off threads */
	/* the callbacks running in open windows: start 0 when none */
	__u64 work_fn, work_start;
	__s32 work_pid;
	__u64 timer_fn, timer_start;
	__u64 hrt_fn[2], hrt_start[2]; /* [0] hard, in an irq; [1] soft */
	__u32 tick_dep; /* what kept the tick since the last local_timer */
	__u64 csd_fn, csd, csd_start; /* the IPI function running, its csd */
	__s32 tid; /* the watched thread, as jr_cpu() last found it */
	__s32 win_tid; /* the watched thread the open thread window delays */
};

/* who queued a csd for a watched CPU: by csd address */
struct jr_csd_from {
	__u64 callsite;
	__s32 cpu;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, JR_UBPF_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} watch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct jr_bpf_cpu);
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct jr_csd_from);
} csd_from SEC(".maps");

__u64 drops;

#include "jr_attach.bpf.h"

/*
 * jr_cpu - this CPU's state, or NULL when no thread is watched here: the
 * sampler, or in attach mode a target thread running or waiting here.
 */
static __always_inline struct jr_bpf_cpu *jr_cpu(__u32 *tid)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	__u32 *t = bpf_map_lookup_elem(&watch, &cpu);
	struct jr_bpf_cpu *c;

	if (!t || !*t)
		return NULL;
	c = bpf_map_lookup_elem(&state, &zero);
	if (!c || (attach_tgid && !jr_attach_here(cpu)))
		return NULL;
	c->tid = *t;
	if (tid)
		*tid = *t;
	return c;
}

static __always_inline void jr_push(struct jr_bpf_cpu *c, int from, __u64 net)
{
	int i;

	for (i = from + 1; i < JR_W_NR; i++)
		if (c->w[i].depth)
			c->w[i].delta_start += net;
}

static __always_inline struct jr_ubpf_rec *
jr_emit(struct jr_bpf_cpu *c, int cls, __u64 start, __u64 net)
{
	struct jr_ubpf_rec *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r) {
		__sync_fetch_and_add(&drops, 1);
		return NULL;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->start_ns = start;
	r->net_ns = net;
	r->cpu = bpf_get_smp_processor_id();
	r->cls = cls;
	r->vec = JR_UBPF_NO_VEC;
	r->id = -1;
	r->tid = c->tid;
	return r;
}

/*
 * jr_detail - one detail of window win, whose callback fn began at start
 * (0: no time of its own); id and callsite as struct jr_ubpf_rec says.
 */
static __always_inline void jr_detail(struct jr_bpf_cpu *c, int kind, int win,
				      __u64 fn, __u64 start, __s32 id,
				      __u64 callsite)
{
	struct jr_ubpf_rec *r = jr_emit(c, JR_UBPF_DETAIL, c->w[win].arrival,
					start ? bpf_ktime_get_ns() - start : 0);

	if (!r)
		return;
	r->vec = kind;
	r->wcls = win == JR_W_IRQ     ? JIT_NOISE_IRQ :
		  win == JR_W_SOFTIRQ ? JIT_NOISE_SOFTIRQ :
					JIT_NOISE_THREAD;
	r->addr = fn;
	r->id = id;
	r->callsite = callsite;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void jr_enter(int win)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);
	__u64 now;

	if (!c)
		return;
	if (c->w[win].depth++)
		return;
	now = bpf_ktime_get_ns();
	c->w[win].arrival = now;
	c->w[win].delta_start = now;
}

/* jr_exit - close one level; the net time when the window closed, else 0. */
static __always_inline __u64 jr_exit(struct jr_bpf_cpu *c, int win)
{
	__u64 net;

	if (!c->w[win].depth || --c->w[win].depth)
		return 0;
	net = bpf_ktime_get_ns() - c->w[win].delta_start;
	jr_push(c, win, net);
	return net;
}

static __always_inline int jr_irq_exit(int irq, int vec,
				       struct irqaction *action)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);
	struct jr_ubpf_rec *r;
	__u64 net;

	if (!c)
		return 0;
	net = jr_exit(c, JR_W_IRQ);
	if (!net)
		return 0;
	if (vec == JIT_VEC_local_timer && c->tick_dep) {
		jr_detail(c, JIT_DETAIL_TICK, JR_W_IRQ, 0, 0, c->tick_dep, 0);
		c->tick_dep = 0;
	}
	r = jr_emit(c, JIT_NOISE_IRQ, c->w[JR_W_IRQ].arrival, net);
	if (!r)
		return 0;
	r->id = irq;
	r->vec = vec;
	if (action)
		bpf_probe_read_kernel_str(r->name, sizeof(r->name),
					  action->name);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(jr_irq_entry, int irq, struct irqaction *action)
{
	jr_enter(JR_W_IRQ);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(jr_irq_exit_tp, int irq, struct irqaction *action, int ret)
{
	return jr_irq_exit(irq, JR_UBPF_NO_VEC, action);
}

/* x86 system vectors; the index is the user side's name table order. */
#define JR_VECTOR(idx, tp)                         \
	SEC("tp_btf/" #tp "_entry")                \
	int BPF_PROG(jr_##tp##_entry, int vector)  \
	{                                          \
		jr_enter(JR_W_IRQ);                \
		return 0;                          \
	}                                          \
	SEC("tp_btf/" #tp "_exit")                 \
	int BPF_PROG(jr_##tp##_exit, int vector)   \
	{                                          \
		return jr_irq_exit(-1, idx, NULL); \
	}

/* every entry of JIT_VECTORS (tests/host/test_abi.py checks) */
JR_VECTOR(JIT_VEC_local_timer, local_timer)
JR_VECTOR(JIT_VEC_spurious_apic, spurious_apic)
JR_VECTOR(JIT_VEC_error_apic, error_apic)
JR_VECTOR(JIT_VEC_x86_platform_ipi, x86_platform_ipi)
JR_VECTOR(JIT_VEC_irq_work, irq_work)
JR_VECTOR(JIT_VEC_reschedule, reschedule)
JR_VECTOR(JIT_VEC_call_function, call_function)
JR_VECTOR(JIT_VEC_call_function_single, call_function_single)
JR_VECTOR(JIT_VEC_threshold_apic, threshold_apic)
JR_VECTOR(JIT_VEC_deferred_error_apic, deferred_error_apic)
JR_VECTOR(JIT_VEC_thermal_apic, thermal_apic)

/*
 * Softirqs.  On PREEMPT_RT a softirq runs in a task and can be preempted:
 * as in jitmod, its window pauses while that task is switched out, and the
 * task's thread window, which may close before the softirq does, loses the
 * softirq's time so far as it closes (softirq_pushed), the next one the rest.
 */
SEC("tp_btf/softirq_entry")
int BPF_PROG(jr_softirq_entry, unsigned int vec_nr)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);

	if (!c)
		return 0;
	if (!c->w[JR_W_SOFTIRQ].depth) {
		c->softirq_owner = (__u32)bpf_get_current_pid_tgid();
		c->softirq_paused = 0;
		c->softirq_pushed = 0;
	}
	jr_enter(JR_W_SOFTIRQ);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(jr_softirq_exit, unsigned int vec_nr)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);
	struct jr_ubpf_rec *r;
	__u64 net;

	if (!c)
		return 0;
	net = jr_exit(c, JR_W_SOFTIRQ);
	if (!net)
		return 0;
	/*
	 * jr_exit pushed the thread window by all of it: give back the part
	 * already taken off the owner's earlier thread window.
	 */
	if (c->w[JR_W_THREAD].depth)
		c->w[JR_W_THREAD].delta_start -=
			c->softirq_pushed < net ? c->softirq_pushed : net;
	c->softirq_pushed = 0;
	r = jr_emit(c, JIT_NOISE_SOFTIRQ, c->w[JR_W_SOFTIRQ].arrival, net);
	if (!r)
		return 0;
	r->vec = vec_nr;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* NMIs: nmi_handler fires after each handler with its own duration. */
SEC("tp_btf/nmi_handler")
int BPF_PROG(jr_nmi, void *handler, s64 delta_ns, int handled)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);
	struct jr_ubpf_rec *r;
	__u64 now;

	if (!c || delta_ns <= 0)
		return 0;
	now = bpf_ktime_get_ns();
	jr_push(c, JR_W_NMI, delta_ns);
	r = jr_emit(c, JIT_NOISE_NMI, now - delta_ns, delta_ns);
	if (!r)
		return 0;
	r->addr = (__u64)handler;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/*
 * jr_switch_close - the switch ends the open thread window, and moves the
 * PREEMPT_RT softirq window's owner (see above) on or off the CPU.
 */
static __always_inline void jr_switch_close(struct jr_bpf_cpu *c,
					    struct task_struct *prev,
					    struct task_struct *next, __u64 now)
{
	struct jr_win *w = &c->w[JR_W_THREAD], *s = &c->w[JR_W_SOFTIRQ];
	struct jr_ubpf_rec *r;

	if (s->depth && prev->pid == (int)c->softirq_owner) {
		__u64 so_far = now - s->delta_start;

		if (w->depth)
			w->delta_start += so_far - c->softirq_pushed;
		c->softirq_pushed = so_far;
		c->softirq_paused = now;
	} else if (s->depth && next->pid == (int)c->softirq_owner &&
		   c->softirq_paused) {
		s->delta_start += now - c->softirq_paused;
		c->softirq_paused = 0;
	}
	if (!w->depth)
		return;
	w->depth = 0;
	r = jr_emit(c, JIT_NOISE_THREAD, w->arrival,
		    now > w->delta_start ? now - w->delta_start : 0);
	if (!r)
		return;
	r->id = c->thread_pid;
	r->tid = c->win_tid;
	__builtin_memcpy(r->name, c->thread_comm, sizeof(c->thread_comm));
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* jr_switch_open - next delays watched thread tid until the next switch. */
static __always_inline void jr_switch_open(struct jr_bpf_cpu *c,
					   struct task_struct *next, __u32 tid,
					   __u64 now)
{
	struct jr_win *w = &c->w[JR_W_THREAD];

	w->depth = 1;
	w->arrival = now;
	w->delta_start = now;
	c->win_tid = tid;
	c->thread_pid = next->pid;
	bpf_probe_read_kernel_str(c->thread_comm, sizeof(c->thread_comm),
				  next->comm);
}

/*
 * The sampler's thread window opens whenever it is switched out.  In
 * attach mode a target thread's opens only when it was switched out
 * runnable and waits here (jr_attach.bpf.h), and the watch follows the
 * target's threads from CPU to CPU.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(jr_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 tid = 0;
	struct jr_bpf_cpu *c = jr_cpu(&tid);
	__u64 now = bpf_ktime_get_ns();

	if (c)
		jr_switch_close(c, prev, next, now);
	if (attach_tgid) {
		__u32 waiting = 0;

		c = jr_attach_switch(preempt, prev, next, now, &waiting);
		if (c && waiting && next->pid != (int)waiting)
			jr_switch_open(c, next, waiting, now);
		return 0;
	}
	if (c && next->pid != (int)tid)
		jr_switch_open(c, next, tid, now);
	return 0;
}

/* Work items: they run in a kworker's thread window. */
SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(jr_work_start, struct work_struct *work)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);

	if (!c || !c->w[JR_W_THREAD].depth)
		return 0;
	c->work_fn = (__u64)work->func;
	c->work_pid = (__u32)bpf_get_current_pid_tgid();
	c->work_start = bpf_ktime_get_ns();
	return 0;
}

/* The work item may be freed by now: only what the start saved is used. */
SEC("tp_btf/workqueue_execute_end")
int BPF_PROG(jr_work_end, struct work_struct *work, void *fn)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);

	if (!c || !c->work_start)
		return 0;
	if (c->w[JR_W_THREAD].depth &&
	    c->work_pid == (__s32)bpf_get_current_pid_tgid())
		jr_detail(c, JIT_DETAIL_WORK, JR_W_THREAD, c->work_fn,
			  c->work_start, c->work_pid, 0);
	c->work_start = 0;
	return 0;
}

/* timer_list callbacks: they run in the TIMER softirq's window. */
SEC("tp_btf/timer_expire_entry")
int BPF_PROG(jr_timer_entry, struct timer_list *timer)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);

	if (!c || !c->w[JR_W_SOFTIRQ].depth)
		return 0;
	c->timer_fn = (__u64)timer->function;
	c->timer_start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(jr_timer_exit, struct timer_list *timer)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);

	if (!c || !c->timer_start)
		return 0;
	if (c->w[JR_W_SOFTIRQ].depth)
		jr_detail(c, JIT_DETAIL_TIMER, JR_W_SOFTIRQ, c->timer_fn,
			  c->timer_start, 0, 0);
	c->timer_start = 0;
	return 0;
}

/*
 * hrtimer callbacks: hard ones in the local_timer interrupt's window, soft
 * ones in the HRTIMER softirq's.  An open irq window means hard irq
 * context: the irq window is the innermost but the NMI's.
 */
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(jr_hrtimer_entry, struct hrtimer *t)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);
	int hard;

	if (!c)
		return 0;
	hard = c->w[JR_W_IRQ].depth ? 1 : 0;
	if (!hard && !c->w[JR_W_SOFTIRQ].depth)
		return 0;
	c->hrt_fn[!hard] = (__u64)t->function;
	c->hrt_start[!hard] = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(jr_hrtimer_exit, struct hrtimer *t)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);
	int hard, win;

	if (!c)
		return 0;
	hard = c->w[JR_W_IRQ].depth ? 1 : 0;
	win = hard ? JR_W_IRQ : JR_W_SOFTIRQ;
	if (!c->hrt_start[!hard])
		return 0;
	if (c->w[win].depth)
		jr_detail(c, JIT_DETAIL_HRTIMER, win, c->hrt_fn[!hard],
			  c->hrt_start[!hard], 0, 0);
	c->hrt_start[!hard] = 0;
	return 0;
}

/*
 * The tick: on a nohz_full CPU each interrupt exit tries to stop it, and
 * a failed try says which dependency kept it; the next local_timer
 * interrupt's record carries them.
 */
SEC("tp_btf/tick_stop")
int BPF_PROG(jr_tick_stop, int success, int dependency)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);

	if (!c)
		return 0;
	c->tick_dep = success ? 0 : c->tick_dep | (__u32)dependency;
	return 0;
}

/*
 * IPIs: the CPU that queues a function for a watched CPU is seen here, on
 * its own CPU, and kept by csd until the watched CPU runs it inside its
 * call_function(_single) interrupt's window.  Raw tracepoints: a
 * BTF-typed one refuses to read an argument that points to a function.
 */
SEC("raw_tp/csd_queue_cpu")
int BPF_PROG(jr_csd_queue, unsigned int cpu, unsigned long callsite, void *func,
	     void *csd)
{
	struct jr_csd_from from = {
		.callsite = callsite,
		.cpu = bpf_get_smp_processor_id(),
	};
	__u32 k = cpu;
	__u64 key = (__u64)csd;
	__u32 *t = bpf_map_lookup_elem(&watch, &k);

	if (t && *t)
		bpf_map_update_elem(&csd_from, &key, &from, BPF_ANY);
	return 0;
}

SEC("raw_tp/csd_function_entry")
int BPF_PROG(jr_csd_entry, void *func, void *csd)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);

	if (!c || !c->w[JR_W_IRQ].depth)
		return 0;
	c->csd_fn = (__u64)func;
	c->csd = (__u64)csd;
	c->csd_start = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/csd_function_exit")
int BPF_PROG(jr_csd_exit, void *func, void *csd)
{
	struct jr_bpf_cpu *c = jr_cpu(NULL);
	struct jr_csd_from *from;
	__u64 key;

	if (!c || !c->csd_start)
		return 0;
	key = c->csd;
	from = key ? bpf_map_lookup_elem(&csd_from, &key) : NULL;
	if (c->w[JR_W_IRQ].depth)
		jr_detail(c, JIT_DETAIL_IPI, JR_W_IRQ, c->csd_fn, c->csd_start,
			  from ? from->cpu : -1, from ? from->callsite : 0);
	if (from)
		bpf_map_delete_elem(&csd_from, &key);
	c->csd_start = 0;
	return 0;
}
