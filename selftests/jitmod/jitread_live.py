#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread end to end against the real module and the injector.

 - a live run while the injector makes N NMIs, N FIFO threads and N timer
   softirqs: each shows up in the attribution table with its class and
   count (nmi:jinj_nmi N times, N thread:jitinject/1[pid] sources, at
   least N softirq:TIMER), no events lost, and jitread's instance is gone
   afterwards;
 - --record then --replay gives the same JSON;
 - --top prints a frame a second with a row for the CPU;
 - -s with --on-threshold: the stop saves the last events and runs the
   command, and the run ends;
 - SIGTERM ends a run with its report and removes the instance;
 - a reader killed with SIGKILL leaves its instance behind; the next
   jitread removes it and works;
 - rmmod under a live reader: jitread says so in one line and exits 3.
"""

import json
import os
import signal
import subprocess
import sys
import time

import jittest as jt

CPU = 1
N = 4
D_US = 300
ATTEMPTS = 5


def instances():
    return [d for d in os.listdir(f"{jt.TRACEFS}/instances")
            if d.startswith("jitread-")]


def reading():
    """jitread's instance exists and its events are on (which, under TCG,
    can be a second or more after the instance appears)."""
    for d in instances():
        try:
            if jt.read(f"{jt.TRACEFS}/instances/{d}/events/jitmod/gap/"
                       "enable") == "1":
                return True
        except OSError:
            pass
    return False


def live_attribution(jr, tmp):
    out = os.path.join(tmp, "live.json")
    rec = os.path.join(tmp, "live.rec")
    # -d only bounds the run: SIGINT ends it once the injections are in,
    # however long TCG took over them
    p = subprocess.Popen([jr, "-c", str(CPU), "-d", "60s", "-q", "--json",
                          out, "--record", rec], stderr=subprocess.PIPE,
                         text=True)
    if not jt.wait_for(reading, 20):
        p.kill()
        raise jt.Fail("jitread made no instance")
    time.sleep(0.5)
    for _ in range(N):
        for cls in ("nmi", "thread", "softirq"):
            jt.inject(cls, D_US)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    if p.returncode:
        raise jt.Fail(f"jitread exit {p.returncode}: {err.strip()}")
    if instances():
        raise jt.Fail(f"instance left after a clean exit: {instances()}")
    with open(out) as f:
        d = json.load(f)
    cpu = [c for c in d["cpus"] if c["cpu"] == CPU][0]
    src = {s["source"]: s for s in cpu["sources"]}
    jt.log("top sources: " + ", ".join(
        f"{s['source']} x{s['count']}" for s in cpu["sources"][:8]))
    nmi = src.get("nmi:jinj_nmi")
    if not nmi or nmi["count"] != N or nmi["class"] != "nmi" or \
            nmi["min_ns"] < D_US * 1000:
        raise jt.Fail(f"nmi:jinj_nmi: {nmi}, want {N} of >= {D_US} us")
    thr = [s for k, s in src.items()
           if k.startswith(f"thread:jitinject/{CPU}[")]
    # Each injector thread runs twice: its spin, then its exit.  The spin
    # ends by the clock, so an interrupt inside it (the tick, on RT with
    # two runnable tasks) is taken off the thread's net time: allow 20 %.
    if len(thr) != N or any(s["class"] != "thread" or
                            s["max_ns"] < D_US * 800 for s in thr):
        raise jt.Fail(f"injector threads: {thr}, want {N} sources")
    # The TIMER softirq spins by the clock too, and hard irqs nest in it.
    timer = src.get("softirq:TIMER")
    if not timer or timer["count"] < N or \
            timer["max_ns"] < jt.spin_floor_ns(D_US * 1000):
        raise jt.Fail(f"softirq:TIMER: {timer}")
    if cpu["summary"]["lost_events"]:
        raise jt.Fail(f"lost events: {cpu['summary']}")
    if d["file_version"] != 2 or not d["system"]["tsc_khz"]:
        raise jt.Fail(f"system block: {d['system']}")
    rc, txt = jt.sh([jr, "--replay", rec, "-c", str(CPU), "-q", "--json",
                     out + ".2"], check=False)
    with open(out + ".2") as f:
        if rc or json.load(f)["cpus"] != d["cpus"]:
            raise jt.Fail(f"replay differs from the live run: {txt}")


def top_view(jr):
    rc, out = jt.sh([jr, "--top", "-d", "3s", "-c", str(CPU)], check=False)
    frames = out.count("jitread --top:")
    rows = [ln for ln in out.splitlines() if ln.split()[:1] == [str(CPU)]]
    jt.log(f"--top: {frames} frames, last row: {rows[-1] if rows else None}")
    if rc or frames < 2 or not rows:
        raise jt.Fail(f"--top (exit {rc}) printed: {out[-400:]}")


def on_threshold(jr, tmp):
    """-s sets stop_us; the stop runs the actions and ends the run."""
    trace, hit = os.path.join(tmp, "stop.txt"), os.path.join(tmp, "hit")
    p = subprocess.Popen([jr, "-q", "-d", "60s", "-s", "40000",
                          "--on-threshold", f"trace={trace}",
                          "--on-threshold", f"exec=touch {hit}"],
                         stderr=subprocess.PIPE, text=True)
    if not jt.wait_for(reading, 20):
        p.kill()
        raise jt.Fail("jitread made no instance")
    time.sleep(0.5)
    # An IPI that lands in the sampler's sleep makes no gap: try again
    # until jitread ends.
    for _ in range(ATTEMPTS):
        jt.inject("ipi", 80000)
        try:
            _, err = p.communicate(timeout=5)
            break
        except subprocess.TimeoutExpired:
            continue
    else:
        p.kill()
        jt.diagnose(CPU)
        raise jt.Fail(f"jitread did not end on the stop after {ATTEMPTS} "
                      "80 ms IPIs")
    jt.log(f"on-threshold: exit {p.returncode}: {err.strip()}")
    if p.returncode or "jitmod stopped: single gap" not in err or \
            not os.path.exists(hit):
        raise jt.Fail(f"actions did not run: {err}")
    with open(trace) as f:
        if "irq:call_function_single" not in f.read():
            raise jt.Fail("the saved trace lacks the culprit")
    jt.write(f"{jt.JIT_PARAMS}/stop_us", 0)
    jt.write(f"{jt.JIT_PARAMS}/enable", 1)


def terminated_reader(jr):
    """SIGTERM ends a run cleanly: report, exit 0, instance removed."""
    p = subprocess.Popen([jr, "-d", "1h", "-c", str(CPU)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if not jt.wait_for(reading, 20):
        p.kill()
        raise jt.Fail("jitread made no instance")
    time.sleep(1.5)
    p.terminate()
    out, err = p.communicate(timeout=30)
    if p.returncode or "per-CPU summary" not in out or instances():
        raise jt.Fail(f"SIGTERM: exit {p.returncode}, instances "
                      f"{instances()}: {err.strip()}")


def killed_reader(jr):
    p = subprocess.Popen([jr, "-q", "-d", "1h"], stderr=subprocess.DEVNULL)
    if not jt.wait_for(lambda: f"jitread-{p.pid}" in instances(), 10):
        p.kill()
        raise jt.Fail("jitread made no instance")
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    if f"jitread-{p.pid}" not in instances():
        raise jt.Fail("SIGKILL left nothing to clean up?")
    rc, out = jt.sh([jr, "-d", "2s", "-c", str(CPU)], check=False)
    if rc or "removed 1 stale instance" not in out:
        raise jt.Fail(f"next run did not clean up (exit {rc}): {out[-300:]}")
    if instances():
        raise jt.Fail(f"instances left: {instances()}")


def rmmod_under_reader(jr):
    p = subprocess.Popen([jr, "-q", "-d", "1h"], stderr=subprocess.PIPE,
                         text=True)
    if not jt.wait_for(reading, 20):
        p.kill()
        raise jt.Fail("jitread made no instance")
    time.sleep(1)
    jt.rmmod("jitinject")
    jt.rmmod("jitmod")
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise jt.Fail("jitread did not notice the rmmod within 30 s")
    jt.log(f"rmmod under jitread: exit {p.returncode}: {err.strip()}")
    if p.returncode != 3 or "jitmod was unloaded" not in err or \
            len(err.strip().splitlines()) != 1:
        raise jt.Fail(f"want exit 3 and one line, got {p.returncode}: {err}")
    if instances():
        raise jt.Fail(f"instance left after rmmod: {instances()}")


def body():
    jr = jt.jitread()
    # runtime = period: each injection must be seen, so the sampler may
    # sleep only its 100 us minimum a second, not the default 100 ms.
    jt.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=1000000,
              runtime_us=1000000)
    jt.insmod("jitinject", cpu=CPU)
    tmp = f"/tmp/jitread-live-{os.getpid()}"
    os.makedirs(tmp, exist_ok=True)
    rc, out = jt.sh([jr, "-c", "0", "-d", "1s"], check=False)
    if rc != 2 or "CPU 0 is not sampled by jitmod" not in out:
        raise jt.Fail(f"-c 0 (not sampled): exit {rc}: {out}")
    live_attribution(jr, tmp)
    top_view(jr)
    on_threshold(jr, tmp)
    terminated_reader(jr)
    killed_reader(jr)
    rmmod_under_reader(jr)


if __name__ == "__main__":
    sys.exit(jt.run(body))
