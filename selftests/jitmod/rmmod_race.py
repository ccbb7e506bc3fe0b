#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A parameter write racing rmmod leaves nothing of jitmod behind.

A write to a parameter file holds no module reference, and module_exit()
runs while the files still exist, so a writer can be inside jitmod's
restart while rmmod tears the module down.  Each of ROUNDS rounds loads
jitmod, starts a shell loop writing cpus (a restart) and threshold_ns (a
duty setting, published without one), and unloads it after a short,
varied delay (20 to 140 ms).  After each round no jitmod thread,
parameter file or symbol may remain.  Then every injector class hits the
sampled CPU: a probe, NMI handler or queued cross-CPU call left in the
freed module would run there and oops, which the kernel-log check
catches.  RMMOD_ROUNDS sets the number of rounds (default 60: each of
the five delays a dozen times).  Over a minute under TCG: each round
loads and unloads jitmod, about 1.7 s.
"""

import os
import subprocess
import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
ROUNDS = int(os.environ.get("RMMOD_ROUNDS", "60"))
WRITER = ("while :; do echo 2000 > {p}/threshold_ns; "
          f"echo {CPU} > {{p}}/cpus; done 2>/dev/null")


def leftovers():
    """What of jitmod is still in the kernel, as a list of strings."""
    left = []
    if os.path.exists("/sys/module/jitmod"):
        left.append("/sys/module/jitmod")
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if sysio.read(f"/proc/{pid}/comm").startswith("jitmod/"):
                left.append(f"thread {pid}")
        except OSError:
            continue
    # one search of the whole text: a loop over its lines takes longer
    # under TCG than the kernel takes to write them
    with open("/proc/kallsyms") as f:
        if "\t[jitmod]\n" in f.read():
            left.append("symbols in /proc/kallsyms")
    return left


def one_round(i):
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=20000,
                runtime_us=10000)
    writer = subprocess.Popen(["sh", "-c", WRITER.format(p=kmod.JIT_PARAMS)])
    try:
        time.sleep(0.02 + 0.03 * (i % 5))
        kmod.rmmod("jitmod")
    finally:
        writer.kill()
        writer.wait()
    left = leftovers()
    if left:
        raise Fail(f"round {i}: left after rmmod: {', '.join(left)}")


def body():
    t0 = time.monotonic()
    for i in range(ROUNDS):
        one_round(i)
    log(f"{ROUNDS} rounds of rmmod under parameter writes in "
        f"{time.monotonic() - t0:.1f} s")
    kmod.insmod("jitinject", cpu=CPU)
    for cls in ("hrtimer", "ipi", "softirq", "nmi", "thread"):
        injector.fire(cls, 100)
    log("every injector class ran on the CPU after the last rmmod")
    kmod.rmmod("jitinject")


if __name__ == "__main__":
    sys.exit(jt.run(body))
