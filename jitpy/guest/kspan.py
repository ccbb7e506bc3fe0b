# SPDX-License-Identifier: GPL-2.0
"""The kernel's own view of how long a noise source held a CPU, from its
own trace events (sched_switch, the irq_vectors and softirq pairs,
nmi_handler), for checks that jitmod never charges a source more than
the kernel saw it run.

Under TCG the host can stall a vCPU anywhere, including inside a source
after its timed work; such a source rightly gets more net time than it
asked for, and these spans tell that apart from a window jitmod never
closed or charged twice.

The spans are read on the 'mono' trace clock: the clocksource that the
injector spins by, where jitmod counts TSC cycles.  On the exit side the
event is stamped after jitmod's probe ran, which only widens the span;
on the entry side too, which narrows it by the cost of writing one event
(tens of us under TCG, where the clocksource may be the HPET).  TOL_NS
covers that and the trace's 1 us print resolution, TOL_PPM the two
clocks' rates.  A window charged twice still shows from D = 200 us up.
"""

import re

# the events that give the spans, for a tracefs.Instance
EVENTS = ("sched/sched_switch", "irq/softirq_entry", "irq/softirq_exit",
          "irq_vectors/local_timer_entry", "irq_vectors/local_timer_exit",
          "irq_vectors/call_function_single_entry",
          "irq_vectors/call_function_single_exit", "nmi/nmi_handler")
# the trace clock the spans are read on: the injector's own spin clock
CLOCK = "mono"
TOL_NS = 200000
TOL_PPM = 10000
NMI_DELTA = re.compile(r"delta_ns: (\d+)")


def tolerance(ns):
    """How far a net time may lie above a span of ns."""
    return TOL_NS + ns * TOL_PPM // 1000000


def _ns(a, b):
    """ns from event a to event b."""
    return round((b.ts - a.ts) * 1e9)


def _nearest(evs, i, pred):
    """The index of the event nearest to index i that pred accepts, the
    later one on a tie; None when there is none."""
    ks = [k for k, e in enumerate(evs) if pred(e)]
    return min(ks, key=lambda k: (abs(k - i), -k)) if ks else None


def _bounds(evs, src, leaves, enters):
    """The (entry, exit) events of the pair _pair measures, or None."""
    out = _nearest(evs, evs.index(src), leaves)
    if out is None:
        return None
    into = next((k for k in range(out - 1, -1, -1) if enters(evs[k])), None)
    return None if into is None else (evs[into], evs[out])


def _pair(evs, src, leaves, enters):
    """The span of the entry/exit pair that holds src (written by jitmod's
    probe on the exit's tracepoint, before or after the exit's own event):
    the event nearest src that leaves(e), back to the last one before it
    that enters(e).  None when either is missing."""
    pair = _bounds(evs, src, leaves, enters)
    return None if pair is None else _ns(*pair)


def _is(name, **fields):
    """A test of an event: named name, with each of fields as given."""
    return lambda e: e.name == name and all(
        e.f.get(k) == str(v) for k, v in fields.items())


def _run(evs, src, pid):
    """The sched_switch into pid and the one out of it, of the run that
    src (its thread_noise, written at its switch-out) closes; or None."""
    return _bounds(evs, src, _is("sched_switch", prev_pid=pid),
                   _is("sched_switch", next_pid=pid))


def thread(evs, src, pid):
    """How long pid held the CPU in the run that src closes: sched_switch
    in to sched_switch out."""
    run = _run(evs, src, pid)
    return None if run is None else _ns(*run)


def outside_softirq(evs, src, pid, vec):
    """How long pid held the CPU in the run that src closes (as thread())
    outside softirq vec: the run less its overlap with each softirq_entry
    to softirq_exit of vec.  On PREEMPT_RT the task that runs a softirq
    (ktimers/N, ksoftirqd/N) is charged only this much of its own."""
    run = _run(evs, src, pid)
    if run is None:
        return None
    t0, t1 = run[0].ts, run[1].ts
    inside, start = 0.0, None
    for e in evs:
        if e.name == "softirq_entry" and e.f.get("vec") == str(vec):
            start = e.ts
        elif e.name == "softirq_exit" and e.f.get("vec") == str(vec) \
                and start is not None:
            inside += max(0.0, min(e.ts, t1) - max(start, t0))
            start = None
    return round((t1 - t0 - inside) * 1e9)


def vector(evs, src, name):
    """How long the system vector name (local_timer, ...) ran: its
    irq_vectors entry to its exit."""
    return _pair(evs, src, _is(f"{name}_exit"), _is(f"{name}_entry"))


def softirq(evs, src, vec):
    """How long softirq vec ran, from softirq_entry to softirq_exit; on
    PREEMPT_RT that includes any time its task was preempted."""
    return _pair(evs, src, _is("softirq_exit", vec=vec),
                 _is("softirq_entry", vec=vec))


def nmi(evs, src, handler):
    """How long the NMI handler named handler held the CPU, from the start
    of the handler before it in the same NMI (jitmod's own, which marks
    the arrival) to handler's nmi_handler event; its own delta_ns when
    none came before it."""
    k = _nearest(evs, evs.index(src), lambda e: e.name == "nmi_handler"
                 and e.body.startswith(handler))
    if k is None:
        return None
    own = NMI_DELTA.search(evs[k].body)
    if own is None:
        return None
    j = next((j for j in range(k - 1, -1, -1) if evs[j].name != src.name),
             None)
    m = NMI_DELTA.search(evs[j].body) if j is not None and \
        evs[j].name == "nmi_handler" else None
    if m is None:
        return int(own[1])
    return _ns(evs[j], evs[k]) + int(m[1])
