#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""NMIs that land inside jitmod's probes break no window.

cyclictest's SCHED_FIFO thread wakes every INTERVAL_US on the sampled CPU,
so sched_switch runs there at a high rate and each of its thread windows
is short, while the injector's NMIs, each spinning NMI_US, hit the same
CPU for STORM_S.  An NMI that lands in a probe between its clock read and
its use of a window's start pushes that start past the clock: unless the
probe reads both as of one instant, that is a window pushed past its end,
counted as an anomaly, never a WARN.  So:
 - every summary reports 0 anomalies, and the kernel log has no WARN;
 - in every gap, the classes' net times add up to no more than the gap,
   so the NMIs' time is not also charged to the thread they interrupted.
A storm that left no summary, or no gap with both an NMI and a thread,
judged nothing: it is logged with the buffer's state and made again, up
to ATTEMPTS times.  A broken window fails at once.
"""

import collections
import glob
import signal
import subprocess
import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
INTERVAL_US = 50
NMI_US = 200
STORM_S = 3
SLACK_NS = 1000
ATTEMPTS = 3


def storm():
    """NMIs at CPU for STORM_S; the number sent."""
    n = 0
    end = time.monotonic() + STORM_S
    while time.monotonic() < end:
        injector.fire("nmi", NMI_US)
        n += 1
    return n


def fifo_thread_on(pid, cpu):
    """Whether a SCHED_FIFO thread of pid last ran on cpu: cyclictest's
    measuring thread is at work there."""
    for stat in glob.glob(f"/proc/{pid}/task/*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is stat's field 3; processor is 39, policy 41
        if int(fields[36]) == cpu and int(fields[38]) == 1:
            return True
    return False


def capture():
    """One load and storm: (NMIs sent, CPU's events, CPU's buffer
    stats in the instance)."""
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=5000, period_us=200000,
                runtime_us=190000)
    kmod.insmod("jitinject", cpu=CPU)
    with tracefs.Instance("nmiwin") as inst:
        # sampling must be under way first: enabling the events patches
        # kernel text, after which QEMU's TCG can stall a vCPU until the
        # runner's watch frees it
        if not sysio.wait_for(lambda: "summary:" in inst.text(), 30):
            jt.diagnose(CPU)
            raise Fail("no summary within 30 s of enabling the events")
        # -D only bounds cyclictest: it is stopped once the storm is over,
        # and the storm starts once its thread runs on CPU, however long
        # a loaded TCG host took to start it
        t0 = time.monotonic()
        cyc = subprocess.Popen(
            ["cyclictest", "-q", "-m", "-t", "1", "-a", str(CPU), "-p", "50",
             "-i", str(INTERVAL_US), "-D", str(STORM_S * 10)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            if not sysio.wait_for(lambda: fifo_thread_on(cyc.pid, CPU), 30):
                raise Fail(f"cyclictest's thread is not on CPU {CPU} "
                           "within 30 s")
            log(f"cyclictest on CPU {CPU} after "
                f"{time.monotonic() - t0:.1f} s")
            sent = storm()
            if cyc.poll() is not None:
                raise Fail(f"cyclictest ended during the storm: exit "
                           f"{cyc.returncode}")
        finally:
            cyc.send_signal(signal.SIGINT)
            cyc.wait(sysio.CMD_TIMEOUT_S)
        time.sleep(0.5)
        text = inst.text()
        evs = [e for e in trace.parse(text) if e.cpu == CPU]
        log(f"the trace: {len(text.splitlines())} lines, {len(evs)} events "
            f"of CPU {CPU}")
        stats = sysio.read(f"{inst.path}/per_cpu/cpu{CPU}/stats")
        if len(evs) < sent:
            jt.diagnose(CPU)
    kmod.unload()
    return sent, evs, stats


def broken(evs):
    """What the events show of a broken window, or None."""
    bad = [e for e in evs
           if e.name == "summary" and int(e.f.get("anomalies", 0))]
    if bad:
        return f"{len(bad)} summaries with anomalies: {bad[0]}"
    over = [g for g in evs if g.name == "gap" and
            trace.class_ns(g, trace.INTF) > g.ns("duration_ns") + SLACK_NS]
    if over:
        return (f"{len(over)} gaps whose classes add up to more than the "
                f"gap: {over[0]}")
    return None


def body():
    """Up to ATTEMPTS storms: a host stall under TCG can keep the sampler
    from the storm, which leaves nothing to judge and is tried again.  A
    broken window in any attempt fails at once."""
    def attempt(_try):
        sent, evs, stats = capture()
        sums = [e for e in evs if e.name == "summary"]
        gaps = [e for e in evs if e.name == "gap"]
        both = [g for g in gaps if g.num("nmi") and g.num("thread")]
        log(f"{sent} NMIs, {len(gaps)} gaps, {len(both)} with an NMI and "
            f"a thread, {len(sums)} summaries")
        why = broken(evs)
        if why:
            raise Broken(why)
        if not sums or not both:
            names = collections.Counter(e.name for e in evs)
            span = (f"{evs[0].ts:.6f}..{evs[-1].ts:.6f}" if evs else "none")
            log(f"events on CPU {CPU} by name {dict(names)}, span {span}; "
                f"buffer stats: {' '.join(stats.split())}")
            raise Fail("no summary, or no gap held both an NMI and a "
                       "thread")

    try:
        jt.attempts(attempt, ATTEMPTS, after_fail=kmod.unload)
    except Broken as e:
        kmod.unload()
        raise Fail(str(e)) from None


class Broken(Exception):
    """A window broken: a jitmod bug, never tried again."""


if __name__ == "__main__":
    sys.exit(jt.run(body))
