# SPDX-License-Identifier: GPL-2.0
"""jitread attach against jitread user, natively, in alternating rounds
on CPU 1, beside a nice-19 shell and a task that wakes every 5 ms to
work for 0.2 ms there: attached to a thread that spins as the user
sampler does, attach finds each class as the sampler's BPF does, and the
same top sources.

Each observer changes what CPU 1 takes, by its own amount, so the two
rounds do not see the same machine. Beside a nice-10 shell, CPU 1 took
about 4 RCU softirqs a second with neither running, 35 under attach and
65 under the sampler (jitread-attach(1) says so under Cost). On a busy
host the TIMER softirq moves too: the RCU grace-period kthread (and
kcompactd) arm their timeouts (process_timeout) on whichever CPU they
run, CPU 1 more in some rounds than in others. So the irq and softirq
classes are judged by their share of what the kernel itself counted on
CPU 1 in the same round (/proc/interrupts and /proc/softirqs): each tool
must find the same share of it. The thread class has no such count and
is judged by its rate, which the waker sets. The RCU softirq, which the
observer raises, stays out of the top sources; test_attach's recall test
holds attach to every RCU softirq the sampler records in one run."""

import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

from tests.host import jrcli
from tests.host.test_attach import hog, spinner, stop

# make check runs it once both lanes are done: it compares rounds taken
# one after the other, and a load that comes and goes between them (the
# idle lane's guests and builds) moves one round's share and not the
# other's
ALONE = True

CPU = 1
# wakes every 5 ms and works 0.2 ms: a thread source at about 190/s
WAKER = ("import os, time\n"
         f"os.sched_setaffinity(0, {{{CPU}}})\n"
         "while True:\n"
         "    time.sleep(0.005)\n"
         "    t = time.monotonic() + 0.0002\n"
         "    while time.monotonic() < t: pass\n")
ROUNDS = 3
SECS = 4
CLASSES = ("irq", "softirq", "nmi", "thread")
# the classes the kernel counts per CPU, by their share of that count
COUNTED = ("irq", "softirq")
OBSERVED = "softirq:RCU"  # raised by the observer itself: see above
# /proc/interrupts rows that are not the irq class, or not per CPU
NOT_IRQ = ("NMI:", "PMI:", "ERR:", "MIS:")
# a class is compared where both sides saw at least this many events
ENOUGH = 200
TOL = 0.10


def usable():
    return jrcli.native_root("BPF needs root")


def kernel_counts():
    """What the kernel has counted on CPU: its irqs and softirqs."""
    n = {"irq": 0, "softirq": 0}
    for path, k in (("/proc/interrupts", "irq"),
                    ("/proc/softirqs", "softirq")):
        with open(path, encoding="ascii") as f:
            for line in f.readlines()[1:]:
                row = line.split()
                if row[0] not in NOT_IRQ and len(row) > CPU + 1:
                    n[k] += int(row[CPU + 1])
    return n


def run(args, out):
    """jitread's record for CPU and the kernel's counts over its run."""
    k0 = kernel_counts()
    p = subprocess.run([jrcli.JITREAD, *args, "-q", "--json", out],
                       capture_output=True, text=True, timeout=120)
    k1 = kernel_counts()
    if p.returncode:
        raise AssertionError(f"jitread {args[0]}: {p.stderr}")
    with open(out, encoding="utf-8") as f:
        (c,) = [c for c in json.load(f)["cpus"] if c["cpu"] == CPU]
    return c, {k: k1[k] - k0[k] for k in k0}


def tally(rounds):
    """Summed over the rounds: the time they cover; per class, its
    events; the kernel's counts; per source but OBSERVED, its time."""
    cpus = [c for c, _ in rounds]
    runtime = sum(c["summary"]["runtime_ns"] for c in cpus)
    counts = {k: sum(c["classes"][k]["count"] for c in cpus if k in
                     c["classes"]) for k in CLASSES}
    kernel = {k: sum(n[k] for _, n in rounds) for k in COUNTED}
    sources = {}
    for c in cpus:
        for s in c["sources"]:
            if s["source"] != OBSERVED and s["class"] in CLASSES:
                sources[s["source"]] = (sources.get(s["source"], 0) +
                                        s["total_ns"])
    return runtime, counts, kernel, sources


def top(sources, n):
    return sorted(sources, key=sources.get, reverse=True)[:n]


@unittest.skipIf(usable(), usable())
class AttachAgrees(unittest.TestCase):
    def judge(self, k, a, u, unit):
        print(f"{k}: attach {a:.3f}{unit}, user {u:.3f}{unit}")
        self.assertLess(abs(a - u), TOL * u,
                        f"{k}: attach {a:.3f}{unit}, user {u:.3f}{unit}")

    def test_classes_and_top_sources_agree_with_the_sampler(self):
        busy = hog(CPU)
        waker = subprocess.Popen(["/usr/bin/python3", "-c", WAKER])
        target = spinner(CPU)
        self.addCleanup(stop, busy, waker, target)
        time.sleep(0.3)
        user, attach = [], []
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            for _ in range(ROUNDS):
                # the spinner yields CPU 1 to the sampler while it runs
                os.kill(target.pid, signal.SIGSTOP)
                user.append(run(["user", "-c", str(CPU), "-d", f"{SECS}s",
                                 "--no-pipeline"], out))
                os.kill(target.pid, signal.SIGCONT)
                attach.append(run(["attach", "-p", str(target.pid), "-c",
                                   str(CPU), "-d", f"{SECS}s"], out))
        ut, uc, uk, us = tally(user)
        at, ac, ak, asrc = tally(attach)
        compared = []
        for k in CLASSES:
            print(f"{k}: attach {ac[k]} events in {at / 1e9:.2f} s, "
                  f"kernel {ak.get(k, '-')}; user {uc[k]} in "
                  f"{ut / 1e9:.2f} s, kernel {uk.get(k, '-')}")
            if min(uc[k], ac[k]) < ENOUGH:
                continue
            compared.append(k)
            if k in COUNTED:
                self.judge(k, ac[k] / ak[k], uc[k] / uk[k], " of kernel's")
            else:
                self.judge(k, ac[k] / at * 1e9, uc[k] / ut * 1e9, "/s")
        # this machine has no NMIs to compare
        for k in ("irq", "softirq", "thread"):
            self.assertIn(k, compared, (uc, ac))
        # the same top sources: each side's first is in the other's first
        # three, and the first threes share two
        ut3, at3 = top(us, 3), top(asrc, 3)
        self.assertIn(ut3[0], at3, (ut3, at3))
        self.assertIn(at3[0], ut3, (ut3, at3))
        self.assertGreaterEqual(len(set(ut3) & set(at3)), 2, (ut3, at3))


def main():
    unittest.main()


if __name__ == "__main__":
    main()
