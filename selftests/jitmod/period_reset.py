#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A softirq still running when a period ends does not blind jitmod.

On PREEMPT_RT a tasklet runs in ksoftirqd/N, a SCHED_OTHER task, so the
SCHED_OTHER sampler preempts it in the middle: with TASKLETS tasklets of
TASKLET_US each against 40 ms periods, some start while the sampler
samples and end while it sleeps, so their exit is never seen.  Then the
sampler runs nearly all of each period and the TIMER softirq is injected
INJECTIONS times: its events must still come, which needs every window
reset at the start of a period.  On other kernels softirqs cannot be
preempted, so no window can stay open across a period's end; the test
runs the same steps there and only checks that the events still come.
"""

import sys
import time

import jittest as jt

CPU = 1
TASKLETS = 10
TASKLET_US = 100000
D_US = 1000
INJECTIONS = 6
MIN_SEEN = 4


def rt_kernel():
    try:
        return jt.read("/sys/kernel/realtime") == "1"
    except OSError:
        return False


def body():
    if not rt_kernel():
        jt.log("not PREEMPT_RT: softirqs are not preemptible here, so a "
               "window cannot straddle a period; checking the events only")
    jt.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=40000,
              runtime_us=20000)
    jt.insmod("jitinject", cpu=CPU)
    for _ in range(TASKLETS):
        jt.inject("tasklet", TASKLET_US)
    # almost all of each period sampled, so every injection lands in one
    jt.write(f"{jt.JIT_PARAMS}/period_us", 200000)
    jt.write(f"{jt.JIT_PARAMS}/runtime_us", 199000)
    time.sleep(0.3)
    with jt.Instance("preset", events=("jitmod/softirq_noise",)) as inst:
        for _ in range(INJECTIONS):
            jt.inject("softirq", D_US)
        time.sleep(0.3)
        evs = jt.parse_trace(inst.text())
    jt.rmmod("jitinject")
    jt.rmmod("jitmod")
    floor = D_US * 1000 // 2
    seen = [e for e in evs if e.cpu == CPU and "[TIMER]" in e.body and
            e.ns("duration_ns") >= floor]
    jt.log(f"{len(seen)} of {INJECTIONS} injected TIMER softirqs seen "
           f"after {TASKLETS} tasklets of {TASKLET_US} us")
    if len(seen) < MIN_SEEN:
        raise jt.Fail(f"only {len(seen)} TIMER softirqs of >= {floor} ns "
                      f"on CPU {CPU} after the tasklets (want {MIN_SEEN}); "
                      f"{len(evs)} softirq events in all")


if __name__ == "__main__":
    sys.exit(jt.run(body))
