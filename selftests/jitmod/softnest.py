#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Two tasks in softirq processing on one CPU, each charged its own.

The injector's softnest class (D = 4000 us) runs a TIMER softirq that
spins D/4, wakes a SCHED_FIFO thread on the sampled CPU and spins D/4
more; the thread queues a tasklet that spins D/2 and runs it at its own
local_bh_enable().  On a PREEMPT_RT kernel without a BH lock (7.x) the
thread preempts ktimers/N inside the TIMER softirq and runs the TASKLET
softirq while that one is still open; with a BH lock (6.1-rt) it waits
for the TIMER softirq to end; elsewhere it runs after it.

Either way jitmod must write a TIMER and a TASKLET softirq_noise event on
the CPU, each at least D/4, and charge the thread's run that holds the
tasklet (the run whose event's time is nearest the TASKLET's) at most
D/4 more than its own time around the tasklet, as the injector's clock
saw it (own_ns: a host stall of the vCPU there is in both).  A TASKLET
softirq counted inside the paused TIMER window leaves no TASKLET event
and its time on the thread; one also charged to the thread adds its D/2.
A rep whose thread was charged more is made again (up to 3 times) when
the TASKLET event is there: under TCG a host stall can still land where
the injector's clock does not look, as the thread is switched in or out.
"""

import os
import sys

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
D_US = 4000
VEC_TIMER, VEC_TASKLET = "1", "6"
ATTEMPTS = 3


def one(inst, n):
    """One softnest injection, judged; Again when the thread was charged
    more than D/4 (the emulator stalled it)."""
    tag = f"softnest {n}"
    quarter = D_US * 250
    inst.clear()
    inst.marker(tag)
    injector.fire("softnest", D_US)
    pid = int(sysio.read(f"{injector.PARAMS}/last_pid"))
    own = int(sysio.read(f"{injector.PARAMS}/own_ns"))

    def softirqs():
        """{vec: its longest softirq_noise}, and the events: the tick's
        own TIMER softirqs come and go around the injected one."""
        evs = trace.windows(trace.parse(inst.text()), tag, CPU).get(tag, [])
        got = {}
        for e in evs:
            vec = e.f.get("vec")
            if e.name == "softirq_noise" and vec in (VEC_TIMER, VEC_TASKLET):
                got[vec] = max(got.get(vec, 0), e.ns("duration_ns"))
        return got, evs

    def both():
        got = softirqs()[0]
        return len(got) == 2 and min(got.values()) >= quarter

    sysio.wait_for(both, 5, step=0.05)
    got, evs = softirqs()
    runs = [e for e in evs
            if e.name == "thread_noise" and e.num("pid") == pid]
    tasklet = max((e for e in evs if e.name == "softirq_noise" and
                   e.f.get("vec") == VEC_TASKLET),
                  key=lambda e: e.ns("duration_ns"), default=None)
    # the run that held the tasklet: its events are written together
    held = min(runs, key=lambda e: abs(e.ts - tasklet.ts),
               default=None) if tasklet else None
    thread = held.ns("duration_ns") if held else 0
    runs = [e.ns("duration_ns") for e in runs]
    log(f"rep {n}: TIMER {got.get(VEC_TIMER)} ns, TASKLET "
        f"{got.get(VEC_TASKLET)} ns, jitinject/{CPU}[{pid}] runs {runs} "
        f"ns, own {own} ns")
    for vec, name in ((VEC_TIMER, "TIMER"), (VEC_TASKLET, "TASKLET")):
        if got.get(vec, 0) < quarter:
            raise Fail(f"no {name} softirq_noise of {quarter} ns or more "
                       f"on CPU {CPU}: {got}; thread {thread} ns")
    if thread > own + quarter:
        raise jt.Again(f"the thread was charged {thread} ns > {own} + "
                       f"{quarter}")


def body():
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=1000000,
                runtime_us=1000000)
    kmod.insmod("jitinject", cpu=CPU)
    log(f"kernel {os.uname().release}, {os.uname().version}")
    with tracefs.Instance("softnest", events=("jitmod",)) as inst:
        injector.fire("softnest", 100)  # TCG translates the code once
        jt.attempts(lambda n: one(inst, n), ATTEMPTS, retry=(),
                    what="softnest rep")
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")


if __name__ == "__main__":
    sys.exit(jt.run(body))
