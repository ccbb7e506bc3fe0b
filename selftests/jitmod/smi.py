#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""SMIs on the sampled CPU are filed as hw:smi, with the count that
MSR_SMI_COUNT gives.

The injector, written from CPU 1, sends CPU 0 N SMIs through its local
APIC, 20 ms apart, each from a timer on CPU 1, while jitmod samples
CPU 0 with interrupts on.  Under QEMU, SeaBIOS's SMM handler takes
each: no kernel code runs for it and no probe sees it, so only the MSR
can say what took the CPU.  The boot
CPU is the one sampled because only it comes back: an SMI sent to CPU 1
left it in SMM for good (an RCU stall on CPU 1 until the test's
timeout).  So:
 - CPU 0's MSR_SMI_COUNT rose by N (a machine whose MSR faults, such as a
   KVM guest without it, is a SKIP);
 - N gaps on CPU 0 count one SMI each, none lost, none invented and
   none charged to a later gap;
 - each of them that no probe saw anything in is filed hw:smi, and at
   least N / 2 are so quiet.  The rest may share their gap with an
   interrupt CPU 0 took at the same time, such as its tick, which comes
   every 4 ms; those are logged with what shared them.
"""

import os
import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, Skip, log

CPU = 0
WRITER = 1
N = 10
SETTLE_S = 0.2
COUNT = f"{injector.PARAMS}/smi_count"


def smi_count():
    try:
        return int(sysio.read(COUNT))
    except OSError as e:
        raise Skip(f"MSR_SMI_COUNT cannot be read on CPU {CPU}: {e}") \
            from e


def capture():
    """N SMIs while jitmod samples; (the MSR's rise, CPU's gaps)."""
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=1000, period_us=1000000,
                runtime_us=1000000)
    with tracefs.Instance("smi") as inst:
        if not sysio.wait_for(lambda: "summary:" in inst.text(), 30):
            jt.diagnose(CPU)
            raise Fail("no summary within 30 s of enabling the events")
        c0 = smi_count()
        t0 = time.monotonic()
        injector.smi(N, SETTLE_S)
        log(f"{N} SMIs sent in {(time.monotonic() - t0 - SETTLE_S) * 1e3:.0f}"
            " ms")
        c1 = smi_count()
        events = trace.parse(inst.text())
    kmod.rmmod("jitmod")
    return c1 - c0, [e for e in events if e.cpu == CPU and e.name == "gap"]


def body():
    os.sched_setaffinity(0, {WRITER})
    kmod.insmod("jitinject", cpu=CPU)
    smi_count()
    rose, gaps = capture()
    log(f"MSR_SMI_COUNT on CPU {CPU} rose by {rose} for {N} sent")
    if rose != N:
        raise Fail(f"the CPU took {rose} SMIs of the {N} sent")
    hit = [g for g in gaps if g.num("smi")]
    for g in hit:
        log(f"{g}")
    counted = sum(g.num("smi") for g in hit)
    if counted != N:
        raise Fail(f"the gaps count {counted} SMIs, the MSR {N}")
    if len(hit) != N:
        raise Fail(f"{N} SMIs 20 ms apart were counted in {len(hit)} gaps")
    quiet = [g for g in hit if all(g.num(k) == 0 for k in trace.INTF)]
    for g in quiet:
        if g.f["class"] != "hw:smi":
            raise Fail(f"a quiet gap with an SMI filed {g.f['class']}: {g}")
    log(f"{len(quiet)} of the {N} SMIs' gaps were quiet, each filed hw:smi")
    if len(quiet) < N // 2:
        raise Fail(f"only {len(quiet)} of {N} SMIs had a gap of their own")


if __name__ == "__main__":
    sys.exit(jt.run(body))
