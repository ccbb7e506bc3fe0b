#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""irqs_off: interrupts wait for the window's end and are counted there;
NMIs still come through as gaps of their own.

jitmod samples CPU 1 with interrupts off for 900 ms of every second,
while the injector sends it, in turn, an IPI (smp_call_function_single,
which returns once the function ran: at a window's end, if it came in
one) and, 150 ms later, inside the next window, an NMI that spins NMI_US.
So:
 - every summary says irqs_off=1;
 - no gap on CPU 1 holds an irq, softirq or thread: none can run while
   interrupts are off;
 - an IPI sent in a window waits for its end (its write takes HELD_MS or
   more), and the summaries' held counts add up to at least those;
 - each NMI in a window is a gap of class nmi, charged to jinj_nmi.
With irqs_off=0 the same IPIs are gaps of class irq: the test sees the
difference the mode makes.
"""

import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
PERIOD_US = 1000000
RUNTIME_US = 900000
ROUNDS = 8
IPI_US = 50
NMI_US = 200
# an IPI whose write took this long waited for a window's end
HELD_MS = 50
ATTEMPTS = 3


def fire(n):
    """n rounds of an IPI and an NMI; the IPIs' times to run, in s."""
    took = []
    for _ in range(n):
        t0 = time.monotonic()
        injector.fire("ipi", IPI_US)
        took.append(time.monotonic() - t0)
        time.sleep(0.15)
        injector.fire("nmi", NMI_US)
        time.sleep(0.05)
    return took


def capture(irqs_off):
    """One load: (the IPIs' times, CPU 1's events)."""
    kmod.insmod("jitinject", cpu=CPU)
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=5000, irqs_off=irqs_off,
                period_us=PERIOD_US, runtime_us=RUNTIME_US)
    with tracefs.Instance("hwnoise") as inst:
        if not sysio.wait_for(lambda: "summary:" in inst.text(), 30):
            jt.diagnose(CPU)
            raise Fail("no summary within 30 s of enabling the events")
        took = fire(ROUNDS)
        time.sleep(PERIOD_US / 1e6 + 0.2)
        events = trace.parse(inst.text())
    kmod.unload()
    return took, [e for e in events if e.cpu == CPU]


def check_off(took, evs):
    sums = [e for e in evs if e.name == "summary"]
    gaps = [e for e in evs if e.name == "gap"]
    if not sums or any(s.f.get("irqs_off") != "1" for s in sums):
        raise Fail(f"summaries without irqs_off=1: {sums[:2]}")
    leaked = [g for g in gaps if any(g.num(k) for k in
                                     ("irq", "softirq", "thread"))]
    if leaked:
        raise Fail(f"{len(leaked)} gaps with interrupts on: {leaked[:2]}")
    held_ipis = sum(t >= HELD_MS / 1e3 for t in took)
    held = sum(int(s.f["held"]) for s in sums)
    log(f"IPIs that waited for a window's end: {held_ipis} of {len(took)} "
        f"(longest {max(took) * 1e3:.0f} ms); held in summaries: {held}")
    if not held_ipis:
        raise jt.Again("no IPI landed in a window")
    if held < held_ipis:
        raise Fail(f"summaries count {held} held, {held_ipis} IPIs waited")
    nmis = [g for g in gaps if g.num("nmi")]
    named = [e for e in evs if e.name == "nmi_noise" and
             "jinj_nmi" in e.f.get("handler", "")]
    log(f"gaps with an NMI: {len(nmis)}, jinj_nmi events: {len(named)}")
    if len(named) < len(took) // 2 or len(nmis) < len(named):
        raise Fail(f"{len(named)} jinj_nmi events for {len(took)} NMIs "
                   f"sent, {len(nmis)} NMI gaps")
    if any(g.f["class"] != "nmi" for g in nmis):
        raise Fail(f"an NMI gap not filed nmi: {nmis}")


def check_on(took, evs):
    irq = [g for g in evs if g.name == "gap" and g.f["class"] == "irq"]
    if not irq:
        raise Fail("with irqs_off=0, no gap of class irq")
    log(f"irqs_off=0: {len(irq)} irq gaps, IPIs took at most "
        f"{max(took) * 1e3:.1f} ms")


def body():
    jt.attempts(lambda _i: check_off(*capture(1)), ATTEMPTS,
                after_fail=kmod.unload, retry=(), what="irqs_off=1")
    check_on(*capture(0))


if __name__ == "__main__":
    sys.exit(jt.run(body))
