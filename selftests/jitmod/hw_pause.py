#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hardware noise: freeze the whole VM from the host; every sampled CPU
must show a gap of at least the pause that no probe explains.

Nothing inside a guest can make hardware noise, so the test asks the
jitpy.vm runner (through its output share) to SIGSTOP QEMU for
PAUSE_MS.  The gap's hw_ns must cover the pause; a gap that saw no
interference at all must be filed under a hw:* class.  Under TCG there is
no steal clock and no SMI counter, so hw:unknown is the expected split; a
KVM guest with steal time may say hw:steal.

The pause comes once every CPU samples, within one period of 30 s.  A
pause that falls in jitmod's own slow path (a gap's event being written)
is jitmod's time, not a gap, so up to ATTEMPTS pauses are made, each miss
logged and counted.
"""

import os
import sys
import time

import jittest as jt
from jitpy.guest import kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, Skip, log

SHARE = "/run/jitvm"
PAUSE_MS = 300
# one period for the whole test, so that no sleep between two periods
# lies where a pause can fall
PERIOD_US = 30000000
ATTEMPTS = 3


def request_pause(ms):
    """Ask the runner for a pause and wait until it has happened."""
    done = os.path.join(SHARE, "pause-done")
    if os.path.exists(done):
        os.unlink(done)
    tmp = os.path.join(SHARE, "pause-request.tmp")
    with open(tmp, "w") as f:
        f.write(f"{ms}\n")
    os.rename(tmp, os.path.join(SHARE, "pause-request"))
    if not sysio.wait_for(lambda: os.path.exists(done), 30):
        raise Fail("the runner did not pause the VM within 30 s")
    took = int(sysio.read(done))
    os.unlink(done)
    return took


def sampling(inst, cpus):
    """Whether every CPU of cpus has sent a gap to inst: it samples."""
    return set(cpus) <= {e.cpu for e in trace.parse(inst.text())
                         if e.name == "gap"}


def check(events, cpus):
    """Each of cpus shows the pause as hardware noise.  A CPU without the
    gap is made again: the pause fell where the CPU does not sample (its
    own slow path, whose time is jitmod's, or a sleep between periods)."""
    want_ns = PAUSE_MS * 1000 * 1000 * 9 // 10
    for cpu in cpus:
        gaps = [e for e in events if e.cpu == cpu and e.name == "gap" and
                e.ns("hw_ns") >= want_ns]
        if not gaps:
            big = max((e for e in events if e.cpu == cpu and e.name == "gap"),
                      key=lambda e: e.ns("duration_ns"), default=None)
            raise jt.Again(f"cpu {cpu}: no gap with hw_ns >= {want_ns}; "
                           f"largest: {big}")
        g = gaps[0]
        log(f"cpu {cpu}: {g}")
        quiet = all(g.num(k) == 0
                    for k in ("irq", "softirq", "nmi", "thread"))
        if quiet and not g.f["class"].startswith("hw:"):
            raise Fail(f"cpu {cpu}: a gap with no interference filed as "
                       f"{g.f['class']}")


def body():
    if os.environ.get("JITVM") != "1" or not os.path.isdir(SHARE):
        raise Skip("needs the jitpy.vm runner to pause the VM")
    if os.environ.get("JITVM_CLOCK") == "icount":
        # the guest's clock counts its instructions: paused, it stops too
        raise Skip("needs the host's clock: on icount a paused VM's clock "
                   "stops with it, so the pause is no time in the guest")
    cpus = list(range(1, os.cpu_count()))
    kmod.insmod("jitmod", cpus=",".join(map(str, cpus)), threshold_ns=10000,
                period_us=PERIOD_US, runtime_us=PERIOD_US)
    with tracefs.Instance("hwpause") as inst:
        if not sysio.wait_for(lambda: sampling(inst, cpus), 10, 0.2):
            raise Fail(f"no gap from each of CPUs {cpus} within 10 s")

        def pause(_try):
            inst.clear()
            took = request_pause(PAUSE_MS)
            log(f"runner paused the VM for {took} ms")
            time.sleep(0.5)
            check(trace.parse(inst.text()), cpus)

        jt.attempts(pause, ATTEMPTS, retry=(), what="pause")
    kmod.rmmod("jitmod")


if __name__ == "__main__":
    sys.exit(jt.run(body))
