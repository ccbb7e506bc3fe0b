#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Restarts: a failed one is visible, and none waits behind FIFO samplers.

 - enable reads 0 when a restart failed: with kernel.threads-max at 1 no
   sampler kthread can be created, so writing enable=1 fails, and enable
   must not claim that jitmod samples; with the limit back, enable=1
   starts it;
 - a parameter write and rmmod return within LIMIT_S while SCHED_FIFO
   samplers are in the middle of a 10 s runtime, with RT throttling off so
   nothing else gets the sampled CPU: the CPU-hotplug teardown that stops
   a sampler runs in a SCHED_OTHER thread on that CPU.
"""

import sys
import time

import jittest as jt

CPU = 1
LIMIT_S = 3
RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
THREADS_MAX = "/proc/sys/kernel/threads-max"


def failed_restart():
    jt.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=100000,
              runtime_us=50000)
    enable = f"{jt.JIT_PARAMS}/enable"
    jt.write(enable, 0)
    old = jt.read(THREADS_MAX)
    jt.write(THREADS_MAX, 1)
    try:
        jt.write(enable, 1)
        failed = None
    except OSError as e:
        failed = e.strerror
    finally:
        jt.write(THREADS_MAX, old)
    if failed is None:
        raise jt.Fail("enable=1 succeeded with threads-max at 1")
    jt.log(f"enable=1 with threads-max at 1: {failed}")
    if jt.read(enable) != "0":
        raise jt.Fail(f"enable reads {jt.read(enable)} after a failed "
                      "restart; nothing samples")
    jt.write(enable, 1)
    if jt.read(enable) != "1":
        raise jt.Fail("enable does not read 1 after a good restart")
    jt.rmmod("jitmod")


def timed(what, fn):
    t0 = time.monotonic()
    fn()
    took = time.monotonic() - t0
    jt.log(f"{what} with a SCHED_FIFO sampler mid-runtime: {took:.2f} s")
    if took > LIMIT_S:
        raise jt.Fail(f"{what} waited {took:.1f} s behind the sampler")


def fifo_samplers():
    old = jt.read(RT_RUNTIME)
    jt.write(RT_RUNTIME, -1)
    try:
        jt.insmod("jitmod", cpus=CPU, prio=50, period_us=10000000,
                  runtime_us=9900000, threshold_ns=10000)
        time.sleep(0.5)
        timed("a parameter write",
              lambda: jt.write(f"{jt.JIT_PARAMS}/threshold_ns", 20000))
        time.sleep(0.5)
        timed("rmmod", lambda: jt.rmmod("jitmod"))
    finally:
        jt.write(RT_RUNTIME, old)


PARTS = {"failed": failed_restart, "fifo": fifo_samplers}


def body():
    """Every part, or those named on the command line."""
    for name in sys.argv[1:] or PARTS:
        PARTS[name]()


if __name__ == "__main__":
    sys.exit(jt.run(body))
