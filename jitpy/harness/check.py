# SPDX-License-Identifier: GPL-2.0
"""make check: the selftests in QEMU on each kernel, the host tests.

Two lanes share the machine, in a CPU group that weighs more than any
session.  The guests run one at a time, while a second lane
(jitpy/harness/beside.py) runs beside them in an idle subgroup: the modules
for the kernel matrix, the host tests that time nothing, and the flip
boots (jitpy/cpugroup.py says why groups, and not nice values).  Once
both are done, the host tests that time something or run a sampler
natively run alone.

Prints one TAP line per test, each with its wall time ('# 1.2 s'); the
lane's are numbered in when it ends.  Ends with the ten slowest and 'N
passed, N failed, N skipped'; exits 1 if anything failed.
"""

import os
import signal
import subprocess
import sys
import time

import jitpy
from jitpy import cpugroup
from jitpy.harness.beside import LANE_DIR, MODULES_DONE
from jitpy.harness.guests import (SMOKE_GEN, SMOKE_PROGS, SMOKE_VCPUS,
                                  WIDE_BOOTS, chosen, run_vm_suite)
from jitpy.harness.tap import Tally, replay, run_host_tests

LANE_TAP = os.path.join(LANE_DIR, "beside.tap")
# this run's CPU group (jitpy/cpugroup.py), with leaves guests and lane
RUN = str(os.getpid())


def start_lane():
    """The lane beside the guests, its output into LANE_TAP.  It puts
    itself in the idle group; nice 19 is for where there is none."""
    os.makedirs(LANE_DIR, exist_ok=True)
    for path in (MODULES_DONE, LANE_TAP):
        if os.path.exists(path):
            os.unlink(path)
    with open(LANE_TAP, "w") as out:
        return subprocess.Popen(
            ["nice", "-n", "19", sys.executable, "-m",
             "jitpy.harness.beside", RUN], stdout=out,
            stderr=subprocess.STDOUT,
            cwd=jitpy.TOP, start_new_session=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"))


def await_modules(lane):
    """Wait until the lane has built the matrix's modules (or ended)."""
    while not os.path.exists(MODULES_DONE) and lane.poll() is None:
        time.sleep(1)


def join_lane(tally, lane):
    """Wait for the lane, then number its results into tally."""
    t0 = time.monotonic()
    rc = lane.wait()
    print(f"# the guests' lane waited {time.monotonic() - t0:.0f} s for "
          "the lane beside it", flush=True)
    with open(LANE_TAP, errors="replace") as f:
        got, plan = replay(tally, f.read().splitlines())
    tally.report(rc in (0, 1) and got > 0 and plan == got,
                 "host: the lane beside the guests ran to its end",
                 detail=f"exit {rc}; {got} results, its plan said {plan} "
                 f"(its whole output: {LANE_TAP})")


def stop_lane(lane):
    """End what is left of the lane, its guests with it: they run in
    sessions of their own, but in the lane's CPU group."""
    if lane.poll() is None:
        os.killpg(lane.pid, signal.SIGKILL)
        lane.wait()
    cpugroup.kill(RUN, "lane")


def main():
    """Run everything; exit non-zero on any failure."""
    tally = Tally()
    print("TAP version 13", flush=True)
    cpugroup.sweep()
    print(f"# {cpugroup.join(RUN, 'guests')}", flush=True)
    flavours, rows = chosen()
    lane = start_lane()
    try:
        t0 = time.monotonic()
        for flavour in flavours:
            run_vm_suite(tally, flavour)
        for name, flavour, vcpus, progs in WIDE_BOOTS:
            if flavour in flavours:
                run_vm_suite(tally, flavour, name, vcpus, progs)
        await_modules(lane)
        for rel, skip in rows:
            if skip:
                tally.report(True, f"vm-{rel}", skip_reason=skip)
            else:
                run_vm_suite(tally, rel, vcpus=SMOKE_VCPUS,
                             progs=SMOKE_PROGS, gen=SMOKE_GEN)
        print(f"# guests: {time.monotonic() - t0:.0f} s of wall time",
              flush=True)
        join_lane(tally, lane)
    finally:
        stop_lane(lane)
        cpugroup.leave(RUN, "lane")
    t0 = time.monotonic()
    run_host_tests(tally, beside=False)
    print(f"# host tests, alone: {time.monotonic() - t0:.0f} s of wall "
          "time", flush=True)
    cpugroup.leave(RUN, "guests")
    return tally.closing()


if __name__ == "__main__":
    sys.exit(main())
