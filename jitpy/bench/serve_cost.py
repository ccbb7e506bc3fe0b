# SPDX-License-Identifier: GPL-2.0
"""The guest part "serve" of `make bench`: what `jitread serve` costs the
machine at its default duty cycle.

Two phases of secs (BENCH_SERVE_SECONDS) each on CPU 1, one after the
other:

  serve  jitread serve with its defaults, scraped for /metrics every
         SCRAPE_S by this process, pinned to CPU 0;
  alone  jitmod by itself at the duty cycle serve set (read from jitmod's
         parameters while it served), with nothing reading its events.

Each phase is measured from SETTLE_S after its start, and serve's from
SETTLE_S after its first scrape.  Over each: the CPU time of jitread and
of its server process (both run on housekeeping CPUs only; serve.py
checks that), and each row of /proc/interrupts on CPU 1.  What CPU 1
takes in the first phase beyond the second is what serve causes there.
CPU 1's interrupts are also counted apart from serve's launch until its
first scrape (jitread setting jitmod's duty), over the first scrape (the
kernel's one-time work on a boot's first TCP connection) and at the stop
(the old duty put back): each happens once, not per hour.  Figures from
here are TCG's.
"""

import os
import signal
import subprocess
import tempfile
import time

import jitpy
from jitpy.fleet.prom import get, serving_url
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail

CPU = 1
SCRAPE_S = 15
# a period or two after start or load before a phase is measured
SETTLE_S = 3
DUTY = ("runtime_us", "period_us", "warmup_us")


def interrupts(cpu):
    """{row: count on cpu} from /proc/interrupts; a numbered row is named
    by its number and its last word (the device)."""
    with open("/proc/interrupts") as f:
        cols = f.readline().split()
        at = cols.index(f"CPU{cpu}")
        out = {}
        for line in f:
            parts = line.split()
            counts = parts[1:1 + len(cols)]
            if len(counts) <= at or not counts[at].isdigit():
                continue
            row = parts[0].rstrip(":")
            if row.isdigit():
                row += " " + parts[-1]
            out[row] = int(counts[at])
    return out


def scrape(url):
    status, _, _ = get(url, timeout=30)
    if status != 200:
        raise Fail(f"{url}: HTTP {status}")


def delta(a, b):
    return {k: b[k] - a.get(k, 0) for k in b if b[k] - a.get(k, 0)}


def serve_phase(secs, tmp):
    """jitread serve, scraped; its CPU time and CPU 1's interrupts in its
    steady state, and apart, CPU 1's interrupts at its start, at the first
    scrape and at its stop."""
    ready = os.path.join(tmp, "ready")
    i_start = interrupts(CPU)
    p = subprocess.Popen([jitpy.JITREAD, "serve", "-c", str(CPU),
                          "--listen", "127.0.0.1:0", "--ready-file", ready],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    try:
        url = serving_url(p)
        if not url or not sysio.wait_for(lambda: os.path.exists(ready), 30):
            raise Fail(f"jitread serve never became ready: {url}")
        with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
            pids = [p.pid] + [int(c) for c in f.read().split()]
        time.sleep(SETTLE_S)
        duty = {n: int(sysio.read(f"{kmod.JIT_PARAMS}/{n}")) for n in DUTY}
        i_first = interrupts(CPU)
        scrape(url)
        time.sleep(SETTLE_S)
        t0, c0, i0 = time.monotonic(), sysio.cpu_s(pids), interrupts(CPU)
        scrapes = 0
        while True:
            scrape(url)
            scrapes += 1
            left = secs - (time.monotonic() - t0)
            if left <= 0:
                break
            time.sleep(min(SCRAPE_S, left))
        t1, c1, i1 = time.monotonic(), sysio.cpu_s(pids), interrupts(CPU)
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    if p.returncode:
        raise Fail(f"jitread serve exit {p.returncode}: {err.strip()}")
    return {"seconds": t1 - t0, "cpu_s": c1 - c0, "scrapes": scrapes,
            "scrape_s": SCRAPE_S, "duty": duty, "irqs": delta(i0, i1),
            "start_irqs": delta(i_start, i_first),
            "first_scrape_irqs": delta(i_first, i0),
            "stop_irqs": delta(i1, interrupts(CPU))}


def alone_phase(secs, duty):
    """jitmod alone at serve's duty cycle: CPU 1's interrupts."""
    kmod.rmmod("jitmod")
    kmod.insmod("jitmod", cpus=CPU, **duty)
    time.sleep(SETTLE_S)
    t0, i0 = time.monotonic(), interrupts(CPU)
    time.sleep(secs)
    t1, i1 = time.monotonic(), interrupts(CPU)
    return {"seconds": t1 - t0, "irqs": delta(i0, i1)}


def serve_cost(secs):
    """Both phases; this process stays on CPU 0 throughout."""
    mask = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0})
    kmod.insmod("jitmod", cpus=CPU)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            served = serve_phase(secs, tmp)
        return {"serve": served, "alone": alone_phase(secs, served["duty"])}
    finally:
        kmod.rmmod("jitmod", check=False)
        os.sched_setaffinity(0, mask)
