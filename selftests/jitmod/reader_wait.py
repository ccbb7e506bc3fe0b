#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The live reader keeps up with a flood and sleeps through a quiet stream.

 - Flood: jitmod samples the last CPU with a 100 ns threshold, so that
   TCG's noise gives thousands of gaps a second, and `jitread hist` reads
   them through a BUFFER_KB ring buffer per CPU for FLOOD_S.  That buffer
   holds about 5000 events; the run must lose none.  A reader that kept
   the 1 s sleep of a quiet stream would lose most of them.  The rate is
   whatever TCG's noise gives: below MIN_EVENTS in the run there is no
   flood to test, and the test ends in a SKIP that says so, after the
   quiet part.
 - Quiet: with a 10 ms threshold almost nothing comes, and `jitread
   record` over QUIET_S must wake (poll or sleep) at most MAX_WAKES times,
   counted with strace: a sleep grows to 1 s when nothing comes.

Both readers run pinned to CPU 0, as a reader on a housekeeping CPU does.
"""

import json
import os
import shutil
import sys

import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, Skip, log

FLOOD_S = 5
BUFFER_KB = 256
MIN_EVENTS = 10000
QUIET_S = 10
MAX_WAKES = 3 * QUIET_S  # 1 s sleeps, after a ramp of 10, 15, 22 ... ms


def flood(jr, cpu, tmp):
    """jitread hist through small buffers at threshold 100 ns: no loss.
    None, or why there was no flood to test."""
    kmod.insmod("jitmod", cpus=cpu, threshold_ns=100)
    out = os.path.join(tmp, "flood.json")
    sysio.sh(["taskset", "-c", "0", jr, "hist", "-q", "--buffer-kb",
              str(BUFFER_KB), "-d", f"{FLOOD_S}s", "--json", out])
    kmod.rmmod("jitmod")
    with open(out) as f:
        d = json.load(f)
    lost = sum(c["summary"]["lost_events"] for c in d["cpus"])
    log(f"flood: {d['events']} events in {FLOOD_S} s through {BUFFER_KB} "
        f"KB, {lost} lost")
    if lost:
        raise Fail(f"{lost} events lost at {d['events']} read")
    if d["events"] < MIN_EVENTS:
        return (f"TCG gave {d['events']} events in {FLOOD_S} s, under "
                f"{MIN_EVENTS}: no flood to test")
    return None


def quiet(jr, cpu, tmp):
    """jitread record on a quiet stream: how often it wakes."""
    kmod.insmod("jitmod", cpus=cpu, threshold_ns=10000000)
    trace = os.path.join(tmp, "strace.txt")
    sysio.sh(["taskset", "-c", "0", "strace", "-f", "-o", trace,
              "-e", "trace=poll,ppoll,nanosleep,clock_nanosleep", jr,
              "record", "-q", "-o", os.path.join(tmp, "quiet.rec"),
              "-d", f"{QUIET_S}s"])
    kmod.rmmod("jitmod")
    with open(trace) as f:
        wakes = sum(1 for ln in f if "poll(" in ln or "sleep(" in ln)
    log(f"quiet: {wakes} waits in {QUIET_S} s")
    if wakes > MAX_WAKES:
        raise Fail(f"{wakes} waits in {QUIET_S} s of a quiet stream "
                   f"(at most {MAX_WAKES})")


def body():
    if not shutil.which("strace"):
        raise Skip("strace missing (make deps installs it)")
    jr = kmod.jitread()
    cpu = os.cpu_count() - 1
    tmp = f"/tmp/reader-wait-{os.getpid()}"
    os.makedirs(tmp, exist_ok=True)
    no_flood = flood(jr, cpu, tmp)
    quiet(jr, cpu, tmp)
    if no_flood:
        raise Skip(no_flood)


if __name__ == "__main__":
    sys.exit(jt.run(body))
