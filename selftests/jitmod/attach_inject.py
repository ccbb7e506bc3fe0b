#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread attach on this kernel: the injector's noise, aimed at a
running process's CPU, is found and filed in its class.

A process spins on CPU 1 and maps and touches a fresh MiB every 50 ms;
jitread attach watches it, with no sampler.  jitinject interrupts it N
times each with a SCHED_FIFO thread, an IPI, a TIMER softirq and an NMI,
D long.  Each must be in CPU 1's source table under its name, with a net
time of at least 0.9 D less what the injector saw nested in its spin;
the spinner's own account must hold N of each class, a wait for each
FIFO thread and its page faults.  Where the kernel lets fentry attach to
handle_mm_fault (this host's does not; Debian's guests do), the faults
must be timed.
"""

import json
import signal
import subprocess
import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
N = 3
D_US = 2000
PHASE_S = 120
SETTLE_S = 1.5
REPORT = "/tmp/attach_inject.json"
READY = "/tmp/attach_inject.ready"
# a fresh mapping each time: a heap block would come back already
# faulted in once malloc raised its mmap threshold
SPIN = ("import mmap, os, time\n"
        f"os.sched_setaffinity(0, {{{CPU}}})\n"
        "t = time.monotonic()\n"
        "while True:\n"
        "    if time.monotonic() - t > 0.05:\n"
        "        m = mmap.mmap(-1, 1 << 20)\n"
        "        for i in range(0, len(m), 4096): m[i] = 1\n"
        "        m.close()\n"
        "        t = time.monotonic()\n")
FILTER = "/sys/kernel/tracing/available_filter_functions"


def fentry_allowed():
    """Whether handle_mm_fault can be traced here, as fentry needs."""
    try:
        with open(FILTER) as f:
            return any(ln.split()[0] == "handle_mm_fault" for ln in f)
    except OSError:
        return False


def inject(proc):
    """N of each class at CPU once attach watches; per class, each
    injection's (injector thread's pid or None, its nested_ns)."""
    if not sysio.wait_for(lambda: proc.poll() is not None
                          or kmod.is_ready(proc, READY), 120):
        raise Fail(f"no {READY} after 120 s")
    if proc.poll() is not None:
        raise Fail(f"jitread attach ended: {proc.communicate()[0][-600:]}")
    done = {}
    for cls in ("thread", "ipi", "softirq", "nmi"):
        for _ in range(N):
            time.sleep(0.1)
            injector.fire(cls, D_US)
            pid = int(sysio.read(f"{injector.PARAMS}/last_pid")) \
                if cls == "thread" else None
            done.setdefault(cls, []).append((pid, injector.nested_ns()))
    return done


def source(got, name):
    """The source called name, or the one whose name begins so (an NMI
    handler's symbol may carry its module)."""
    for key in sorted(got):
        if key == name or key.startswith(name + " "):
            return got[key]
    raise Fail(f"CPU {CPU}: no source {name}; have {sorted(got)[:20]}")


def check_sources(cpu, done):
    """Every injection in CPU's source table, long enough."""
    got = {s["source"]: s for s in cpu["sources"]}
    least = injector.spin_floor_ns(D_US * 1000)
    want = [(f"thread:jitinject/{CPU}[{p}]", 1, least - nested)
            for p, nested in done["thread"]]
    for name, cls in (("irq:call_function_single", "ipi"),
                      ("softirq:TIMER", "softirq"),
                      ("nmi:jinj_nmi", "nmi")):
        want.append((name, N, least - min(n for _, n in done[cls])))
    for name, count, floor in want:
        s = source(got, name)
        if s["count"] < count or s["max_ns"] < floor:
            raise Fail(f"CPU {CPU}: {name} count {s['count']} (want >= "
                       f"{count}), max {s['max_ns']} ns (want >= {floor})")
        log(f"{name}: count {s['count']}, max {s['max_ns'] / 1e3:.1f} us"
            f" (floor {floor / 1e3:.1f})")


def check_thread(a, pid):
    """The spinner's account: N of each class at least, a wait for each
    FIFO thread, and its faults timed where fentry is allowed."""
    (th,) = [t for t in a["threads"] if t["tid"] == pid]
    for cls in ("irq", "softirq", "nmi", "thread"):
        if th["classes"][cls]["count"] < N:
            raise Fail(f"thread {pid}: {th['classes'][cls]['count']} "
                       f"{cls} events, want >= {N}: {th}")
    if th["waits"]["count"] < N:
        raise Fail(f"thread {pid}: {th['waits']['count']} waits, want "
                   f">= {N}")
    if th["faults"]["count"] < 10:
        raise Fail(f"thread {pid}: {th['faults']['count']} faults")
    log(f"thread {pid}: run {th['run_ns'] / 1e6:.1f} ms, waits "
        f"{th['waits']['count']}, faults {th['faults']['count']} "
        f"({th['faults']['total_ns'] / 1e3:.1f} us)")
    if not fentry_allowed():
        log(f"handle_mm_fault not in {FILTER}: fault timing not checked")
        return
    if not a["faults_timed"] or th["faults"]["total_ns"] <= 0:
        raise Fail(f"fentry allowed, yet faults not timed: {a}")


def body():
    kmod.require()
    jitread = kmod.jitread()
    kmod.insmod("jitinject", cpu=CPU)
    target = subprocess.Popen([sys.executable, "-c", SPIN])
    proc = None
    try:
        time.sleep(0.5)
        proc = subprocess.Popen(
            [jitread, "attach", "-p", str(target.pid), "-c", str(CPU),
             "-d", f"{PHASE_S}s", "--json", REPORT, "--ready-file", READY,
             "-q"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        done = inject(proc)
        time.sleep(SETTLE_S)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        for p in (proc, target):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        kmod.rmmod("jitinject", check=False)
    if proc.returncode:
        raise Fail(f"jitread attach exit {proc.returncode}: {out[-600:]}")
    with open(REPORT) as f:
        d = json.load(f)
    (cpu,) = [c for c in d["cpus"] if c["cpu"] == CPU]
    check_sources(cpu, done)
    check_thread(d["attach"], target.pid)


if __name__ == "__main__":
    sys.exit(jt.run(body))
