# SPDX-License-Identifier: GPL-2.0
"""The deterministic-time half of `make bench`, run by jitpy/bench/suite.py
in an rt guest on QEMU's icount clock (jitpy.vm --clock icount).

There the guest's TSC counts instructions, one a nanosecond, so every
figure below is a count of instructions: the same in every run, whatever
the host does.  Three vCPUs, as the host-clock half has: CPU 0 drives,
CPU 1 is sampled.

  loop      jitmod's sampling loop against jitbench's bare rdtsc kthread:
            instructions per turn, ABBA rounds
  irqs_off  the same loop with interrupts off (irqs_off=1, hwnoise's
            mode): instructions per turn, and jitmod's own slow-path time
            (self_ns) per second of runtime beside the interrupts-on loop's
  probes    what jitmod's probes add to the interrupt they measure: the
            round trip of a synchronous IPI to CPU 1 while jitmod samples
            it, against the same while jitbench's bare loop spins there

Prints one line, "JITICOUNT <json>".  Figures on the host's clock stay in
the other half (jitpy/bench/guest.py).
"""

import os
import time

from jitpy.bench import env_int
from jitpy.bench.guest import (CPU, bench_run_async, ipi_median,
                               jitmod_load, loop_rounds, run_main,
                               run_parts, summaries)
from jitpy.guest import kmod
from jitpy.guest.sysio import Skip

# interrupts-off windows of 500 ms in periods of 1 s: within the module's
# 1 s limit on such a window
IRQS_OFF_RUNTIME_US = 500000


def irqs_off(secs):
    """Instructions per turn and self time, interrupts on and off."""
    out = {}
    for off in (0, 1):
        sums = summaries(secs, skip=1, limit_s=120,
                         what=f"irqs_off={off}: ",
                         runtime_us=IRQS_OFF_RUNTIME_US, irqs_off=off)
        run = sum(e.ns("runtime_ns") for e in sums)
        out["off" if off else "on"] = {
            "ns_per_iter": run / sum(e.num("iterations") for e in sums),
            "self_ns_per_s": sum(e.ns("self_ns") for e in sums) * 1e9 / run,
            "irqs_off": [e.num("irqs_off") for e in sums],
            "periods": len(sums)}
    return out


def probes(rounds, n):
    """IPI round trips to CPU 1: jitbench's bare loop there, then jitmod."""
    out = {"bare": [], "jitmod": []}
    for _ in range(rounds):
        bench_run_async("spin 5000")
        try:
            time.sleep(0.2)
            out["bare"].append(ipi_median(n))
        finally:
            bench_run_async("spin 0")
        jitmod_load()
        try:
            time.sleep(0.2)
            out["jitmod"].append(ipi_median(n))
        finally:
            kmod.rmmod("jitmod")
    return out


def main():
    if os.environ.get("JITVM_CLOCK") != "icount":
        raise Skip("needs a guest on deterministic time (jitpy.vm --clock "
                   "icount)")
    kmod.require(min_cpus=2)
    rounds = env_int("BENCH_ICOUNT_ROUNDS", 3)
    secs = env_int("BENCH_ICOUNT_SECONDS", 1)
    kmod.insmod("jitbench", cpu=CPU)
    res = {"kernel": os.uname().release, "cpus": os.cpu_count(),
           "clock": "icount", "rounds": rounds, "seconds": secs}
    parts = (
        ("loop", lambda: loop_rounds(rounds, secs)),
        ("irqs_off", lambda: irqs_off(max(secs, 2))),
        ("probes", lambda: probes(rounds, env_int("BENCH_IPIS", 2000))),
    )
    return run_parts("JITICOUNT", res, parts)


if __name__ == "__main__":
    run_main(main, "bench-icount")
