#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitmod's accounting, judged exactly on deterministic time.

Run in a guest on QEMU's icount clock (python3 -m jitpy.vm --clock
icount), where the TSC counts instructions, one a nanosecond, and the host
can neither stall nor slow a vCPU in guest time.  There the injector's
spins are exact, and each class's own cost (its entry and exit around the
spin, the probes' work) is the same every time.  So, for each class the
injector has (hrtimer and IPI: irq; TIMER softirq; NMI; FIFO thread),
REPS injections at each D in DURATIONS_US on the sampled CPU, D = 0
first:
 - recall: each injection gives exactly one event of its class that
   names its source (of the injector thread's runs, the spin's), and
   one gap holds it, filed under that class (at D = 0 under the class
   with the most net time in the gap, jitmod's rule);
 - net time: each source's net time, less what its spin overran its end
   (the injector's late_ns), is D plus the class's own cost, the least
   of its D = 0 injections' net times, within 0.5 % of D + 0.5 us;
 - gross time: each gap's duration is the sum of what it was filed
   under, the classes' net times and hw_ns (what they do not explain),
   within 0.1 us: no time is charged twice.
Only one thing can spoil a measurement on deterministic time: QEMU runs
every vCPU on one host thread, in turn, so while CPU 0 runs, CPU 1 does
not, and a window open on CPU 1 then grows by CPU 0's run (the
injector's writer sleeps out each injection for that reason).  An
injection whose net time is off, and in whose window CPU 0 ran (was
not idle), is made again, with the evidence logged, at most ATTEMPTS
times.  The costs are printed, one line per class.

SMIs last: an SMI has no length the test can set, and under SeaBIOS only
CPU 0 comes back from one (smi.py), so jitmod samples CPU 0 and the
injector raises REPS SMIs there, each from a timer on CPU 1: the MSR
rises by one each time, and one gap on CPU 0 counts it, quiet and filed
hw:smi, its gross time the sum of its parts.  Its length is printed, not
judged: it holds the firmware's SMM handler and CPU 1's run from its
timer interrupt to the SMI, which the emulator runs before CPU 0 takes
it, and that run differs with what else CPU 1 had to do.

A guest on the host's clock is a SKIP: there, neither cost nor duration
can be judged so.
"""

import os
import statistics
import sys

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, Skip, log

CPU = 1
DURATIONS_US = (0, 50, 200, 1000)
REPS = 3
THRESHOLD_NS = 300
# power:cpu_idle's state on the way out of idle (PWR_EVENT_EXIT, -1)
IDLE_EXIT = str(2**32 - 1)
ATTEMPTS = 3
# One period for the whole test (its longest): a period's end resets the
# probes' windows, and the test takes about 5 s of guest time.
PERIOD_US = 60000000
NET_PPM = 5000
NET_NS = 500
GROSS_NS = 100
# SeaBIOS returns from an SMI on the boot CPU only (smi.py)
SMI_CPU = 0
SMI_WRITER = 1
SMI_COUNT = f"{injector.PARAMS}/smi_count"
SMI_SETTLE_S = 0.02


def _irq(name):
    return lambda e, _pid: e.f.get("name") == name


# injector class -> (jitmod class and gap field, its event, the source)
CLASSES = {
    "hrtimer": ("irq", "irq_noise", _irq("local_timer")),
    "ipi": ("irq", "irq_noise", _irq("call_function_single")),
    "softirq": ("softirq", "softirq_noise",
                lambda e, _pid: e.f.get("vec") == "1" and
                "[TIMER]" in e.body),
    "nmi": ("nmi", "nmi_noise",
            lambda e, _pid: e.f.get("handler", "").startswith("jinj_nmi")),
    "thread": ("thread", "thread_noise",
               lambda e, pid: e.f.get("comm") == f"jitinject/{CPU}" and
               e.num("pid") == pid),
}


class Shot:
    """One injection as jitmod saw it: its source's event and the gap
    that holds it, the injector's own late_ns, and the evidence that CPU 0
    ran inside the source's window (other_ran), if any."""

    def __init__(self, cls, d_us, src, gap, late):
        self.cls, self.d_ns, self.src, self.gap = cls, d_us * 1000, src, gap
        self.late, self.other = late, []

    def net(self):
        """The source's net time less its spin's overrun."""
        return self.src.ns("duration_ns") - self.late

    def hw(self):
        return self.gap.ns("hw_ns")

    def __repr__(self):
        return f"{self.cls} D={self.d_ns // 1000}us: {self.src} | {self.gap}"


def spun(evs, e, pid):
    """Whether the thread's run that e measured is its spin.  The injector
    thread also runs once on its CPU when it is made, and once more to
    exit when it is stopped; the spin is the run that ends in its park,
    asleep: the CPU's next switch away from it leaves it in state S."""
    out = next((x for x in evs[evs.index(e):] if x.name == "sched_switch"
                and x.f.get("prev_pid") == str(pid)), None)
    return out is not None and out.f.get("prev_state") == "S"


def window(inst, tag, cpu=CPU):
    """The events on cpu after marker tag and before the next marker."""
    evs = trace.windows(trace.parse(inst.text()), tag, cpu).get(tag)
    if evs is None:
        raise Fail(f"marker '{tag}' lost from the trace")
    return evs


def other_ran(others, src):
    """The evidence that another CPU ran inside src's window, as the
    trace's mono clock has it (a 1 us resolution, so the window is
    widened by one): it was not idle when the window opened (its last
    power:cpu_idle event before then was an exit, or there was none since
    the marker, which the writer on CPU 0 wrote), or it left idle inside.
    Under icount one host thread runs every vCPU in turn: while another
    runs, the sampled one runs nothing, and its open window grows by that
    time, which no probe on it can see: the emulator's steal."""
    end = src.ts + 1e-6
    start = src.ts - src.ns("duration_ns") / 1e9 - 1e-6
    idle = [e for e in others if e.name == "cpu_idle"]
    before = [e for e in idle if e.ts < start]
    if not before or before[-1].f.get("state") == IDLE_EXIT:
        return [before[-1] if before else "no idle entry since the marker"]
    return [e for e in idle if start <= e.ts <= end and
            e.f.get("state") == IDLE_EXIT]


def shoot(inst, cls, d_us, rep):
    """One injection between markers; its Shot."""
    field, ev_name, is_src = CLASSES[cls]
    tag = f"accuracy {cls} {d_us} {rep}"
    inst.clear()
    inst.marker(tag)
    injector.fire(cls, d_us)
    late = injector.late_ns()
    pid = int(sysio.read(f"{injector.PARAMS}/last_pid"))

    def srcs(evs):
        return [i for i, e in enumerate(evs)
                if e.name == ev_name and is_src(e, pid)]

    def settled():
        evs = window(inst, tag)
        got = srcs(evs)
        return bool(got) and any(e.name == "gap" for e in evs[got[-1]:])

    sysio.wait_for(settled, 10, step=0.05)
    inst.marker("accuracy done")
    evs = window(inst, tag)
    got = [evs[i] for i in srcs(evs)]
    if any(e.name == "summary" for e in evs):
        raise Fail(f"{tag}: crossed a period boundary, which the test's "
                   f"{PERIOD_US} us period should have kept out")
    if cls == "thread":
        got = [e for e in got if spun(evs, e, pid)]
    if len(got) != 1:
        raise Fail(f"{tag}: {len(got)} {ev_name} events from the source, "
                   f"want 1: {got[:4]}")
    gap = trace.gap_after(evs, got[0], field)
    if gap is None or gap.num(field) < 1:
        raise Fail(f"{tag}: no gap holds {got[0]}:\n" +
                   "\n".join(map(repr, evs[:12])))
    shot = Shot(cls, d_us, got[0], gap, late)
    shot.other = other_ran(window(inst, tag, cpu=0), got[0])
    return shot


def net_off(s, cost):
    """Why s's net time is not D + cost, or None when it is."""
    want = s.d_ns + cost
    room = s.d_ns * NET_PPM // 1000000 + NET_NS
    if abs(s.net() - want) <= room:
        return None
    return (f"net {s.net()} ns (less late {s.late}) != D + cost {want} ns "
            f"within {room} ns: {s}")


def check_gross(gap, what):
    """A gap's duration is the sum of what it was filed under, the
    classes' net times and hw_ns, within GROSS_NS; what names it in the
    failure."""
    parts = trace.class_ns(gap, trace.INTF) + gap.ns("hw_ns")
    if abs(gap.ns("duration_ns") - parts) > GROSS_NS:
        raise Fail(f"gross {gap.ns('duration_ns')} ns != classes + hw "
                   f"{parts} ns: {what}")


def judge(shots, cost):
    """Each shot's gap sums up and is filed right, and its net time is D
    plus the class's cost."""
    for s in shots:
        gap, field = s.gap, CLASSES[s.cls][0]
        check_gross(gap, s)
        # at D = 0 the class's own cost is all there is, and other work
        # in the same gap (on PREEMPT_RT the TIMER softirq's ktimers/N)
        # may have more net time: jitmod's rule decides
        want_cls = field if s.d_ns else trace.filing(gap)
        if gap.f["class"] != want_cls:
            raise Fail(f"filed as {gap.f['class']}, want {want_cls}: {s}")
        why = net_off(s, cost)
        if why:
            raise Fail(why)


def measure(inst, cls, d_us, rep, cost=None):
    """One shot, made again while its net time is off and CPU 0 ran
    inside its window (other_ran); with no cost yet, the first."""
    def once(_n):
        s = shoot(inst, cls, d_us, rep)
        why = net_off(s, cost) if cost is not None else None
        if why and s.other:
            raise jt.Again(f"CPU 0 ran inside the window ({s.other[0]}): "
                           f"{why}")
        return s
    return jt.attempts(once, ATTEMPTS, retry=(),
                       what=f"{cls} {d_us}us rep {rep}")


def run_class(inst, cls):
    """Every D for cls, D = 0 first; the costs it measured, logged."""
    injector.fire(cls, DURATIONS_US[-1])  # TCG translates its code once
    zero = [measure(inst, cls, 0, rep) for rep in range(REPS)]
    # another vCPU's run can only lengthen a window, never shorten it
    cost = min(s.net() for s in zero)
    shots = [s if not (s.other and net_off(s, cost))
             else measure(inst, cls, 0, rep, cost)
             for rep, s in enumerate(zero)]
    shots += [measure(inst, cls, d_us, rep, cost)
              for d_us in DURATIONS_US[1:] for rep in range(REPS)]
    for s in shots:
        log(f"{cls:8s} D={s.d_ns // 1000:5d}us net={s.net():9d}ns "
            f"late={s.late}ns gap={s.gap.ns('duration_ns')}ns "
            f"hw={s.hw()}ns class={s.gap.f['class']}")
    hw = round(statistics.median(s.hw() for s in shots[:REPS]))
    log(f"cost {cls}: {cost / 1000:.3f} us net of its spin (the least of "
        f"{REPS} at D = 0), and its gap's hw_ns {hw / 1000:.3f} us (their "
        "median)")
    judge(shots, cost)


def smi_shot(inst, rep):
    """One SMI to SMI_CPU from a timer on the writer's CPU; its gap."""
    tag = f"accuracy smi {rep}"
    inst.clear()
    inst.marker(tag)
    before = int(sysio.read(SMI_COUNT))
    injector.smi(1, SMI_SETTLE_S)

    def hits():
        return [e for e in window(inst, tag, SMI_CPU)
                if e.name == "gap" and e.num("smi")]

    sysio.wait_for(hits, 10, step=0.05)
    rose = int(sysio.read(SMI_COUNT)) - before
    if rose != 1:
        raise Fail(f"{tag}: MSR_SMI_COUNT rose by {rose} for one SMI")
    inst.marker("accuracy done")
    got = hits()
    if len(got) != 1 or got[0].num("smi") != 1:
        raise Fail(f"{tag}: {len(got)} gaps count the SMI, want one "
                   f"counting 1: {got[:4]}")
    gap = got[0]
    busy = [f for f in trace.INTF if gap.num(f)]
    if busy:
        # CPU 0 is the housekeeping CPU: its own tick can share the gap
        raise jt.Again(f"{tag}: the SMI's gap also holds {busy}: {gap}")
    return gap


def smi_gaps():
    """REPS SMIs' gaps, once the firmware's path is translated."""
    try:
        int(sysio.read(SMI_COUNT))
    except OSError as e:
        raise Skip(f"MSR_SMI_COUNT cannot be read on CPU {SMI_CPU}: "
                   f"{e}") from e
    with tracefs.Instance("accuracy-smi", clock="mono",
                          events=("jitmod",)) as inst:
        try:
            smi_shot(inst, "warm-up")
        except jt.Again:
            pass  # unjudged: its gap only has to have come
        return [jt.attempts(lambda _n, r=rep: smi_shot(inst, r), ATTEMPTS,
                            retry=(), what=f"smi rep {rep}")
                for rep in range(REPS)]


def run_smi():
    """REPS SMIs on SMI_CPU; each gap quiet, filed hw:smi, summing up;
    their lengths logged."""
    os.sched_setaffinity(0, {SMI_WRITER})
    kmod.insmod("jitmod", cpus=SMI_CPU, threshold_ns=THRESHOLD_NS,
                period_us=PERIOD_US, runtime_us=PERIOD_US)
    kmod.insmod("jitinject", cpu=SMI_CPU)
    try:
        gaps = smi_gaps()
    finally:
        kmod.rmmod("jitinject")
        kmod.rmmod("jitmod")
    lens = sorted(g.ns("duration_ns") for g in gaps)
    for g in gaps:
        log(f"smi      D=    0us gap={g.ns('duration_ns')}ns "
            f"hw={g.ns('hw_ns')}ns class={g.f['class']}")
    log(f"cost smi: {lens[0] / 1000:.3f} us, the SMM handler and CPU "
        f"{SMI_WRITER}'s run from its timer to the SMI (the least of "
        f"{REPS}; the most {lens[-1] / 1000:.3f} us)")
    for g in gaps:
        check_gross(g, g)
        if g.f["class"] != "hw:smi":
            raise Fail(f"a quiet gap with an SMI filed {g.f['class']}: {g}")


def body():
    if os.environ.get("JITVM_CLOCK") != "icount":
        raise Skip("needs deterministic time: a guest of python3 -m "
                   "jitpy.vm --clock icount")
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=THRESHOLD_NS,
                period_us=PERIOD_US, runtime_us=PERIOD_US)
    kmod.insmod("jitinject", cpu=CPU)
    cases = jt.Cases(len(CLASSES) + 1)
    with tracefs.Instance("accuracy", clock="mono",
                          events=("jitmod", "sched/sched_switch",
                                  "power/cpu_idle")) as inst:
        for cls in CLASSES:
            cases.run(cls, run_class, inst, cls)
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")
    cases.run("smi", run_smi)
    cases.finish()


if __name__ == "__main__":
    sys.exit(jt.run(body))
