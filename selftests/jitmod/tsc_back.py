#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A TSC that steps backwards is an anomaly, never a huge gap or a trap.

tsc_step writes the sampled CPU's IA32_TSC to STEP_CYC cycles less while
jitmod samples it.  The sampler must count a tsc_back anomaly in that
period's summary, emit no gap and no runtime longer than the period (a
wrapped delta converts to centuries), and leave the kernel log clean.
QEMU's TCG ignores guest writes to the TSC, so there the test is skipped.
"""

import os
import subprocess
import sys
import time

import jittest as jt
from jitpy import abi
from jitpy.guest import kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, Skip, log

CPU = 1
STEP_CYC = 10 ** 9
PERIOD_US = 200000


def body():
    step = os.path.join(jt.HERE, "tsc_step")
    if not os.access(step, os.X_OK):
        raise Fail(f"{step} missing (make ksft)")
    sysio.sh("modprobe msr", check=False)
    if not os.path.exists(f"/dev/cpu/{CPU}/msr"):
        raise Skip("no /dev/cpu/N/msr (msr module missing)")
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=PERIOD_US,
                runtime_us=PERIOD_US * 9 // 10)
    with tracefs.Instance("tscback") as inst:
        time.sleep(0.3)
        p = subprocess.run([step, str(CPU), str(STEP_CYC)], text=True,
                           capture_output=True, check=False)
        if p.returncode == 4:
            raise Skip("the TSC did not go back after a write to "
                       f"IA32_TSC ({p.stdout.strip()}): QEMU's TCG "
                       "ignores guest TSC writes")
        if p.returncode:
            raise Fail(f"tsc_step: {p.stderr.strip()}")
        time.sleep(3 * PERIOD_US / 1e6)
        evs = [e for e in trace.parse(inst.text()) if e.cpu == CPU]
    kmod.rmmod("jitmod")
    sums = [e for e in evs if e.name == "summary"]
    tsc_back = 1 << abi.ANOMALIES.index("tsc_back")
    back = [s for s in sums if int(s.f.get("anomaly_mask", "0"), 16) &
            tsc_back]
    log(f"TSC stepped back {STEP_CYC} cycles: {len(back)} of "
        f"{len(sums)} summaries report it")
    if not back:
        raise Fail("no summary counted a tsc_back anomaly")
    limit = PERIOD_US * 1000
    huge = [e for e in evs if (e.name == "gap" and
                               e.ns("duration_ns") > limit) or
            (e.name == "summary" and e.ns("runtime_ns") > limit)]
    if huge:
        raise Fail(f"a gap or runtime longer than the period: {huge[0]}")


if __name__ == "__main__":
    sys.exit(jt.run(body))
