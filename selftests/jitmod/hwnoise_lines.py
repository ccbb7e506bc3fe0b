#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rtla's tests/hwnoise.t run lines, as jitread hwnoise lines against
jitmod, each with the exit code jitread documents for its outcome
(rtla's 2, a stop on a threshold, is jitread's 5); and what hwnoise does
to jitmod:

 - while it runs, jitmod samples with irqs_off=1 at hwnoise's duty
   (900 ms of every 1 s, 5 us); after, irqs_off, runtime, period and
   threshold are as before;
 - -q's table of the whole run has the hardware columns (HW, NMI, held)
   and none of the interrupt classes, a row for the CPU, and its periods;
   IPIS IPIs sent to the CPU while it runs are held, and counted so;
 - -e with a hist trigger saves the event's hist to SYS_EVENT_hist.txt,
   as rtla does; osnoise:irq_noise where the kernel has the osnoise
   tracer (rt), else -e ends 1 with one line and the hist is taken of
   jitmod:irq_noise.

Over a minute under TCG: hwnoise.t's lines run 5 to 10 s each.
hwnoise.t's -c 0 becomes -c 1: CPU 0 keeps the guest's time, and with
interrupts off there for 0.9 s of every second the remote tick of a
nohz_full CPU warned (smi.py's history, testing.rst).
"""

import os
import subprocess
import sys
import tempfile

import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, log

STOPPED = 5  # jitread's exit code where rtla's is 2
TIMEOUT_S = 120  # hwnoise.t's set_timeout 2m
DUTY = ("irqs_off", "runtime_us", "period_us", "threshold_ns")
IPIS = 5
TRIGGER = "hist:key=desc,duration:sort=desc,duration:vals=hitcount"


def run(cwd, *args):
    """(exit code, stdout, stderr) of one jitread line run in cwd."""
    try:
        p = subprocess.run([kmod.jitread(), *args], cwd=cwd, text=True,
                           capture_output=True, timeout=TIMEOUT_S,
                           check=False)
    except subprocess.TimeoutExpired as e:
        jt.diagnose(0)
        raise Fail(f"jitread {' '.join(args)} still ran after "
                   f"{TIMEOUT_S} s") from e
    log(f"jitread {' '.join(args)}: exit {p.returncode}")
    return p.returncode, p.stdout, p.stderr


def expect(cwd, want, *args):
    rc, out, err = run(cwd, *args)
    if rc != want:
        raise Fail(f"jitread {' '.join(args)}: exit {rc}, want {want}: "
                   f"{err.strip()[-400:]}")
    return out, err


def settings():
    return {n: sysio.read(f"{kmod.JIT_PARAMS}/{n}") for n in DUTY}


def during(tmp):
    """jitmod's settings while hwnoise runs, and its -q table."""
    ready = os.path.join(tmp, "hw.ready")
    p = subprocess.Popen([kmod.jitread(), "hwnoise", "-c", "1", "-d", "5s",
                          "-q", "--ready-file", ready], cwd=tmp, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kmod.await_ready(p, ready, "jitread hwnoise")
    now = settings()
    for _ in range(IPIS):
        injector.fire("ipi", 50)
        time.sleep(0.3)
    out, err = p.communicate(timeout=TIMEOUT_S)
    if p.returncode:
        raise Fail(f"hwnoise -c 1 -d 5s -q: exit {p.returncode}: {err}")
    return now, out


def check_table(out):
    lines = out.strip().splitlines()
    head = next((ln.split() for ln in lines if ln.startswith("CPU")), [])
    row = next((ln.split() for ln in lines if ln.startswith("1 ")), [])
    log(f"-q: {' | '.join(lines[-3:])}")
    if not lines or "the whole run" not in lines[0]:
        raise Fail(f"no whole-run table: {out!r}")
    if head[-4:] != ["HW", "NMI", "held", "lost"] or \
            {"IRQ", "SIRQ", "THREAD"} & set(head):
        raise Fail(f"hwnoise's columns: {head}")
    if len(row) != len(head) or int(row[1]) < 3:
        raise Fail(f"no row of 3 periods or more for CPU 1: {row}")
    if not int(row[-2]):
        raise Fail(f"{IPIS} IPIs sent, none held: {row}")


def hwnoise_t(tmp):
    """hwnoise.t's lines, CPU 1 for its CPU 0."""
    expect(tmp, 0, "hwnoise", "--help")
    before = settings()
    now, out = during(tmp)
    log(f"before {before}, during {now}")
    want = dict(before, irqs_off="1", runtime_us="900000",
                period_us="1000000", threshold_ns="5000")
    if now != want:
        raise Fail(f"during hwnoise jitmod had {now}, want {want}")
    check_table(out)
    if settings() != before:
        raise Fail(f"after hwnoise: {settings()}, before {before}")
    expect(tmp, 0, "hwnoise", "-c", "1", "-T", "1", "-d", "5s", "-q")
    expect(tmp, STOPPED, "hwnoise", "-a", "5", "-d", "10s")
    expect(tmp, 0, "hwnoise", "-P", "F:1", "-c", "1", "-r", "900000", "-d",
           "10s", "-q")
    trace = os.path.join(tmp, "jitread_trace.txt")
    os.unlink(trace)
    expect(tmp, STOPPED, "hwnoise", "-s", "1", "-T", "1", "-t", "-d", "10s")
    if not os.path.getsize(trace):
        raise Fail("-t left an empty jitread_trace.txt")


def hist_trigger(tmp):
    """hwnoise.t's last line: -e with a hist trigger, its hist saved."""
    line = ("hwnoise", "-t", "-e", "osnoise:irq_noise",
            f"--trigger={TRIGGER}", "-d", "10s")
    saved = os.path.join(tmp, "osnoise_irq_noise_hist.txt")
    if os.path.isdir("/sys/kernel/tracing/events/osnoise"):
        _, err = expect(tmp, 0, *line)
    else:
        rc, _, err = run(tmp, *line)
        if rc != 1 or len(err.strip().splitlines()) != 1 or \
                "no such event" not in err:
            raise Fail(f"-e osnoise:irq_noise without osnoise: exit {rc}, "
                       f"{err!r}")
        _, err = expect(tmp, 0, "hwnoise", "-t", "-e", "jitmod:irq_noise",
                        "--trigger=hist:key=name:vals=hitcount", "-d", "5s")
        saved = os.path.join(tmp, "jitmod_irq_noise_hist.txt")
    with open(saved) as f:
        text = f.read()
    log(f"{os.path.basename(saved)}: {len(text.splitlines())} lines")
    if "hist" not in err or not text.startswith("# event histogram"):
        raise Fail(f"the hist trigger's file: {text[:200]!r}; {err!r}")


def body():
    kmod.insmod("jitinject", cpu=1)
    kmod.insmod("jitmod", cpus=1)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            hwnoise_t(tmp)
            hist_trigger(tmp)
    finally:
        kmod.unload()


if __name__ == "__main__":
    sys.exit(jt.run(body))
