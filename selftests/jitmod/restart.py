#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Restarts: a failed one is visible, and none waits behind FIFO samplers.

 - enable reads 0 when a restart failed: with kernel.threads-max at 1 no
   sampler kthread can be created, so writing enable=1 fails, and enable
   must not claim that jitmod samples; with the limit back, enable=1
   starts it;
 - a parameter write that restarts the samplers (cpus; a duty setting
   restarts nothing) and rmmod return within LIMIT_S while SCHED_FIFO
   samplers are in the middle of a 10 s runtime, with RT throttling off so
   nothing else gets the sampled CPU: the CPU-hotplug teardown that stops
   a sampler runs in a SCHED_OTHER thread on that CPU.
"""

import sys
import time

import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
LIMIT_S = 3
RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
THREADS_MAX = "/proc/sys/kernel/threads-max"


def failed_restart():
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=100000,
                runtime_us=50000)
    enable = f"{kmod.JIT_PARAMS}/enable"
    sysio.write(enable, 0)
    old = sysio.read(THREADS_MAX)
    sysio.write(THREADS_MAX, 1)
    try:
        sysio.write(enable, 1)
        failed = None
    except OSError as e:
        failed = e.strerror
    finally:
        sysio.write(THREADS_MAX, old)
    if failed is None:
        raise Fail("enable=1 succeeded with threads-max at 1")
    log(f"enable=1 with threads-max at 1: {failed}")
    if sysio.read(enable) != "0":
        raise Fail(f"enable reads {sysio.read(enable)} after a failed "
                   "restart; nothing samples")
    sysio.write(enable, 1)
    if sysio.read(enable) != "1":
        raise Fail("enable does not read 1 after a good restart")
    kmod.rmmod("jitmod")


def timed(what, fn):
    t0 = time.monotonic()
    fn()
    took = time.monotonic() - t0
    log(f"{what} with a SCHED_FIFO sampler mid-runtime: {took:.2f} s")
    if took > LIMIT_S:
        raise Fail(f"{what} waited {took:.1f} s behind the sampler")


def fifo_samplers():
    old = sysio.read(RT_RUNTIME)
    sysio.write(RT_RUNTIME, -1)
    try:
        kmod.insmod("jitmod", cpus=CPU, prio=50, period_us=10000000,
                    runtime_us=9900000, threshold_ns=10000)
        time.sleep(0.5)
        timed("a restarting parameter write",
              lambda: sysio.write(f"{kmod.JIT_PARAMS}/cpus", CPU))
        time.sleep(0.5)
        timed("rmmod", lambda: kmod.rmmod("jitmod"))
    finally:
        sysio.write(RT_RUNTIME, old)


PARTS = {"failed": failed_restart, "fifo": fifo_samplers}


def body():
    """Every part, or those named on the command line."""
    for name in sys.argv[1:] or PARTS:
        PARTS[name]()


if __name__ == "__main__":
    sys.exit(jt.run(body))
