#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A softirq still open when a period ends does not blind jitmod.

On PREEMPT_RT a softirq runs in a task and can block: the injector's
softlock class makes the TIMER callback sleep HOLD_US on a spinlock_t
whose owner is preempted on another CPU.  The SCHED_OTHER sampler takes
the CPU meanwhile, with the softirq's window open, until its period ends;
its wakeup is then a soft hrtimer, which cannot fire while the blocked
softirq holds the CPU's softirq lock, so the softirq exits while the
sampler sleeps and the exit is never seen.  After ATTEMPTS such
injections the TIMER softirq is injected INJECTIONS times, and its events
must still come: that needs every window reset when a period starts.  On
other kernels a softirq cannot block, so no period can end inside one;
the test runs the same steps there and only checks that the events come.
"""

import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
HOLD_US = 300000
ATTEMPTS = 3
D_US = 1000
INJECTIONS = 6
MIN_SEEN = 4
MARK = "period_reset: injecting TIMER"


def body():
    if not kmod.rt_kernel():
        log("not PREEMPT_RT: a softirq cannot block here, so no period "
            "can end inside one; checking the events only")
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=100000,
                runtime_us=90000)
    kmod.insmod("jitinject", cpu=CPU)
    for _ in range(ATTEMPTS):
        injector.fire("softlock", HOLD_US)
    # almost all of each period sampled, so every injection lands in one
    sysio.write(f"{kmod.JIT_PARAMS}/period_us", 200000)
    sysio.write(f"{kmod.JIT_PARAMS}/runtime_us", 199000)
    # in force from the next period, which starts within the old one
    time.sleep(0.2)
    with tracefs.Instance("preset", events=("jitmod/softirq_noise",)) as inst:
        inst.marker(MARK)
        for _ in range(INJECTIONS):
            injector.fire("softirq", D_US)
        time.sleep(0.3)
        text = inst.text()
        evs = trace.parse(text[text.index(MARK):])
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")
    floor = D_US * 1000 // 2
    seen = [e for e in evs if e.cpu == CPU and "[TIMER]" in e.body and
            e.ns("duration_ns") >= floor]
    log(f"{len(seen)} of {INJECTIONS} injected TIMER softirqs seen "
        f"after {ATTEMPTS} softirqs of {HOLD_US} us blocked on a lock")
    if len(seen) < MIN_SEEN:
        raise Fail(f"only {len(seen)} TIMER softirqs of >= {floor} ns "
                   f"on CPU {CPU} after the blocked ones (want "
                   f"{MIN_SEEN}); {len(evs)} softirq events in all")


if __name__ == "__main__":
    sys.exit(jt.run(body))
