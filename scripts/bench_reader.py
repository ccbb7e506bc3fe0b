#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-reader: jitread's own cost, replayed and live.

1. Replay: writes BENCH_EVENTS (default 10 M) events, a realistic mix
   (mostly gaps, with irq, softirq, thread and nmi events and one summary
   per 1000, over 4 CPUs and a few hundred distinct sources), then times
   `jitread --replay` on one core and reports events per second.
2. Live: boots the generic kernel in QEMU (2 vCPUs), samples CPU 1 with a
   1 us threshold so that TCG's noise gives thousands of events a second,
   runs jitread for 20 s and reports its CPU use per 10 k events/s.

A benchmark, not a test: it prints the figures and the machine, and exits 0
whatever the speed.  The live figure comes from TCG and is relative only.
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
            pid = 100 + rng.randint(0, 200)
            out.append(jrrec.thread(cpu, rng.randint(2000, 90000),
                                    f"kworker/{cpu}:1", pid))
        else:
            out.append(jrrec.rec(jrrec.NMI, cpu, (1500,),
                                 name="perf_event_nmi_handler"))
    return b"".join(out)


def machine():
    with open("/proc/cpuinfo") as f:
        model = next((ln.split(":", 1)[1].strip() for ln in f
                      if ln.startswith("model name")), "?")
    return f"{model}, {os.cpu_count()} CPUs, {platform.release()}"


def guest():
    """Inside the VM: jitread's CPU time while streaming."""
    rel = os.uname().release
    ko = os.path.join(TOP, "build", "modules", rel, "module", "jitmod.ko")
    subprocess.run(["insmod", ko, "cpus=1", "threshold_ns=1000"], check=True)
    out = "/tmp/bench-live.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(["taskset", "-c", "0", os.path.join(TOP, "user",
                                                       "jitread"),
                    "-d", "20s", "-q", "--json", out], check=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["rmmod", "jitmod"], check=True)
    cpu = (after.ru_utime - before.ru_utime +
           after.ru_stime - before.ru_stime)
    with open(out) as f:
        events = __import__("json").load(f)["events"]
    rate = events / wall
    print(f"live (TCG guest, 2 vCPUs, CPU 1 sampled): {events} events in "
          f"{wall:.1f} s = {rate:.0f} events/s; jitread used "
          f"{100 * cpu / wall:.2f}% of a CPU = "
          f"{100 * cpu / wall * 10000 / max(rate, 1):.2f}% per 10 k events/s")


def live():
    """Boot the generic kernel and run guest() there."""
    cmd = [sys.executable, os.path.join(TOP, "scripts", "jitvm.py"), "-q",
           "-k", "generic", "-s", "2", "-t", "5m", "-C", TOP, "--",
           "python3", os.path.join(TOP, "scripts", "bench_reader.py"),
           "--guest"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("live")]
    print(lines[0] if lines else
          f"live: skipped (jitvm exit {p.returncode}: "
          f"{(p.stdout + p.stderr).strip()[-200:]})")


def main():
    if sys.argv[1:] == ["--guest"]:
        guest()
        return
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
    cpu = (after.ru_utime - before.ru_utime +
           after.ru_stime - before.ru_stime)
    rate = n / wall
    print(f"# jitread replay benchmark on {machine()}, native (no TCG)")
    print(f"events {n}  wall {wall:.2f} s  cpu {cpu:.2f} s  "
          f"rate {rate / 1e6:.2f} M events/s  goal {GOAL_PER_S / 1e6:.0f} "
          f"M/s ({rate / GOAL_PER_S:.2f}x the goal)")
    print("# trace-cmd report is not compared: jitread records in its own "
          "format, not trace.dat")
    live()


if __name__ == "__main__":
    main()
