#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread record says what the ring buffers lost, and its recording
keeps it.

jitmod samples CPU 1 at a 1 us threshold, which under TCG gives
thousands of events a second, into 64 KB buffers (the least), while
jitread record is stopped (SIGSTOP) for STOP_S: the buffer overruns.
So:
 - jitread record's last line counts the lost events, more than 0;
 - `jitread report --json` on the recording gives the same number, in
   CPU 1's lost_events;
 - the events it did record, plus the lost ones, are at least those of
   a second without the stop, so the count is not made up.
"""

import json
import os
import signal
import subprocess
import sys
import time

import jittest as jt
from jitpy.formats import report
from jitpy.guest import kmod
from jitpy.guest.sysio import Fail, log

CPU = 1
STOP_S = 4
RUN_S = 8


def record(path, ready, stop):
    """jitread record into path for RUN_S, stopped for STOP_S if stop:
    (events, lost) from its last line."""
    p = subprocess.Popen([kmod.jitread(), "record", "-o", path,
                          "--buffer-kb", "64", "-d", f"{RUN_S}s",
                          "--ready-file", ready],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    kmod.await_ready(p, ready, "jitread record")
    time.sleep(1)
    if stop:
        p.send_signal(signal.SIGSTOP)
        time.sleep(STOP_S)
        p.send_signal(signal.SIGCONT)
    out, err = p.communicate(timeout=RUN_S * 10)
    if p.returncode:
        raise Fail(f"jitread record exit {p.returncode}: {err}")
    counts = report.record_counts(out)
    if not counts:
        raise Fail(f"no count in jitread record's output: {out!r}")
    return counts


def body():
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=1000)
    try:
        rec, ready = "/tmp/record_lost.rec", "/tmp/record_lost.ready"
        calm, calm_lost = record(rec, ready, False)
        log(f"without a stop: {calm} events, {calm_lost} lost in {RUN_S} s")
        os.unlink(ready)
        events, lost = record(rec, ready, True)
        log(f"stopped for {STOP_S} s: {events} events, {lost} lost")
    finally:
        kmod.rmmod("jitmod")
    if not lost:
        raise Fail(f"nothing lost while jitread was stopped {STOP_S} s "
                   f"with 64 KB buffers ({events} events)")
    rep = subprocess.run([kmod.jitread(), "report", rec, "-q", "--json",
                          "-"], capture_output=True, text=True, check=False)
    if rep.returncode:
        raise Fail(f"jitread report exit {rep.returncode}: {rep.stderr}")
    got = sum(c["summary"]["lost_events"] for c in json.loads(rep.stdout)
              ["cpus"])
    if got != lost:
        raise Fail(f"the recording keeps {got} lost events, jitread "
                   f"record said {lost}")
    if events + lost < calm // RUN_S:
        raise Fail(f"{events} recorded and {lost} lost: fewer than a "
                   f"second's {calm // RUN_S} without a stop")


if __name__ == "__main__":
    sys.exit(jt.run(body))
