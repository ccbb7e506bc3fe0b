# SPDX-License-Identifier: GPL-2.0
"""make check: host unit tests, then the selftests in QEMU on each kernel.

Prints one TAP line per test, each with its wall time ('# 1.2 s'), and
ends with the ten slowest and 'N passed, N failed, N skipped'.  Exits 1
if anything failed.
"""

import os
import sys
import time

from jitpy.harness.guests import (FLAVOURS, FLIP_PROG, SMOKE_GEN,
                                  SMOKE_PROGS, SMOKE_VCPUS, WIDE_BOOTS,
                                  matrix, run_vm_suite)
from jitpy.harness.tap import Tally, run_host_tests


def main():
    """Run everything; exit non-zero on any failure."""
    tally = Tally()
    print("TAP version 13", flush=True)
    t0 = time.monotonic()
    run_host_tests(tally)
    print(f"# host tests: {time.monotonic() - t0:.0f} s of wall time",
          flush=True)
    only = os.environ.get("JIT_CHECK_KERNELS")
    kernels = only.split(",") if only else FLAVOURS
    for flavour in FLAVOURS:
        if flavour in kernels:
            run_vm_suite(tally, flavour)
    for name, flavour, vcpus, progs in WIDE_BOOTS:
        if flavour in kernels:
            run_vm_suite(tally, flavour, name, vcpus, progs)
    flips = [k for k in FLAVOURS if k in kernels]
    for rel, skip in matrix():
        if only and rel not in kernels:
            continue
        if skip:
            tally.report(True, f"vm-{rel}", skip_reason=skip)
        else:
            run_vm_suite(tally, rel, vcpus=SMOKE_VCPUS, progs=SMOKE_PROGS,
                         gen=SMOKE_GEN)
            flips.append(rel)
    for kernel in flips:
        run_vm_suite(tally, kernel, f"{kernel}-flip", progs=FLIP_PROG,
                     tcg_thread="single")
    tally.slowest()
    print(f"1..{tally.n}")
    print(f"{tally.passed} passed, {tally.failed} failed, "
          f"{tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
