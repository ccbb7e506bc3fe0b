# SPDX-License-Identifier: GPL-2.0
"""make check: the selftests in QEMU on each kernel, the host tests.

Two lanes share the machine, in a CPU group that weighs more than any
session.  The guests' lane boots the suite's host-clock tests on the
generic and rt kernels one at a time, then runs the host tests that
time something or run a sampler natively.  A second lane
(jitpy/harness/beside.py) runs beside it in an idle subgroup, which
takes only what the first leaves: the modules for the kernel matrix,
the suite's tests on deterministic time (one boot per kernel), and the
host tests that time nothing; then, from a subgroup with an eighth of
the guests' weight, the smoke suite on each kernel of the matrix
(jitpy/cpugroup.py says why groups, and not nice values).  Each smoke
and deterministic boot, and each class of the host tests that time
nothing, goes to the lane that claims it first, so a lane that finishes
early takes what the other has not begun: the guests' lane ends with
those host tests.  Once both are done, the host tests that compare
measurements taken apart in time run alone.

Prints one TAP line per test, each with its wall time and, where
measured, its CPU time ('# 1.2 s, CPU 2.0 s'); the lane's are numbered
in when it ends.  Each part says its wall and CPU time, and the whole
run how much of the machine it used.  Ends with the ten slowest and 'N
passed, N failed, N skipped'; exits 1 if anything failed.
"""

import os
import shutil
import signal
import subprocess
import sys
import time

import jitpy
from jitpy import cpugroup
from jitpy.harness import cpu
from jitpy.harness.beside import CLAIMS, LANE_DIR, MODULES_DONE
from jitpy.harness.guests import (HOST_PROGS, SUITE_GEN, WIDE_BOOTS,
                                  chosen, claim, run_icount, run_smoke,
                                  run_vm_suite)
from jitpy.harness.tap import Tally, replay, run_host_tests

LANE_TAP = os.path.join(LANE_DIR, "beside.tap")
# this run's CPU group (jitpy/cpugroup.py), with leaves guests and lane
RUN = str(os.getpid())


def start_lane():
    """The lane beside the guests, its output into LANE_TAP.  It puts
    itself in the idle group; nice 19 is for where there is none."""
    shutil.rmtree(CLAIMS, ignore_errors=True)
    os.makedirs(CLAIMS)
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
    for leaf in ("lane", "smoke"):
        cpugroup.kill(RUN, leaf)


def timed(what, fn, *args):
    """fn(*args), then a comment line with its wall and CPU time."""
    t0, c0 = time.monotonic(), cpu.used()
    fn(*args)
    print(f"# {what}: {time.monotonic() - t0:.0f} s of wall time, "
          f"{cpu.used() - c0:.0f} s of CPU", flush=True)


def machine_used(t0):
    """One comment line: what the run used of the machine since t0,
    the lane's part with it once it was waited for."""
    wall, used = time.monotonic() - t0, cpu.used()
    print(f"# the whole run: {wall:.0f} s of wall time, {used:.0f} s of "
          f"CPU, {used / wall:.2f} of the machine's {os.cpu_count()} CPUs",
          flush=True)


def run_guests(tally, flavours):
    """The suite's host-clock tests on each flavour, then the wide boots,
    then those on deterministic time that the lane beside has not
    claimed."""
    for flavour in flavours:
        run_vm_suite(tally, flavour, progs=HOST_PROGS, gen=SUITE_GEN)
    for name, flavour, vcpus, progs in WIDE_BOOTS:
        if flavour in flavours:
            run_vm_suite(tally, flavour, name, vcpus, progs)
    run_icount(tally, flavours, CLAIMS)


def main():
    """Run everything; exit non-zero on any failure."""
    tally = Tally()
    t0 = time.monotonic()
    print("TAP version 13", flush=True)
    cpugroup.sweep()
    print(f"# {cpugroup.join(RUN, 'guests')}", flush=True)
    flavours, rows = chosen()
    lane = start_lane()
    try:
        timed("guests", run_guests, tally, flavours)
        timed("timed host tests", run_host_tests, tally, "timed")
        await_modules(lane)
        timed("smoke boots the lane had not claimed", run_smoke, tally,
              rows, CLAIMS)
        timed("host tests beside the guests that the lane had not claimed",
              run_host_tests, tally, "beside",
              lambda name: claim(CLAIMS, name))
        join_lane(tally, lane)
    finally:
        stop_lane(lane)
        cpugroup.leave(RUN, "lane")
        cpugroup.leave(RUN, "smoke")
    timed("host tests, alone", run_host_tests, tally, "alone")
    cpugroup.leave(RUN, "guests")
    machine_used(t0)
    return tally.closing()


if __name__ == "__main__":
    sys.exit(main())
