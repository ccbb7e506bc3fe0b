#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Duty settings change without disturbing the sampled CPU.

jitmod samples CPU 1 while this process, pinned to CPU 0, writes WRITES
duty settings (threshold_ns, runtime_us, warmup_us, stop_us,
stop_total_us, period_us one at a time, and several at once through
duty) over WINDOW_S.  The baseline is the same WINDOW_S, before and
after, with the same files read as often: every file closed queues an
RCU callback, and a grace period can ask the sampled CPU for a
quiescent state (an irq_work that restarts its tick), so that part of a
write's cost is any syscall's, not jitmod's.  The function-call,
TLB-shootdown, irq_work and reschedule interrupts (CAL, TLB, IWI, RES)
CPU 1 takes while the writes run must be no more than the larger
baseline's, give or take one, which the kernel can send in any window
(jitmod's own wake-up at each period's end is the CPU's timer
interrupt, LOC, which is not counted).  A write that restarted
the samplers would unhook and re-hook every probe, and each hook's text
patch sends CPU 1 a function-call IPI: hundreds per write.

A reader coming and going is quiet too: READERS runs of jitread hist
over READERS_S, each creating its instance, enabling jitmod's events,
reading and removing it, are held to a baseline with no run, in CAL
and TLB, give or take PER_READER a run: making an instance's ring
buffer bigger runs a work item on every CPU (the kernel's
rb_update_pages, through schedule_work_on), whose wake-up of an idle CPU
is a CAL.  A reader also costs the CPU the irq_work by which its ring
buffer wakes it (IWI, RES), by design.  What must not come is a text
patch: tens of CALs a run.  jitmod keeps two
idle probes on each of its tracepoints, so that a reader's probe
patches no text.  ftrace's comm recording is turned off for that part
(options/record-cmd, a global option an instance inherits when made):
with it on, the first instance to enable an event registers ftrace's own
probes on sched_switch and sched_wakeup, which patches text (about 30
IPIs in the generic guest), whatever the event.

Then the values must take effect at the next period: the summaries after
a write of runtime_us run that long, and one write to duty sets a new
period and runtime together.  A duty write with one bad value changes
nothing.  And a new setting never waits out a long duty: a shorter duty
written while the sampler sleeps 30 s, or samples a 20 s window, and a
stop_us written during a 30 s sleep (jitmod cuts a sleep of over 1 s
short for any duty write) each bring a summary within PROMPT_S.
"""

import os
import subprocess
import sys
import time

import jitpy
import jittest as jt
from jitpy.guest import kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
PERIOD_US = 200000
RUNTIME_US = 100000
WRITES = 100
WINDOW_S = 5.0
READERS = 6
READERS_S = 12.0
PER_READER = 2
ROWS = ("CAL", "TLB", "IWI", "RES")
RECORD_CMD = f"{tracefs.ROOT}/options/record-cmd"
PROMPT_S = 5
SHORT = f"period_us={PERIOD_US} runtime_us={RUNTIME_US}"
# what stop_us and stop_total_us are set to: never reached
NEVER_US = 10000000


def ipis(cpu):
    """{row: count on cpu} for ROWS, from /proc/interrupts."""
    with open("/proc/interrupts") as f:
        at = f.readline().split().index(f"CPU{cpu}") + 1
        rows = (ln.split() for ln in f)
        return {r[0].rstrip(":"): int(r[at]) for r in rows
                if r and r[0].rstrip(":") in ROWS}


def over(secs, act=None, n=WRITES):
    """CPU 1's ROWS over secs, with act(i) called n times across."""
    before = ipis(CPU)
    t0 = time.monotonic()
    if act:
        for i in range(n):
            act(i)
            time.sleep(max(0.0, t0 + (i + 1) * secs / n -
                           time.monotonic()))
    else:
        time.sleep(secs)
    after = ipis(CPU)
    return {r: after[r] - before[r] for r in ROWS}


def param(name):
    return f"{kmod.JIT_PARAMS}/{name}"


def write_one(i):
    """The i-th setting: each duty parameter in turn, and duty itself."""
    step = i % 7
    if step == 0:
        sysio.write(param("threshold_ns"), 10000 + 1000 * (i % 3))
    elif step == 1:
        sysio.write(param("runtime_us"), RUNTIME_US - 1000 * (i % 5))
    elif step == 2:
        sysio.write(param("warmup_us"), 1000 * (i % 2))
    elif step == 3:
        sysio.write(param("stop_us"), NEVER_US)
    elif step == 4:
        sysio.write(param("stop_total_us"), NEVER_US)
    elif step == 5:
        sysio.write(param("period_us"), PERIOD_US + 1000 * (i % 3))
    else:
        sysio.write(param("duty"), f"period_us={PERIOD_US} "
                    f"runtime_us={RUNTIME_US} warmup_us=0")


def check_quiet(what, act, base=None, n=WRITES, secs=WINDOW_S, rows=ROWS,
                slack=1):
    """No IPI on CPU 1 in rows for n calls of act over secs beyond what
    n calls of base (or nothing) take as long, give or take slack."""
    time.sleep(1)
    alone = over(secs, base, n)
    t0 = time.monotonic()
    writing = over(secs, act, n)
    took = time.monotonic() - t0
    if took > secs * 1.2:
        raise Fail(f"{n} {what} took {took:.1f} s, not {secs:.0f}: the "
                   "baseline would not compare")
    again = over(secs, base, n)
    log(f"CPU {CPU} over {secs:.0f} s: baseline {alone}, "
        f"{n} {what} {writing}, baseline again {again}")
    extra = {r: writing[r] - max(alone[r], again[r]) for r in rows
             if writing[r] > max(alone[r], again[r]) + slack}
    if extra:
        raise Fail(f"{n} {what} cost CPU {CPU} {extra} more "
                   "interrupts than sampling alone")


def read_one(i):
    """What write_one(i) does to the files, but reading."""
    sysio.read(param(("threshold_ns", "runtime_us", "warmup_us", "stop_us",
                      "stop_total_us", "period_us", "duty")[i % 7]))


def read_once(_i):
    """One jitread run: its instance made, read and removed."""
    subprocess.run([jitpy.JITREAD, "hist", "-c", str(CPU), "-d", "1s",
                    "-q"], stdout=subprocess.DEVNULL, check=True)


def runtimes(inst, secs):
    """The runtime_ns of CPU 1's summaries over the next secs."""
    inst.clear()
    time.sleep(secs)
    return [e.ns("runtime_ns") for e in trace.parse(inst.text())
            if e.name == "summary" and e.cpu == CPU]


def check_effect():
    """A written runtime is the next periods' runtime; duty sets both."""
    periods = 4 * PERIOD_US / 1e6
    with tracefs.Instance("quiet", events=("jitmod/summary",)) as inst:
        sysio.write(param("runtime_us"), RUNTIME_US // 2)
        got = runtimes(inst, periods)[1:]
        log(f"runtime_us={RUNTIME_US // 2}: summaries ran {got} ns")
        if not got or any(not RUNTIME_US // 2 * 1000 <= ns <
                          RUNTIME_US * 1000 for ns in got):
            raise Fail(f"after runtime_us={RUNTIME_US // 2} the periods "
                       f"ran {got} ns")
        sysio.write(param("duty"), "period_us=100000,runtime_us=80000")
        got = runtimes(inst, periods)[1:]
        log(f"duty period_us=100000 runtime_us=80000: {got} ns, "
            f"{len(got)} summaries in {periods:.1f} s")
        if len(got) < 5 or any(not 80000000 <= ns < 100000000
                               for ns in got):
            raise Fail(f"after one duty write the periods ran {got} ns")
    before = sysio.read(param("duty"))
    for bad in ("runtime_us=90000 period_us=50000", "period_us=50000 nope=1",
                "runtime_us=x", ""):
        try:
            sysio.write(param("duty"), bad)
        except OSError:
            pass
        else:
            raise Fail(f"duty accepted '{bad}'")
    if sysio.read(param("duty")) != before:
        raise Fail(f"a refused duty write changed it: {before} -> "
                   f"{sysio.read(param('duty'))}")


def check_prompt():
    """A new setting ends a 30 s sleep and a 20 s window at once."""
    sleep = "period_us=30000000 runtime_us=100000"
    window = "period_us=30000000 runtime_us=20000000"
    cases = (("a shorter duty", "a 30 s sleep", sleep, "duty", SHORT),
             ("a shorter duty", "a 20 s window", window, "duty", SHORT),
             ("stop_us", "a 30 s sleep", sleep, "stop_us", NEVER_US))
    with tracefs.Instance("prompt", events=("jitmod/summary",)) as inst:
        for what, during, long_duty, name, value in cases:
            sysio.write(param("duty"), long_duty)
            # the short period ends, and the long one is under way
            time.sleep(1)
            inst.clear()
            t0 = time.monotonic()
            sysio.write(param(name), value)
            if not sysio.wait_for(lambda: "summary:" in inst.text(),
                                  PROMPT_S):
                raise Fail(f"{what} written during {during}: no summary "
                           f"within {PROMPT_S} s")
            log(f"{what} written during {during}: a summary "
                f"{time.monotonic() - t0:.2f} s later")
            sysio.write(param("duty"), SHORT)


def body():
    os.sched_setaffinity(0, {0})
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=PERIOD_US,
                runtime_us=RUNTIME_US)
    try:
        check_quiet("duty writes", write_one, read_one)
        old = sysio.read(RECORD_CMD)
        sysio.write(RECORD_CMD, 0)
        try:
            check_quiet("jitread runs", read_once, n=READERS,
                        secs=READERS_S, rows=("CAL", "TLB"),
                        slack=1 + PER_READER * READERS)
        finally:
            sysio.write(RECORD_CMD, old)
        check_effect()
        check_prompt()
    finally:
        kmod.unload()


if __name__ == "__main__":
    sys.exit(jt.run(body))
