# SPDX-License-Identifier: GPL-2.0
"""The guest half of `make bench`, run by jitpy/bench/suite.py in the rt
kernel.

One boot (3 vCPUs: CPU 0 drives, CPU 1 is sampled, CPU 2 takes the IPIs of
the overhead test), so jitmod and the kernel's osnoise tracer are measured
side by side on the same CPU:

  resolution  ns per loop turn and the smallest gap seen, for jitbench's
              bare rdtsc loop, jitmod and osnoise (counted by a kprobe, its
              own cost measured on jitbench's probed loop and taken off)
  agreement   one injection schedule (jitinject) seen by jitmod, then by
              osnoise: which class each injection was filed under and its
              net duration
  overhead    the median time of a synchronous IPI to CPU 2 with no tracer,
              with jitmod sampling CPU 1, and with osnoise sampling CPU 1
  reader      jitmod's events recorded at once by jitread --record and by
              trace-cmd record, saved for the host to replay
  serve       jitread serve's CPU time at its default duty cycle, and the
              interrupts it causes on the sampled CPU (serve_cost.py)

Prints one line, "JITBENCH <json>", and saves the reader files to
/run/jitvm/save.  Figures from here are TCG figures: relative only.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import jitpy
from jitpy.bench import env_int
from jitpy.bench.serve_cost import serve_cost
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, Skip, log

CPU, IPI_CPU = 1, 2
BENCH = "/sys/module/jitbench/parameters"
OSN = f"{tracefs.ROOT}/osnoise"
SAVE = "/run/jitvm/save"
JITREAD = jitpy.JITREAD
# The osnoise loop calls it once per turn on PREEMPT_RCU kernels (all RT).
OSNOISE_TURN = "rcu_momentary_eqs"
CLASSES = ("hrtimer", "ipi", "softirq", "nmi", "thread")
DURATIONS_US = (50, 200, 1000)
OSN_EVENT = re.compile(r"^(?:(?P<src>.+?):(?P<id>-?\d+) )?start [\d.]+ "
                       r"duration (?P<ns>\d+) ns")
KV = re.compile(r"(\w+)=(\S+)")


def bench_run(cmd):
    """One jitbench measurement; its result as a dict of ints."""
    sysio.write(f"{BENCH}/run", cmd)
    out = sysio.read(f"{BENCH}/result")
    return {k: (v if k == "mode" else int(v)) for k, v in KV.findall(out)}


def loop(mode, ms):
    r = bench_run(f"{mode} {ms}")
    return {"ns_per_iter": r["runtime_ns"] / r["iterations"],
            "min_delta_ns": r["min_delta_ps"] / 1000,
            "iterations": r["iterations"]}


def probe(sym):
    """Count calls to sym on CPU, once its kprobe is a jump, not an int3.

    The optimizer needs an RCU-tasks grace period, which a CPU spinning in
    a kthread delays, so wait for it before the loop starts: then the probe
    costs the same in the calibration loop and in osnoise's.
    """
    sysio.write(f"{BENCH}/probe", sym)
    lst = "/sys/kernel/debug/kprobes/list"
    if not os.path.exists(lst):
        sysio.sh("mount -t debugfs none /sys/kernel/debug", check=False)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        with open(lst) as f:
            if any(sym in ln and "[OPTIMIZED]" in ln for ln in f):
                return True
        time.sleep(0.1)
    return False


def hits_per(seconds):
    """Turns counted by the kprobe on CPU over seconds of wall time."""
    h0, t0 = int(sysio.read(f"{BENCH}/hits")), time.monotonic()
    time.sleep(seconds)
    h1, t1 = int(sysio.read(f"{BENCH}/hits")), time.monotonic()
    return (t1 - t0) * 1e9 / max(h1 - h0, 1)


class Osnoise:
    """The osnoise tracer on CPU, running without a sleep, like jitmod."""

    def __init__(self, thresh_us, events=False):
        sysio.write(f"{OSN}/cpus", CPU)
        sysio.write(f"{OSN}/period_us", 1000000)
        sysio.write(f"{OSN}/runtime_us", 1000000)
        sysio.write(f"{tracefs.ROOT}/tracing_thresh", thresh_us)
        sysio.write(f"{tracefs.ROOT}/trace", "")
        sysio.write(f"{tracefs.ROOT}/events/osnoise/enable",
                    1 if events else 0)
        sysio.write(f"{tracefs.ROOT}/current_tracer", "osnoise")

    def text(self):
        return sysio.read(f"{tracefs.ROOT}/trace")

    def clear(self):
        sysio.write(f"{tracefs.ROOT}/trace", "")

    def close(self):
        sysio.write(f"{tracefs.ROOT}/current_tracer", "nop")
        sysio.write(f"{tracefs.ROOT}/events/osnoise/enable", 0)
        sysio.write(f"{tracefs.ROOT}/tracing_thresh", 0)


def jitmod_load(threshold_ns=10000, **params):
    """jitmod on CPU, runtime = period = 1 s unless params say otherwise."""
    kmod.insmod("jitmod", **{"cpus": CPU, "threshold_ns": threshold_ns,
                             "period_us": 1000000, "runtime_us": 1000000,
                             **params})


def summaries(secs, skip=0, limit_s=None, what="", **params):
    """jitmod loaded (jitmod_load(**params)) until secs of CPU's summaries
    have come, the first skip of them left out, or limit_s (secs + skip +
    30) have passed; those summaries.  what prefixes the failure."""
    jitmod_load(**params)
    with tracefs.Instance("bench", events=("jitmod/summary",)) as inst:
        sums = []
        end = time.monotonic() + (secs + skip + 30 if limit_s is None
                                  else limit_s)
        while len(sums) < secs and time.monotonic() < end:
            time.sleep(0.5)
            sums = [e for e in trace.parse(inst.text())
                    if e.name == "summary" and e.cpu == CPU][skip:]
    kmod.rmmod("jitmod")
    if not sums:
        raise Fail(f"{what}jitmod wrote no summary")
    return sums


def jitmod_resolution(secs, skip=0):
    """ns per turn and smallest delta from jitmod's own summaries, the
    first skip of them left out."""
    sums = summaries(secs, skip)
    run = sum(e.ns("runtime_ns") for e in sums)
    it = sum(e.num("iterations") for e in sums)
    return {"ns_per_iter": run / it,
            "min_delta_ns": min(e.num("resolution_ps") for e in sums) / 1000,
            "iterations": it}


def osnoise_resolution(secs, probe_cost):
    """osnoise's ns per turn: a kprobe counts its turns; its cost is known."""
    optimized = probe(OSNOISE_TURN)
    osn = Osnoise(1)
    try:
        time.sleep(0.5)
        raw = hits_per(secs)
    finally:
        osn.close()
        sysio.write(f"{BENCH}/probe", "-")
    return {"ns_per_iter_probed": raw, "ns_per_iter": raw - probe_cost,
            "threshold_floor_ns": 1000, "optimized": optimized}


def resolution(rounds, secs):
    """Rounds of bare, jitmod, probe calibration and osnoise, alternating."""
    out = {k: [] for k in ("bare", "jitmod", "probe_cost", "osnoise")}
    ms = secs * 1000
    for _ in range(rounds):
        out["bare"].append(loop("bare", ms))
        out["jitmod"].append(jitmod_resolution(secs))
        plain = loop("probed", ms)
        optimized = probe(OSNOISE_TURN)
        probed = loop("probed", ms)
        sysio.write(f"{BENCH}/probe", "-")
        cost = probed["ns_per_iter"] - plain["ns_per_iter"]
        out["probe_cost"].append({"ns": cost, "optimized": optimized,
                                  "probed_ns_per_iter": probed["ns_per_iter"],
                                  "plain_ns_per_iter": plain["ns_per_iter"]})
        out["osnoise"].append(osnoise_resolution(secs, cost))
    return out


def loop_rounds(rounds, secs):
    """jitmod's loop and jitbench's bare rdtsc loop, rounds times, the
    order turned each round (ABBA), so that a drift of the emulator's
    speed weighs on both alike: per round, each one's ns per turn.

    Loading and unloading jitmod patches kernel text, after which TCG
    translates the next loop afresh: a bare loop right after jitmod read
    up to 1.8 times slower than one after another bare loop.  So each
    measurement follows a short run of the same loop that is thrown away:
    a 200 ms bare loop, and jitmod's first period (skip=1)."""
    out = []
    for r in range(rounds):
        one = {}
        for mode in (("bare", "jitmod") if r % 2 == 0 else
                     ("jitmod", "bare")):
            if mode == "bare":
                loop("bare", 200)
                one[mode] = loop("bare", secs * 1000)["ns_per_iter"]
            else:
                one[mode] = jitmod_resolution(secs, skip=1)["ns_per_iter"]
        out.append(one)
    return out


def jitmod_match(cls, events):
    """The jitmod event an injection of cls should make, and its source."""
    want = {
        "hrtimer": ("irq_noise", lambda e: e.f.get("name") == "local_timer"),
        "ipi": ("irq_noise",
                lambda e: e.f.get("name") == "call_function_single"),
        "softirq": ("softirq_noise", lambda e: "[TIMER]" in e.body),
        "nmi": ("nmi_noise",
                lambda e: e.f.get("handler", "").startswith("jinj_nmi")),
        "thread": ("thread_noise",
                   lambda e: e.f.get("comm") == f"jitinject/{CPU}"),
    }[cls]
    hits = [e for e in events if e.name == want[0] and want[1](e)]
    return [(e.name, e.ns("duration_ns")) for e in hits]


def osnoise_match(cls, events):
    """The same for osnoise's events (on RT, softirqs are threads)."""
    def src(e):
        m = OSN_EVENT.match(e.body)
        return (m["src"] or "").strip() if m else None

    want = {
        "hrtimer": ("irq_noise", lambda s: s == "local_timer"),
        "ipi": ("irq_noise", lambda s: s == "call_function_single"),
        "softirq": ("thread_noise",
                    lambda s: s in (f"ktimers/{CPU}", f"ksoftirqd/{CPU}")),
        "nmi": ("nmi_noise", lambda s: True),
        "thread": ("thread_noise", lambda s: s == f"jitinject/{CPU}"),
    }[cls]
    out = []
    for e in events:
        m = OSN_EVENT.match(e.body)
        if e.name == want[0] and m and want[1](src(e)):
            out.append((e.name, int(m["ns"])))
    if cls == "softirq":   # generic kernels: a real softirq_noise event
        out += [(e.name, int(OSN_EVENT.match(e.body)["ns"]))
                for e in events if e.name == "softirq_noise" and
                OSN_EVENT.match(e.body) and "TIMER" in e.body]
    return out


def schedule(reps):
    return [(c, d) for d in DURATIONS_US for c in CLASSES
            for _ in range(reps)]


def run_schedule(tool, reps, text, clear, match):
    """Inject each (class, D); keep what the tool filed for it on CPU."""
    rows = []
    for cls, d in schedule(reps):
        clear()
        injector.fire(cls, d)
        time.sleep(0.05)
        ev = [e for e in trace.parse(text()) if e.cpu == CPU]
        found = match(cls, ev)
        big = [ns for _, ns in found if ns >= d * 500]
        rows.append({"tool": tool, "class": cls, "d_us": d,
                     "seen": bool(big), "ns": max(big) if big else None,
                     "smaller": len(found) - len(big)})
    return rows


def agreement(reps):
    kmod.insmod("jitinject", cpu=CPU)
    rows = []
    try:
        jitmod_load()
        with tracefs.Instance("agree") as inst:
            rows += run_schedule("jitmod", reps, inst.text, inst.clear,
                                 jitmod_match)
        kmod.rmmod("jitmod")
        osn = Osnoise(10, events=True)
        try:
            rows += run_schedule("osnoise", reps, osn.text, osn.clear,
                                 osnoise_match)
        finally:
            osn.close()
    finally:
        kmod.rmmod("jitmod")
        kmod.rmmod("jitinject")
    return rows


def ipi_median(n):
    r = bench_run(f"ipi {n}")
    return {"median_ns": r["median_ns"], "min_ns": r["min_ns"],
            "mean_ns": r["mean_ns"]}


def overhead(rounds, n):
    """IPIs to CPU 2 while CPU 1 spins, in five states.

    none: a Python loop spins on CPU 1; spin: jitbench's bare rdtsc loop
    does (it reads the TSC as often as jitmod, which under TCG is itself a
    cost to the other vCPUs); probes: jitmod is loaded and hooked but its
    sampler sleeps, while the Python loop spins; jitmod and osnoise: each
    samples CPU 1.  So the loop and the probes are measured apart.
    """
    out = {"none": [], "spin": [], "probes": [], "jitmod": [], "osnoise": []}
    py = ["taskset", "-c", str(CPU), sys.executable, "-c",
          "while True: pass"]

    def measure(state, spinner=False):
        """One round of state; spinner: the Python loop on CPU 1 meanwhile."""
        p = subprocess.Popen(py) if spinner else None
        time.sleep(0.2)
        sysio.write(f"{BENCH}/cpu", IPI_CPU)
        try:
            out[state].append(ipi_median(n))
        finally:
            sysio.write(f"{BENCH}/cpu", CPU)
            if p:
                p.kill()
                p.wait()

    for _ in range(rounds):
        measure("none", spinner=True)
        bench_run_async(f"spin {5000}")
        try:
            measure("spin")
        finally:
            bench_run_async("spin 0")
        kmod.insmod("jitmod", cpus=CPU, period_us=60000000, runtime_us=1)
        try:
            measure("probes", spinner=True)
        finally:
            kmod.rmmod("jitmod")
        jitmod_load()
        try:
            measure("jitmod")
        finally:
            kmod.rmmod("jitmod")
        osn = Osnoise(10)
        try:
            measure("osnoise")
        finally:
            osn.close()
    return out


def bench_run_async(cmd):
    sysio.write(f"{BENCH}/run", cmd)


def reader_capture(secs):
    """jitmod's events recorded by jitread, then by trace-cmd, alike.

    One after the other: jitread fails with EIO while a trace-cmd instance
    records the same events (not yet understood), and trace-cmd record's
    per-CPU recorder barely runs on a CPU that jitmod keeps busy on the rt
    kernel, so trace-cmd fills its instance and extracts with sampling off.
    """
    jitmod_load(threshold_ns=1000)
    rec, dat = "/tmp/bench-reader.rec", "/tmp/bench-reader.dat"
    inst = f"jitbench-{os.getpid()}"
    try:
        sysio.sh([JITREAD, "-c", str(CPU), "-d", f"{secs}s", "-q", "--record",
                  rec, "--json", "/dev/null"], timeout=secs + 60)
        sysio.sh(["trace-cmd", "start", "-B", inst, "-b", "8192", "-e",
                  "jitmod"], timeout=120)
        time.sleep(secs)
        sysio.sh(["trace-cmd", "stop", "-B", inst])
        sysio.write(f"{kmod.JIT_PARAMS}/enable", 0)
        sysio.sh(["trace-cmd", "extract", "-B", inst, "-o", dat], timeout=300)
    finally:
        sysio.sh(["trace-cmd", "reset", "-B", inst], check=False)
        if os.path.isdir(f"{tracefs.ROOT}/instances/{inst}"):
            os.rmdir(f"{tracefs.ROOT}/instances/{inst}")
        kmod.rmmod("jitmod")
    # extract names the instance's data after it
    saved = [f for f in os.listdir("/tmp")
             if f.startswith("bench-reader.dat")]
    for f in [os.path.basename(rec)] + saved:
        shutil.copy(os.path.join("/tmp", f), SAVE)
    return {"rec": os.path.basename(rec), "dat": saved, "seconds": secs}


def task_state(pid):
    """What a live process is doing: its state, and per thread the kernel
    function it waits in and its kernel stack."""
    out = {}
    try:
        with open(f"/proc/{pid}/stat") as f:
            out["state"] = f.read().rsplit(")", 1)[1].split()[0]
        for tid in sorted(os.listdir(f"/proc/{pid}/task")):
            t = f"/proc/{pid}/task/{tid}"
            with open(f"{t}/comm") as f, open(f"{t}/wchan") as w, \
                    open(f"{t}/stack") as k:
                out[tid] = {"comm": f.read().strip(), "wchan": w.read(),
                            "stack": k.read().splitlines()[:12]}
    except OSError as e:
        out["error"] = str(e)
    return out


def late_jitread():
    """A 2 s jitread run after everything else: exit code and output, and
    on a failure or a hang what jitread was doing and the kernel log's
    tail (this run has hung, and failed with EIO, after the other parts)."""
    jitmod_load(threshold_ns=1000)
    res = {}
    p = subprocess.Popen([JITREAD, "-c", str(CPU), "-d", "2s", "-q", "--json",
                          "/dev/null"], text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        res["hung"] = task_state(p.pid)
        sysio.dump_blocked_tasks()
        p.kill()
        try:
            out, _ = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            out = "(not reaped after SIGKILL)"
    try:
        kmod.rmmod("jitmod")
    except Fail as e:
        res["rmmod"] = str(e)[-300:]
    res.update(rc=p.returncode, out=out.strip()[-300:],
               instances=os.listdir(f"{tracefs.ROOT}/instances"))
    if p.returncode or "hung" in res:
        res["dmesg"] = subprocess.run(["dmesg"], capture_output=True,
                                      text=True, check=False
                                      ).stdout.splitlines()[-60:]
    return res


def run_parts(tag, res, parts):
    """Each (name, fn) of parts into res[name], in order, with the time it
    took logged; a part that cannot run is {"skipped": why}, and the rest
    still run.  Then jitbench, which the parts use, is unloaded, and res
    printed as one line, "TAG <json>"; 0."""
    try:
        for name, fn in parts:
            t0 = time.monotonic()
            try:
                res[name] = fn()
            except (Fail, OSError, subprocess.SubprocessError) as e:
                res[name] = {"skipped": str(e)[-300:]}
            log(f"{name}: {time.monotonic() - t0:.0f} s")
    finally:
        kmod.rmmod("jitbench")
    print(f"{tag} " + json.dumps(res), flush=True)
    return 0


def run_main(main, name):
    """A guest half's entry point: main()'s exit code, or 1 and one line
    on stderr."""
    try:
        sys.exit(main())
    except (Fail, Skip, OSError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        sys.exit(1)


def main():
    kmod.require(min_cpus=3)
    rounds = env_int("BENCH_ROUNDS", 3)
    secs = env_int("BENCH_SECONDS", 2)
    kmod.insmod("jitbench", cpu=CPU)
    res = {"kernel": os.uname().release, "cpus": os.cpu_count(),
           "rounds": rounds, "seconds": secs}
    # The reader capture goes first: after the other parts jitread's
    # reads have failed with EIO in this guest (see late_jitread below).
    parts = (
        ("reader", lambda: reader_capture(env_int("BENCH_READER_SECONDS",
                                                  6))),
        ("resolution", lambda: resolution(rounds, secs)),
        ("loop", lambda: loop_rounds(env_int("BENCH_LOOP_ROUNDS", 7),
                                     env_int("BENCH_LOOP_SECONDS", 2))),
        ("agreement", lambda: agreement(env_int("BENCH_REPS", 3))),
        ("overhead", lambda: overhead(rounds + 2,
                                      env_int("BENCH_IPIS", 5000))),
        ("serve", lambda: serve_cost(env_int("BENCH_SERVE_SECONDS", 30))),
        ("late_jitread", late_jitread),
    )
    res["osnoise_turn_probe"] = OSNOISE_TURN
    return run_parts("JITBENCH", res, parts)


if __name__ == "__main__":
    run_main(main, "bench-guest")
