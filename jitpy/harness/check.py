# SPDX-License-Identifier: GPL-2.0
"""make check: the selftests in QEMU on each kernel, the host tests.

Two lanes share the machine, in a CPU group that weighs more than any
session.  The guests' lane boots the full suite on the generic and rt
kernels one at a time, then runs the host tests that time something or
run a sampler natively.  A second lane (jitpy/harness/beside.py) runs
beside it in an idle subgroup, which takes only what the first leaves:
the modules for the kernel matrix and the host tests that time nothing;
then, from a subgroup with an eighth of the guests' weight, the smoke
suite on each kernel of the matrix (jitpy/cpugroup.py says why groups,
and not nice values).  Each smoke boot goes to the lane that
claims it first, so a lane that finishes early takes what the other has
not begun: once the guests are done, the guests' lane starts a second
claimer in the smoke leaf (beside.py's smoke mode), so that the boots
left run beside the timed host tests, not alone after them.  Once all
are done, the host tests that compare measurements taken apart in time
run alone.

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
from jitpy.harness.guests import WIDE_BOOTS, chosen, run_smoke, run_vm_suite
from jitpy.harness.tap import Tally, replay, run_host_tests

LANE_TAP = os.path.join(LANE_DIR, "beside.tap")
SMOKE_TAP = os.path.join(LANE_DIR, "smoke.tap")
# this run's CPU group (jitpy/cpugroup.py), with leaves guests and lane
RUN = str(os.getpid())


def start_lane(tap=None, *mode):
    """jitpy.harness.beside with mode, its output into tap: the lane
    beside the guests, or (mode "smoke") the smoke boots no lane has
    claimed.  It puts itself in its group; nice 19 is for where there is
    none."""
    if not mode:
        shutil.rmtree(CLAIMS, ignore_errors=True)
        os.makedirs(CLAIMS)
        if os.path.exists(MODULES_DONE):
            os.unlink(MODULES_DONE)
    with open(tap or LANE_TAP, "w") as out:
        return subprocess.Popen(
            ["nice", "-n", "19", sys.executable, "-m",
             "jitpy.harness.beside", RUN, *mode], stdout=out,
            stderr=subprocess.STDOUT,
            cwd=jitpy.TOP, start_new_session=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"))


def await_modules(lane):
    """Wait until the lane has built the matrix's modules (or ended)."""
    while not os.path.exists(MODULES_DONE) and lane.poll() is None:
        time.sleep(1)


def join_lane(tally, lane, tap=None, what="the lane beside the guests",
              may_be_empty=False):
    """Wait for a lane started by start_lane, then number its results
    (tap, else LANE_TAP) into tally; may_be_empty: a lane that found
    nothing to do ran to its end too."""
    tap = tap or LANE_TAP
    t0 = time.monotonic()
    rc = lane.wait()
    print(f"# the guests' lane waited {time.monotonic() - t0:.0f} s for "
          f"{what}", flush=True)
    with open(tap, errors="replace") as f:
        got, plan = replay(tally, f.read().splitlines())
    tally.report(rc in (0, 1) and (got > 0 or may_be_empty) and
                 plan == got, f"host: {what} ran to its end",
                 detail=f"exit {rc}; {got} results, its plan said {plan} "
                 f"(its whole output: {tap})")


def stop_lane(*lanes):
    """End what is left of the lanes, their guests with them: they run in
    sessions of their own, but in the lanes' CPU groups."""
    for lane in lanes:
        if lane is not None and lane.poll() is None:
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
    """The full suite on each flavour, then the wide boots."""
    for flavour in flavours:
        run_vm_suite(tally, flavour)
    for name, flavour, vcpus, progs in WIDE_BOOTS:
        if flavour in flavours:
            run_vm_suite(tally, flavour, name, vcpus, progs)


def main():
    """Run everything; exit non-zero on any failure."""
    tally = Tally()
    t0 = time.monotonic()
    print("TAP version 13", flush=True)
    cpugroup.sweep()
    print(f"# {cpugroup.join(RUN, 'guests')}", flush=True)
    flavours, rows = chosen()
    lane = start_lane()
    smoke = None
    try:
        timed("guests", run_guests, tally, flavours)
        await_modules(lane)
        # a second claimer of the smoke boots, beside the timed host
        # tests, so that the last boots do not run alone after them
        smoke = start_lane(SMOKE_TAP, "smoke")
        timed("timed host tests", run_host_tests, tally, "timed")
        join_lane(tally, smoke, SMOKE_TAP,
                  "the smoke boots beside the timed host tests",
                  may_be_empty=True)
        join_lane(tally, lane)
        timed("smoke boots no lane had claimed", run_smoke, tally, rows,
              CLAIMS)
    finally:
        stop_lane(lane, smoke)
        cpugroup.leave(RUN, "lane")
        cpugroup.leave(RUN, "smoke")
    timed("host tests, alone", run_host_tests, tally, "alone")
    cpugroup.leave(RUN, "guests")
    machine_used(t0)
    return tally.closing()


if __name__ == "__main__":
    sys.exit(main())
