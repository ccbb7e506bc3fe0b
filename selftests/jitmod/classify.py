#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each injected class is detected, classified, named and timed right.

For every class the injector makes, and D in 20, 200 and 2000 us, three
injections on the sampled CPU.  Each must give:
  - a class event naming the source (the vector, TIMER, the NMI handler,
    the injector thread's comm and pid) with a net duration of at least D
    less what nested in it (below) and at most D + late + SLACK_US;
  - a gap that holds it: the class's net time >= D, its count >= 1.  From
    D = 200 us up the gap must also be filed under that class (the
    softirq on PREEMPT_RT from 2000 us: file_from_us); at 20 us other
    noise in the same gap may outweigh it under TCG.  From there up, a
    gap filed under another class because that class's net time in it
    was larger (a host stall inside other work) is a rep made again; at
    200 us and up, a gap filed against jitmod's own most-net-time rule
    fails.
Then the nesting check: the injector thread spins D of its own while an
hrtimer spins D/2 inside it; the thread's net time must exclude the
hrtimer's, so it is at least D + D/2 (its clock-timed spin) less the
hrtimer's net time and other nested work. The injector's own nested_ns
(which user_bpf.py's bounds subtract) covers the hrtimer's net time when
it nested; a rep where it does not (under TCG the hrtimer can fire after
the whole spin) is made again, and a hrtimer nested by that count but
not in the thread's gap fails. And a preempted softirq: the TIMER
softirq spins D/4, wakes a FIFO thread that spins D/2, and spins D/4
more. On PREEMPT_RT the thread preempts the softirq's task (ktimers/N)
in the middle; each must still get D/2 of its own, and the task that ran
the softirq must not be charged the softirq's time nor be pushed past
its end (a net time near 2^64 cycles).  That task charged more than D/4
is a rep made again only when the kernel's own events saw it run that
long outside the softirq (a host stall in its own code).

Nested time: the injector spins by the clock, so an interrupt nested in
its spin (a tick, ~20-70 us under TCG) is rightly taken off the source's
net time.  Each lower bound allows for the other classes' net time in
the same gap, which bounds what can have nested, capped at D/10.  For
the five classes, a source short by more than D/10 that the other work
in its gap makes up (a host stall inside a nested tick) is a rep made
again; short in every attempt, or short with nothing to make it up,
fails.

Upper bounds, two of them.  First, no source's net time may exceed how
long the kernel's own events (sched_switch, the irq_vectors and softirq
entry/exit pairs, nmi_handler; see kspan) saw it hold the CPU: more is
a window jitmod never closed or charged twice, and fails.  Second,
D + late + SLACK_US.  late is the injector's own late_ns: how far its
spins ran past their time.  A spin ends by the clock, so a pause of the
vCPU inside it lengthens it only when the pause straddles its end; then
the injector sees the overrun itself.  SLACK_US: under TCG the path from
the tracepoint to the spin and back costs tens of us.  Measured on a
2-core host: at most ~300 us over D.  But the host may also deschedule
the vCPU on that path, for milliseconds on a loaded machine; the source
then really held the CPU that long, the kernel's span agrees, and the
rep is made again.
"""

import sys

import jittest as jt
from jitpy.guest import injector, kmod, kspan, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
DURATIONS_US = (20, 200, 2000)
REPS = 3
ATTEMPTS = 5
SLACK_US = 1500
THRESHOLD_NS = 10000
# The nested hrtimer spins D/2, which must dwarf TCG's ~100 us overhead.
NEST_US = (1000, 4000)
# D/4 is the shortest spin in it; it must dwarf TCG's ~200 us RT switch.
SOFTPRE_US = (4000, 8000)
# One period for the whole test, which takes well under a minute of guest
# time: a period's end resets the probes' windows, and a rep across one
# is made again (on deterministic time the same rep, every run)
PERIOD_US = 60000000


def file_from_us(cls):
    """From which D up an injection of cls must have its gap filed under
    its own class.  On PREEMPT_RT the TIMER softirq runs in ktimers/N,
    woken by the interrupt that raised it, so its gap also holds that
    interrupt and the switch to the task: under TCG each takes 250-600
    us, as much as a 200 us spin, in every rep."""
    if cls == "softirq" and kmod.rt_kernel():
        return 2000
    return 200


def _src_irq(name):
    return lambda e, _pid: e.f.get("name") == name


# injector class -> (jitmod class, class event, gap field, source check,
# the kernel's own span of the source: (events, source event, pid) -> ns)
CLASSES = {
    "thread": ("thread", "thread_noise", "thread",
               lambda e, pid: e.f.get("comm") == f"jitinject/{CPU}" and
               e.num("pid") == pid, kspan.thread),
    "hrtimer": ("irq", "irq_noise", "irq", _src_irq("local_timer"),
                lambda evs, e, _pid: kspan.vector(evs, e, "local_timer")),
    "ipi": ("irq", "irq_noise", "irq", _src_irq("call_function_single"),
            lambda evs, e, _pid: kspan.vector(evs, e,
                                              "call_function_single")),
    "softirq": ("softirq", "softirq_noise", "softirq",
                lambda e, _pid: e.f.get("vec") == "1" and "[TIMER]" in e.body,
                lambda evs, e, _pid: kspan.softirq(evs, e, 1)),
    "nmi": ("nmi", "nmi_noise", "nmi",
            lambda e, _pid: e.f.get("handler", "").startswith("jinj_nmi"),
            lambda evs, e, _pid: kspan.nmi(evs, e, "jinj_nmi")),
}


def windows(events, tag):
    """Events on CPU between each 'tag' marker and the next marker."""
    return trace.windows(events, tag, CPU)


class Again(jt.Again):
    """Under TCG, a host stall inside other work in the same gap: either
    that work had more net time than the injection, so by the rule the
    gap is not the injection's class, or it took more than D/10 out of
    the injection's clock-timed spin.  The rep is made again; a fault that
    shows in every attempt still fails."""


def outweighed(gap, field):
    """Why a gap not filed under field is filed right by jitmod's rule
    (its class has the most net time there, more than field's), or
    None when it is not."""
    best = trace.filing(gap)
    if best != gap.f["class"] or gap.ns(best) <= gap.ns(field):
        return None
    return (f"outweighed in its gap: {best} {gap.ns(best)} ns > {field} "
            f"{gap.ns(field)} ns")


def nested(gap, fields, d_ns, known_ns=0):
    """What may have nested in a spin of d_ns in gap: the net time of
    fields there, less known_ns already accounted for, at most d_ns / 10
    (so never below injector.spin_floor_ns)."""
    return min(trace.class_ns(gap, fields) - known_ns, d_ns // 10)


def stall_before(evs, i, span):
    """How long before the source's first kernel event (span ns before
    evs[i], which closes it) the gap holding it began: time in which the
    sampler made no progress and nothing was traced.  A host stall there,
    between jitmod's probe and the trace's on the same tracepoint, puts
    time in jitmod's window that the trace's timestamps leave out."""
    gap = next((e for e in evs[i:] if e.name == "gap"), None)
    if gap is None:
        return 0
    start = gap.ts - gap.ns("duration_ns") / 1e9
    return max(0, int((evs[i].ts - span / 1e9 - start) * 1e9))


def within_kernel(what, ns, evs, src, span):
    """Fail unless a source's net time ns lies within span, the kernel's
    own view (kspan) of how long src's source held the CPU: more is time
    jitmod made up, unless the gap shows the sampler stalled just before
    the source began (then the rep is made again).  Returns span."""
    if span is not None and ns <= span + kspan.tolerance(span):
        return span
    i = evs.index(src)
    around = "\n".join(map(repr, evs[max(i - 8, 0):i + 4]))
    if span is None:
        raise Fail(f"{what}: the kernel's own events around {src} are "
                   f"missing:\n{around}")
    room = stall_before(evs, i, span)
    if ns <= span + room + kspan.tolerance(span):
        raise Again(f"{what}: net {ns} ns > the kernel's {span} ns, but "
                    f"the sampler was stalled {room} ns before the "
                    "source's first event: a host stall between jitmod's "
                    "probe and the trace's")
    raise Fail(f"{what}: net {ns} ns > the {span} ns the kernel's own "
               f"events saw the source hold the CPU:\n{around}")


def check_one(cls, d_us, evs, pid, late):
    """Judge one injection's window; late is the injector's late_ns.
    Returns a one-line verdict or raises."""
    want_cls, ev_name, field, is_src, span_of = CLASSES[cls]
    d_ns = d_us * 1000
    srcs = [e for e in evs if e.name == ev_name and is_src(e, pid)]
    if not srcs:
        seen = [e for e in evs if e.name == ev_name]
        raise Fail(f"{cls} {d_us}us: no {ev_name} from the source; "
                   f"{ev_name} seen: {seen[:4]}")
    # the first that can be the injection, else the longest (which the
    # lower bound below then judges)
    src = next((e for e in srcs if
                e.ns("duration_ns") >= injector.spin_floor_ns(d_ns)),
               max(srcs, key=lambda e: e.ns("duration_ns")))
    dur = src.ns("duration_ns")
    span = within_kernel(f"{cls} {d_us}us", dur, evs, src,
                         span_of(evs, src, pid))
    if dur > d_ns + late + SLACK_US * 1000:
        raise Again(f"net {dur} ns > D + late {late} ns + {SLACK_US}us, "
                    f"within the {span} ns the kernel saw: a stall in the "
                    "source outside its spin")
    gap = trace.gap_after(evs, src, field)
    if gap is None:
        raise Fail(f"{cls} {d_us}us: no gap after {src}")
    if gap.num(field) < 1 or gap.ns(field) < dur:
        raise Fail(f"{cls} {d_us}us: gap does not hold {dur} ns of "
                   f"{field}: {gap}")
    if gap.ns("duration_ns") < dur:
        raise Fail(f"{cls} {d_us}us: gap shorter than its {field}: {gap}")
    others = [f for f in trace.INTF if f != field]
    inner = nested(gap, others, d_ns)
    if dur + inner < d_ns:
        if dur + trace.class_ns(gap, others) >= d_ns:
            raise Again(f"net {dur} ns, and more than D/10 of other work "
                        f"in its gap: {gap}")
        raise Fail(f"{cls} {d_us}us: net {dur} ns + {inner} ns that may "
                   f"have nested < D: {gap}")
    if d_us >= 200 and gap.f["class"] != want_cls:
        why = outweighed(gap, field)
        if not why:
            raise Fail(f"{cls} {d_us}us: gap filed as {gap.f['class']}, "
                       f"want {want_cls}: {gap}")
        if d_us >= file_from_us(cls):
            raise Again(why)
        log(f"{cls} {d_us}us: {why}, as jitmod's rule files it")
    name = (src.f.get("name") or src.f.get("comm") or
            src.f.get("handler") or src.f.get("vec"))
    return (f"{cls:8s} D={d_us:5d}us net={dur / 1000:8.1f}us "
            f"({(dur - d_ns) / 1000:+.1f}) "
            f"gap={gap.ns('duration_ns') / 1000:.1f}us "
            f"class={gap.f['class']} src={name} "
            f"kernel={span / 1000:.1f}us" +
            (f" late={late / 1000:.1f}us" if late else ""))


def settle(inst, tag, cls, d_us):
    """Wait until the injection's own event and the gap that closes it are
    in the trace: the write returns when the handler is done, but under
    TCG the host may stall the sampled vCPU before its exit tracepoint.
    Returns the injector thread's pid (last_pid) and its late_ns, which
    the checks use."""
    ev_name, is_src = CLASSES[cls if cls in CLASSES else "thread"][1::2]
    pid = int(sysio.read(f"{injector.PARAMS}/last_pid"))

    least = injector.spin_floor_ns(d_us * 1000)

    def seen():
        evs = windows(trace.parse(inst.text()), tag).get(tag, [])
        src = [i for i, e in enumerate(evs) if e.name == ev_name and
               is_src(e, pid) and e.ns("duration_ns") >= least]
        return bool(src) and any(e.name == "gap" for e in evs[src[0]:])

    sysio.wait_for(seen, 5, step=0.05)
    return pid, injector.late_ns()


def one_rep(inst, cls, d_us, tag):
    """One injection of cls between markers, judged by check_one; a rep
    that straddles a period boundary (the sampler was asleep for part of
    it) is made again."""
    inst.clear()
    inst.marker(tag)
    injector.fire(cls, d_us)
    pid, late = settle(inst, tag, cls, d_us)
    inst.marker("jitinject done")
    evs = windows(trace.parse(inst.text()), tag).get(tag)
    if evs is None:
        raise Fail(f"marker '{tag}' lost from the trace")
    if any(e.name == "summary" for e in evs):
        raise Again("crossed a period boundary")
    return check_one(cls, d_us, evs, pid, late)


def run_class(inst, cls):
    """All durations and reps for one class.  One unmeasured injection
    first: TCG translates code on its first run, which once added ~0.9 ms
    to the first NMI."""
    injector.fire(cls, DURATIONS_US[0])
    for d_us in DURATIONS_US:
        for rep in range(REPS):
            log(jt.attempts(lambda n, d_us=d_us, rep=rep: one_rep(
                inst, cls, d_us, f"jitinject {cls} {d_us} {rep} {n}"),
                ATTEMPTS, retry=(), what=f"{cls} {d_us}us rep {rep}"))


def inject_in_period(inst, tag, cls, d_us, settle_us):
    """One injection between markers, made again (up to 3 times) while
    its window crosses a period boundary, the last kept whatever it
    crossed; (injector pid, its late_ns, the window's events).
    settle_us: the net time the injector thread's own event must reach."""
    def once(n):
        inst.clear()
        inst.marker(tag)
        injector.fire(cls, d_us)
        pid, late = settle(inst, tag, cls, settle_us)
        inst.marker("jitinject done")
        evs = windows(trace.parse(inst.text()), tag)[tag]
        if n < 2 and any(e.name == "summary" for e in evs):
            raise Again("crossed a period boundary")
        return pid, late, evs

    return jt.attempts(once, 3, retry=(), what=f"{cls} {d_us}us window")


def check_nest(inst, d_us):
    """Thread spins d_us net with an hrtimer spinning d_us/2 inside it.

    The hrtimer is armed D/4 into the thread's run, but under TCG a timer
    can fire later than the whole spin, with or without jitmod loaded:
    then nothing nested, and the rep is made again.  The
    injector's nested_ns tells: it covers the interrupt whole, so it is at
    least the hrtimer's net time when the hrtimer nested.  A hrtimer
    that nested by the injector's count but is not in the thread's gap
    is jitmod's fault and fails.  A gap filed as irq because a host stall
    in the hrtimer gave it more net time than the thread is, by jitmod's
    rule, right, and the rep is made again."""
    tag = f"jitinject nest {d_us}"
    pid, late, evs = inject_in_period(inst, tag, "nest", d_us, d_us)
    thr = [e for e in evs if e.name == "thread_noise" and
           CLASSES["thread"][3](e, pid)]
    irqs = [e for e in evs if e.name == "irq_noise" and
            e.f.get("name") == "local_timer" and
            e.ns("duration_ns") >= d_us * 500]
    if not thr or not irqs:
        raise Fail(f"nest {d_us}us: thread {thr[:2]} or hrtimer "
                   f"{irqs[:2]} missing")
    t_ns, i_ns = thr[0].ns("duration_ns"), irqs[0].ns("duration_ns")
    gap = trace.gap_after(evs, thr[0], "thread")
    if gap is None:
        raise Fail(f"nest {d_us}us: no gap holds {thr[0]}")
    seen = injector.nested_ns()
    log(f"nest D={d_us}us: thread net {t_ns / 1000:.1f}us, hrtimer "
        f"{i_ns / 1000:.1f}us, late {late / 1000:.1f}us, nested_ns "
        f"{seen / 1000:.1f}us, gap {gap}")
    if seen < i_ns:
        raise Again(f"jitinject's nested_ns {seen} < the hrtimer's "
                    f"{i_ns} ns: it fired outside the thread's spin")
    if gap.ns("irq") < i_ns:
        raise Fail(f"nest {d_us}us: the hrtimer's {i_ns} ns nested in "
                   f"the spin (nested_ns {seen}) but not in its gap: "
                   f"{gap}")
    # The thread spins D + D/2 by the clock and the hrtimer's interrupt
    # takes i_ns of that: its D/2 spin and its entry and exit, which a
    # host stall can lengthen.  Net of nesting the thread keeps the rest;
    # other nested work (a tick) comes off it too, and a stall across its
    # end adds to it.
    d_ns = d_us * 1000
    within_kernel(f"nest {d_us}us thread", t_ns, evs, thr[0],
                  kspan.thread(evs, thr[0], pid))
    within_kernel(f"nest {d_us}us hrtimer", i_ns, evs, irqs[0],
                  kspan.vector(evs, irqs[0], "local_timer"))
    inner = nested(gap, ("irq", "softirq", "nmi"), d_ns, known_ns=i_ns)
    floor = d_ns + d_ns // 2 - i_ns - inner
    if t_ns < floor:
        raise Fail(f"nest {d_us}us: thread net {t_ns} ns < D + D/2 - the "
                   f"hrtimer's {i_ns} ns - {inner} ns nested = {floor}")
    if t_ns >= d_ns + i_ns + late:
        raise Again(f"thread net {t_ns} ns >= D + the hrtimer's {i_ns} ns "
                    f"+ late {late} ns, within the kernel's span: a stall "
                    "outside the spin")
    if trace.class_ns(gap, ("thread", "irq")) > gap.ns("duration_ns"):
        raise Fail(f"nest {d_us}us: thread + irq exceed the gap: {gap}")
    if gap.f["class"] != "thread":
        why = outweighed(gap, "thread")
        if why:
            raise Again(why)
        raise Fail(f"nest {d_us}us: gap filed as {gap.f['class']}")


def check_softirq_task(d_us, e, evs):
    """The task that ran the softirq (event e) must not be charged the
    softirq's time: its net time is at most D/4, or at most what the
    kernel's own events saw it run outside the softirq (a host stall in
    the task's own code, and the rep is made again)."""
    ns, quarter = e.ns("duration_ns"), d_us * 250
    if ns <= quarter:
        return
    own = kspan.outside_softirq(evs, e, e.num("pid"), 1)
    if own is not None and ns <= own + kspan.tolerance(own):
        raise Again(f"softpre {d_us}us: {e.f.get('comm')} charged {ns} "
                    f"ns, within the {own} ns the kernel saw it run "
                    "outside the softirq: a host stall in the task")
    raise Fail(f"softpre {d_us}us: {e.f.get('comm')} charged {ns} ns, "
               f"more than the D/4 the softirq spun before it was "
               f"preempted and than the {own} ns the kernel saw it run "
               f"outside the softirq: {e}")


def check_softpre(inst, d_us):
    """A TIMER softirq of D/2 net, preempted (on RT) by a thread of D/2."""
    tag = f"jitinject softpre {d_us}"
    half, slack = d_us * 500, SLACK_US * 1000
    pid, late, evs = inject_in_period(inst, tag, "softpre", d_us,
                                      d_us // 2)
    thr = [e for e in evs if e.name == "thread_noise" and
           CLASSES["thread"][3](e, pid)]
    sirq = [e for e in evs if e.name == "softirq_noise" and
            CLASSES["softirq"][3](e, pid) and
            e.ns("duration_ns") >= injector.spin_floor_ns(half)]
    if not thr or not sirq:
        raise Fail(f"softpre {d_us}us: thread {thr[:2]} or softirq "
                   f"{sirq[:2]} missing")
    # the thread also ran briefly when it was created: take its spin
    t_src = max(thr, key=lambda e: e.ns("duration_ns"))
    t_ns = t_src.ns("duration_ns")
    s_ns = sirq[0].ns("duration_ns")
    # the task that ran the softirq: ktimers/N on RT, maybe ksoftirqd/N
    others = [e for e in evs if e.name == "thread_noise" and
              e.f.get("comm", "").startswith(("ktimers/", "ksoftirqd/"))]
    gap = trace.gap_after(evs, sirq[0], "softirq")
    log(f"softpre D={d_us}us: thread net {t_ns / 1000:.1f}us, softirq "
        f"{s_ns / 1000:.1f}us, late {late / 1000:.1f}us, other threads "
        f"{[(e.f.get('comm'), e.ns('duration_ns')) for e in others]}, "
        f"gap {gap}")
    for e in others:
        check_softirq_task(d_us, e, evs)
    if gap is None:
        raise Fail(f"softpre {d_us}us: no gap holds {sirq[0]}")
    within_kernel(f"softpre {d_us}us thread", t_ns, evs, t_src,
                  kspan.thread(evs, t_src, pid))
    within_kernel(f"softpre {d_us}us softirq", s_ns, evs, sirq[0],
                  kspan.softirq(evs, sirq[0], 1))
    # neither spin nests in the other; irqs and NMIs may nest in both
    inner = nested(gap, ("irq", "nmi"), half)
    for what, ns in (("thread", t_ns), ("softirq", s_ns)):
        if ns < half - inner:
            raise Fail(f"softpre {d_us}us: {what} net {ns} ns < D/2 - "
                       f"{inner} ns nested")
        if ns > half + late + slack:
            raise Again(f"{what} net {ns} ns > D/2 + late {late} ns + "
                        f"{SLACK_US}us, within the kernel's span: a stall "
                        "outside the spin")
    intf_ns = trace.class_ns(gap, ("irq", "softirq", "thread"))
    if intf_ns > gap.ns("duration_ns"):
        raise Fail(f"softpre {d_us}us: irq + softirq + thread exceed "
                   f"the gap: {gap}")


def body():
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=THRESHOLD_NS,
                period_us=PERIOD_US, runtime_us=PERIOD_US)
    kmod.insmod("jitinject", cpu=CPU)
    with tracefs.Instance("classify", events=("jitmod",) + kspan.EVENTS,
                          clock=kspan.CLOCK) as inst:
        cases = jt.Cases(len(CLASSES) + len(NEST_US) + len(SOFTPRE_US))
        for cls in CLASSES:
            cases.run(cls, run_class, inst, cls)
        for d_us in NEST_US:
            cases.run(f"nest {d_us}us", jt.attempts,
                      lambda _n, d_us=d_us: check_nest(inst, d_us),
                      ATTEMPTS, retry=(), what=f"nest {d_us}us")
        for d_us in SOFTPRE_US:
            cases.run(f"softpre {d_us}us", jt.attempts,
                      lambda _n, d_us=d_us: check_softpre(inst, d_us),
                      ATTEMPTS, retry=(), what=f"softpre {d_us}us")
        cases.finish()
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")


if __name__ == "__main__":
    sys.exit(jt.run(body))
