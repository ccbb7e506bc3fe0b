#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sampling a nohz_full CPU does not hold up RCU grace periods.

With the tick stopped on a CPU whose only task is a busy kernel thread,
preemptible RCU sees no quiescent state there until it forces one, so
every synchronize_rcu() waits.  The injector's sync_rcu_ns times one from
CPU 0.  The median of READS while jitmod samples CPU 1 for the whole
period must stay within FACTOR times the median with nothing sampling.
"""

import os
import statistics
import sys

import jittest as jt
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, Skip, log

CPU = 1
READS = 20
FACTOR = 3


def cpu_in_list(cpu, text):
    """cpu is in a cpulist such as '1-3,5'."""
    for part in filter(None, text.strip().split(",")):
        lo, _, hi = part.partition("-")
        if lo.isdigit() and int(lo) <= cpu <= int(hi or lo):
            return True
    return False


def median_ms():
    path = f"{injector.PARAMS}/sync_rcu_ns"
    return statistics.median(int(sysio.read(path)) for _ in range(READS)) / 1e6


def body():
    try:
        nohz = sysio.read("/sys/devices/system/cpu/nohz_full")
    except OSError:
        nohz = ""
    if not cpu_in_list(CPU, nohz):
        raise Skip(f"CPU {CPU} is not nohz_full, so its tick reports "
                   "RCU quiescent states and sampling cannot delay "
                   "grace periods")
    os.sched_setaffinity(0, {0})
    kmod.insmod("jitinject", cpu=CPU)
    idle = median_ms()
    kmod.insmod("jitmod", cpus=CPU, period_us=1000000, runtime_us=1000000)
    sampling = median_ms()
    kmod.rmmod("jitmod")
    kmod.rmmod("jitinject")
    log(f"synchronize_rcu() from CPU 0, median of {READS}: {idle:.1f} ms "
        f"idle, {sampling:.1f} ms while CPU {CPU} (nohz_full={nohz}) "
        "samples")
    if sampling > FACTOR * idle:
        raise Fail(f"grace periods took {sampling:.1f} ms while "
                   f"sampling, over {FACTOR}x the {idle:.1f} ms idle")


if __name__ == "__main__":
    sys.exit(jt.run(body))
