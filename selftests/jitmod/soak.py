#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A minute of sampling under a steady mix of injected noise.

Passes if the periods kept reporting (at least 80 % of the nominal one
summary per period: the sampler's sleep is relative, so each period runs
a little long, 238 of 240 in two minutes on the icount clock and about
219 on the host's), no summary counted a measurement anomaly, no stop
condition fired, the sampler thread stayed alive, every injection ran
(injector.fire fails otherwise), and the kernel log has no warning,
stall, lockup or hung task (jittest.run checks the log).  SOAK_S sets
the length (default 60 s): make check's is a minute, a longer soak is
SOAK_S=3600 in a guest of its own.
"""

import os
import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
SOAK_S = int(os.environ.get("SOAK_S", "60"))
PERIOD_US = 500000


def body():
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=5000, period_us=PERIOD_US,
                runtime_us=PERIOD_US * 9 // 10)
    kmod.insmod("jitinject", cpu=CPU)
    summaries = injections = 0
    anomalous = []
    events = ("jitmod/summary", "jitmod/stop")
    with tracefs.Instance("soak", events=events) as inst:
        end = time.monotonic() + SOAK_S
        n = 0
        while time.monotonic() < end:
            cls = ("hrtimer", "ipi", "softirq", "nmi", "thread")[n % 5]
            injector.fire(cls, (50, 500, 2000)[n % 3])
            injections += 1
            n += 1
            time.sleep(0.1)
            if n % 50 == 0:
                evs = trace.parse(inst.text())
                inst.clear()
                summaries += sum(e.name == "summary" for e in evs)
                anomalous += [e for e in evs if e.name == "summary" and
                              int(e.f.get("anomalies", 0))]
                if any(e.name == "stop" for e in evs):
                    raise Fail("a stop condition fired without limits")
        evs = trace.parse(inst.text())
        summaries += sum(e.name == "summary" for e in evs)
        anomalous += [e for e in evs if e.name == "summary" and
                      int(e.f.get("anomalies", 0))]
    alive = "1" == sysio.read(f"{kmod.JIT_PARAMS}/enable")
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")
    want = SOAK_S * 1000000 // PERIOD_US * 8 // 10
    log(f"{SOAK_S} s: {summaries} summaries, {injections} injections")
    if not alive:
        raise Fail("sampling stopped during the soak")
    if anomalous:
        raise Fail(f"{len(anomalous)} summaries counted anomalies: "
                   f"{anomalous[0]}")
    if summaries < want:
        raise Fail(f"{summaries} summaries in {SOAK_S} s, want >= {want}")


if __name__ == "__main__":
    sys.exit(jt.run(body))
