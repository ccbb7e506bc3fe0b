#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rmmod at awkward moments, and 20 load/unload cycles under injection.

 - rmmod while a reader has the jitmod events enabled in its instance and
   is blocked in trace_pipe succeeds (ftrace drops a module's events on
   unload; enabled events hold no module reference), the events leave the
   instance, the reader is not wedged, and a reload brings them back;
 - rmmod in the middle of a 30 s runtime returns within RMMOD_LIMIT_S:
   the sampler polls for kthread_stop() instead of finishing its period;
 - 20 insmod/rmmod cycles while the injector keeps hitting the sampled
   CPU with every class, leaving no sampler thread behind.
"""

import os
import subprocess
import sys
import threading
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
CYCLES = 20
RMMOD_LIMIT_S = 5
SUMMARY = ("jitmod/summary",)


def rmmod_under_reader():
    # Summaries only, at a 10 us threshold: at the default 1 us, TCG's
    # own hiccups flood the buffer with gaps and the reader lags seconds.
    kmod.insmod("jitmod", cpus=CPU, period_us=200000, runtime_us=100000,
                threshold_ns=10000)
    with tracefs.Instance("lifecycle", events=SUMMARY) as inst:
        out = os.path.join("/tmp", f"jitmod-pipe-{os.getpid()}")
        with open(out, "w") as f:
            reader = subprocess.Popen(["cat", f"{inst.path}/trace_pipe"],
                                      stdout=f)
        try:
            if not sysio.wait_for(lambda: "summary:" in sysio.read(out), 30):
                jt.diagnose(CPU)
                raise Fail("the trace_pipe reader saw no summary")
            t0 = time.monotonic()
            kmod.rmmod("jitmod")
            log(f"rmmod under a trace_pipe reader: "
                f"{time.monotonic() - t0:.2f} s")
            if os.path.exists(f"{inst.path}/events/jitmod"):
                raise Fail("jitmod events still in the instance")
            if reader.poll() is not None and reader.returncode != 0:
                raise Fail(f"reader died with {reader.returncode}")
        finally:
            reader.kill()
            reader.wait()
            os.unlink(out)
    kmod.insmod("jitmod", cpus=CPU, period_us=200000, runtime_us=100000,
                threshold_ns=10000)
    with tracefs.Instance("lifecycle2", events=SUMMARY) as inst:
        if not sysio.wait_for(lambda: "summary:" in inst.text(), 30):
            jt.diagnose(CPU)
            raise Fail("no summary after reloading")
    kmod.rmmod("jitmod")


def rmmod_mid_runtime():
    kmod.insmod("jitmod", cpus=CPU, period_us=30000000, runtime_us=30000000)
    time.sleep(1)
    t0 = time.monotonic()
    kmod.rmmod("jitmod")
    took = time.monotonic() - t0
    log(f"rmmod 1 s into a 30 s runtime took {took:.2f} s")
    if took > RMMOD_LIMIT_S:
        raise Fail(f"rmmod waited {took:.1f} s for the sampler")


def cycles_under_injection():
    kmod.insmod("jitinject", cpu=CPU)
    stop = threading.Event()
    errors = []

    def inject_loop():
        n = 0
        while not stop.is_set():
            cls = ("hrtimer", "ipi", "softirq", "nmi", "thread")[n % 5]
            try:
                injector.fire(cls, 100)
            except OSError as e:
                errors.append(f"{cls}: {e}")
                return
            n += 1

    th = threading.Thread(target=inject_loop, daemon=True)
    th.start()
    try:
        for i in range(CYCLES):
            kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000,
                        period_us=100000, runtime_us=50000)
            time.sleep(0.2 + 0.05 * (i % 4))
            kmod.rmmod("jitmod")
            left = [p for p in os.listdir("/proc") if p.isdigit() and
                    _comm(p).startswith("jitmod/")]
            if left:
                raise Fail(f"cycle {i}: sampler threads left: {left}")
    finally:
        stop.set()
        th.join(sysio.CMD_TIMEOUT_S)
        if th.is_alive():
            sysio.dump_blocked_tasks()
            raise Fail("an injection hung; blocked tasks are in the "
                       "kernel log")
    if errors:
        raise Fail(f"injector failed: {errors[0]}")
    log(f"{CYCLES} load/unload cycles under injection")
    kmod.rmmod("jitinject")


def _comm(pid):
    try:
        return sysio.read(f"/proc/{pid}/comm")
    except OSError:
        return ""


def body():
    rmmod_under_reader()
    rmmod_mid_runtime()
    cycles_under_injection()


if __name__ == "__main__":
    sys.exit(jt.run(body))
