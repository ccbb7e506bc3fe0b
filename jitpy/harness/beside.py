# SPDX-License-Identifier: GPL-2.0
"""make check's second lane, run in an idle CPU group beside the guests.

A guest running the suite keeps about one host CPU busy (its sampled
vCPU spins; the other mostly waits on the tests' durations) and leaves the
second mostly idle.  This lane takes that idle time, in an idle CPU
group (jitpy/cpugroup.py) so that the guests and the timed host tests
come first: it builds the modules for the kernel matrix, then runs the
boots on deterministic time that it claims before the guests' lane does
(nothing the host does shows in an icount guest's time), then the host
tests that set BESIDE_GUESTS (they time nothing and run no sampler),
each class that it claims before the guests' lane does, then, from a
leaf with an eighth of the guests' weight, the smoke suite in one boot
of each of the matrix's kernels (its checks are counts, and bounds that
hold while a guest waits its turn for a CPU).
It prints TAP, which check.py numbers into the whole run's once its own
lane is done.

    nice -n 19 python3 -m jitpy.harness.beside [RUN]

RUN names the run's CPU group, whose idle leaf "lane" it takes
(check.py gives its pid).
"""

import os
import subprocess
import sys
import time

import jitpy
from jitpy import cpugroup
from jitpy.harness import cpu
from jitpy.harness.guests import chosen, claim, run_icount, run_smoke
from jitpy.harness.tap import Tally, run_host_tests

LANE_DIR = os.path.join(jitpy.TOP, "build", "check")
# where the two lanes claim the smoke boots (jitpy/harness/guests.py)
CLAIMS = os.path.join(LANE_DIR, "claims")
# written once the matrix's modules are built: the smoke boots wait for it
MODULES_DONE = os.path.join(LANE_DIR, "modules.done")
RUN = "lane"
# the smoke boots' weight, of the guests' leaf's (jitpy/cpugroup.py)
SMOKE_SHARE = 1 / 8


def build_modules(tally):
    """scripts/modules-all.sh for the matrix's kernels, as one result."""
    t0, c0 = time.monotonic(), cpu.used()
    p = subprocess.run(["bash", os.path.join("scripts", "modules-all.sh"),
                        "--only", "matrix",
                        os.path.join(jitpy.TOP, "build")],
                       cwd=jitpy.TOP, capture_output=True, text=True,
                       check=False)
    tally.report(p.returncode == 0,
                 "host: the modules for the kernel matrix built",
                 detail=p.stdout + p.stderr, secs=time.monotonic() - t0,
                 cpu_s=cpu.used() - c0)
    with open(MODULES_DONE, "w") as f:
        f.write(f"{p.returncode}\n")


def main(argv):
    """The lane's work, in order; exit 1 if anything failed."""
    tally = Tally()
    t0 = time.monotonic()
    run = argv[0] if argv else RUN
    # before anything is started, so that all of it is in the idle leaf
    print(f"# {cpugroup.join(run, 'lane', idle=True)}", flush=True)
    # where there is no group: check.py starts the lane in a session of
    # its own, at nice 19
    jitpy.session_nice(os.getpid())
    os.makedirs(LANE_DIR, exist_ok=True)
    flavours, rows = chosen()
    build_modules(tally)
    # the boots on deterministic time first, from the idle group: they
    # take only what the guests' lane leaves, and however long they wait,
    # nothing of it shows in their guests' time
    run_icount(tally, flavours, CLAIMS)
    run_host_tests(tally, "beside", take=lambda name: claim(CLAIMS, name))
    # the smoke suite's bounds hold while a guest waits its turn for a
    # CPU, not while it waits seconds, as an idle group's can
    print(f"# {cpugroup.join(run, 'smoke', share=SMOKE_SHARE)}", flush=True)
    run_smoke(tally, rows, CLAIMS)
    print(f"# beside the guests: {time.monotonic() - t0:.0f} s of wall "
          f"time, {cpu.used():.0f} s of CPU", flush=True)
    return tally.closing(slowest=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
