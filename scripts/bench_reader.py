#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-reader: jitread --replay throughput on a synthetic recording.

Writes BENCH_EVENTS (default 10 M) events, a realistic mix (mostly gaps,
with irq, softirq, thread and nmi events and one summary per 1000, over 4
CPUs and a few hundred distinct sources), then times `jitread --replay`
on one core and reports events per second.  A benchmark, not a test: it
prints the figure and the machine, and exits 0 whatever the speed.
"""

import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOP)
from tests.host import jrrec  # noqa: E402

BLOCK = 10000
GOAL_PER_S = 2_000_000


def block(rng):
    """BLOCK records with the proportions a TCG run shows."""
    out = []
    for i in range(BLOCK):
        cpu = 1 + i % 4
        r = rng.random()
        if i % 1000 == 999:
            out.append(jrrec.summary(cpu, 9 * 10 ** 8, 5 * 10 ** 6, 80000))
        elif r < 0.80:
            out.append(jrrec.gap(cpu, rng.randint(1000, 200000),
                                 rng.choice(("hw:unknown", "irq"))))
        elif r < 0.90:
            out.append(jrrec.irq(cpu, rng.randint(500, 60000),
                                 rng.choice(("local_timer", "reschedule",
                                             "irq_work"))))
        elif r < 0.95:
            out.append(jrrec.rec(jrrec.SOFTIRQ, cpu, (rng.randint(500, 9000),),
                                 cls=rng.choice((1, 9))))
        elif r < 0.99:
            out.append(jrrec.thread(cpu, rng.randint(2000, 90000),
                                    f"kworker/{cpu}:1", 100 + rng.randint(0,
                                                                          200)))
        else:
            out.append(jrrec.rec(jrrec.NMI, cpu, (1500,),
                                 name="perf_event_nmi_handler"))
    return b"".join(out)


def machine():
    with open("/proc/cpuinfo") as f:
        model = next((ln.split(":", 1)[1].strip() for ln in f
                      if ln.startswith("model name")), "?")
    return f"{model}, {os.cpu_count()} CPUs, {platform.release()}"


def main():
    n = int(os.environ.get("BENCH_EVENTS", "10000000"))
    jitread = os.path.join(TOP, "user", "jitread")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
        path = os.path.join(d, "bench.rec")
        blk = block(random.Random(1))
        with open(path, "wb") as f:
            f.write(jrrec.header())
            for _ in range(n // BLOCK):
                f.write(blk)
        n = (n // BLOCK) * BLOCK
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        subprocess.run(["taskset", "-c", "0", jitread, "--replay", path,
                        "-q", "--json", os.devnull], check=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                 before.ru_stime)
    rate = n / wall
    print(f"# jitread replay benchmark on {machine()}, native (no TCG)")
    print(f"events {n}  wall {wall:.2f} s  cpu {cpu:.2f} s  "
          f"rate {rate / 1e6:.2f} M events/s  goal {GOAL_PER_S / 1e6:.0f} "
          f"M/s ({rate / GOAL_PER_S:.2f}x the goal)")
    print("# trace-cmd report is not compared: jitread records in its own "
          "format, not trace.dat")


if __name__ == "__main__":
    main()
