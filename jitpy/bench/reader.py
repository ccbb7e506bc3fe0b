# SPDX-License-Identifier: GPL-2.0
"""make bench-reader: jitread's own cost, replayed and live.

1. Replay: writes BENCH_EVENTS (default 10 M) events, a realistic mix
   (mostly gaps, with irq, softirq, thread and nmi events and one summary
   per 1000, over 4 CPUs and a few hundred distinct sources), then times
   `jitread --replay` on one core and reports events per second.
2. Live: boots the generic kernel in QEMU (2 vCPUs) and samples CPU 1
   with a 1 us threshold, so that TCG's noise gives thousands of events a
   second.  `jitread record` and `trace-cmd record -e jitmod` run at the
   same time, each in its own instance, both pinned to CPU 0.  jitmod is
   paused while they start and stop, and samples for LIVE_S (20 s) in
   between, so both read the same event stream.  Each one's CPU time per
   event and their ratio are printed, the median of ROUNDS runs; then the
   same with `jitread hist`, which also analyses.  Each side's idle cost
   is measured too, the same run with jitmod paused throughout, and each
   run is also given net of it.  Last, at a forced high event rate
   (threshold 100 ns, 10 s), the events each one read and lost, with
   jitread's default 8 MB buffers and with 64 KB ones, which a burst can
   fill before a reader comes.  Both readers share CPU 0 there, so each
   one's losses also depend on the other's load.  For each jitread hist
   run, the irq_work interrupts jitmod saw on the sampled CPU are
   printed, beside trace-cmd and alone: trace-cmd waits in the kernel,
   and the ring buffer wakes such a reader with an irq_work on the CPU
   that wrote the event; jitread only sleeps.

A benchmark, not a test: it prints the figures and the machine, and exits 0
whatever the speed.  The live figure comes from TCG and is relative only.
"""

import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

import jitpy
from jitpy.bench import machine
from jitpy.formats import recording as jrrec
from jitpy.formats import report
from jitpy.guest.sysio import wait_for

TOP = jitpy.TOP

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


LIVE_S = 20
FLOOD_S = 10
LIVE_JSON = "/tmp/bench-live.json"
ROUNDS = 3
TC_EVENT = re.compile(r"\s(?:gap|irq_noise|softirq_noise|nmi_noise|"
                      r"thread_noise|summary|stop):\s")
TC_LOST = re.compile(r"^\s*(?:overrun|commit overrun|dropped events):\s*"
                     r"(\d+)", re.M)


def start(cmd):
    """Popen cmd pinned to CPU 0, output captured."""
    return subprocess.Popen(["taskset", "-c", "0", *cmd],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(p):
    """Wait for p: (its stdout, (user s, system s) of it and its
    children)."""
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise RuntimeError(f"{p.args}: exit {p.returncode}: {err[-300:]}")
    return out, (ru.ru_utime, ru.ru_stime)


def trace_cmd_events(dat):
    """(events, lost) in a trace-cmd recording of the jitmod events."""
    report = subprocess.run(["trace-cmd", "report", "-i", dat],
                            capture_output=True, text=True,
                            check=True).stdout
    stat = subprocess.run(["trace-cmd", "report", "--stat", "-i", dat],
                          capture_output=True, text=True,
                          check=False).stdout
    return (len(TC_EVENT.findall(report)),
            sum(int(n) for n in TC_LOST.findall(stat)))


def enable(on):
    with open("/sys/module/jitmod/parameters/enable", "w") as f:
        f.write("1" if on else "0")


def both(jr_args, secs, buffer_kb, events=True, tc_too=True):
    """jitread jr_args and trace-cmd record (unless tc_too is false), at
    once, on one event stream: jitmod is paused while both start, samples
    for secs (unless events is false), and is paused again while both
    drain; then both get SIGINT.  So each reads the same events, and any
    difference in their counts is loss.  {name: (events, (user s, system
    s), lost)}; jitread hist's report is left in LIVE_JSON."""
    dat, out = "/tmp/bench-tc.dat", LIVE_JSON
    ready = "/tmp/bench-jr.ready"
    jr = os.path.join(TOP, "user", "jitread")
    for f in (dat, ready):
        if os.path.exists(f):
            os.unlink(f)
    enable(False)
    tc = start(["trace-cmd", "record", "-B", "benchtc", "-b",
                str(buffer_kb), "-e", "jitmod", "-o", dat]) if tc_too else None
    j = start([jr, *jr_args, "--buffer-kb", str(buffer_kb),
               "--ready-file", ready]
              + ([] if jr_args[0] == "record" else ["-q", "--json", out]))
    if not wait_for(lambda: os.path.exists(ready), 30, 0.05):
        raise RuntimeError(f"jitread did not write {ready} in 30 s")
    time.sleep(2)  # trace-cmd says nothing when it is ready
    if events:
        enable(True)
    time.sleep(secs)
    enable(False)
    time.sleep(1)
    for p in (j, tc):
        if p:
            p.send_signal(signal.SIGINT)
    jout, jcpu = finish(j)
    if tc:
        _, tcpu = finish(tc)
    enable(True)
    if jr_args[0] == "record":
        counts = report.record_counts(jout)
        jr_res = ((counts[0], jcpu, counts[1]) if counts else
                  (0, jcpu, None))
    else:
        d = report.load(out)
        jr_res = (d["events"], jcpu,
                  sum(c["summary"]["lost_events"] for c in d["cpus"]))
    if not tc:
        return {"jitread " + jr_args[0]: jr_res}
    ev, lost = trace_cmd_events(dat)
    return {"jitread " + jr_args[0]: jr_res, "trace-cmd record":
            (ev, tcpu, lost)}


def irq_work(path, cpu=1):
    """How many irq_work interrupts jitmod saw on cpu, in the jitread
    hist report at path: a reader that waits in the kernel is woken by
    one, sent on the CPU that wrote the event."""
    d = report.load(path)
    return sum(s["count"] for c in d["cpus"] if c["cpu"] == cpu
               for s in c["sources"] if s["source"] == "irq:irq_work")


def per_event(res, fixed=None):
    """Print each side's CPU per event, whole and net of its idle
    cost when fixed gives it; {name: (us per event, net us per event)}."""
    out = {}
    for name, (events, split, lost) in res.items():
        cpu = sum(split)
        whole = 1e6 * cpu / max(events, 1)
        net = None
        if fixed and name in fixed:
            net = 1e6 * max(cpu - fixed[name], 0.0) / max(events, 1)
        out[name] = (whole, net)
        print(f"live {name}: {events} events, {cpu:.2f} s CPU = "
              f"{whole:.2f} us per event"
              + f" (user {split[0]:.2f} s, system {split[1]:.2f} s)"
              + ("" if net is None else f", {net:.2f} net of idle")
              + ("" if lost is None else f", lost {lost}"))
    return out


def idle(cmd):
    """CPU s of each side's run with jitmod paused throughout: what a run
    costs apart from its events (instance, buffers, formats, polls,
    report)."""
    args = [cmd, "-o", "/tmp/bench.rec"] if cmd == "record" else [cmd]
    res = both(args, LIVE_S, 8192, events=False)
    return {name: sum(split) for name, (_, split, _) in res.items()}


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def rounds(cmd, secs, buffer_kb, fixed=None):
    """ROUNDS runs of jitread cmd beside trace-cmd record; prints each
    and the median ratio of CPU per event.  No ratio is made of the
    figures net of idle: trace-cmd's is near 0 at low rates (it
    splices whole pages and wakes rarely), and TCG's noise can make it
    negative, so such a ratio says nothing; the absolute figures are
    printed per run."""
    name = "jitread " + cmd
    args = [cmd, "-o", "/tmp/bench.rec"] if cmd == "record" else [cmd]
    whole, lost, work = [], [], []
    for _ in range(ROUNDS):
        res = both(args, secs, buffer_kb)
        us = per_event(res, fixed)
        whole.append(us[name][0] / us["trace-cmd record"][0])
        lost.append((res[name][2], res["trace-cmd record"][2]))
        if cmd == "hist":
            work.append(irq_work(LIVE_JSON))
    print(f"live ratio: {name} / trace-cmd record = {median(whole):.2f} "
          f"CPU per event, median of {ROUNDS} "
          f"({', '.join(f'{x:.2f}' for x in whole)}) (goal <= 1)")
    if work:
        print("live irq_work interrupts on CPU 1, trace-cmd running: "
              + ", ".join(map(str, work)))
    return lost


def alone(secs, buffer_kb):
    """jitread hist without trace-cmd, ROUNDS times: the irq_work
    interrupts on CPU 1 then, which jitread's own polls should not
    cause."""
    work = []
    for _ in range(ROUNDS):
        res = both(["hist"], secs, buffer_kb, tc_too=False)
        work.append(f"{irq_work(LIVE_JSON)} in {res['jitread hist'][0]} "
                    "events")
    print("live irq_work interrupts on CPU 1, jitread hist alone: "
          + ", ".join(work))


def flood(buffer_kb, why):
    """Both commands beside trace-cmd at the forced high event rate."""
    print(f"live flood: threshold 100 ns, {buffer_kb} KB buffers ({why}), "
          f"{FLOOD_S} s, at once")
    for cmd in ("record", "hist"):
        lost = rounds(cmd, FLOOD_S, buffer_kb)
        print(f"live flood lost (jitread {cmd}, trace-cmd): "
              + ", ".join(f"{a}/{b}" for a, b in lost))


def guest():
    """Inside the VM: jitread and trace-cmd record on one event stream."""
    rel = os.uname().release
    ko = jitpy.module_path(rel)
    subprocess.run(["insmod", ko, "cpus=1", "threshold_ns=1000"], check=True)
    print(f"live: TCG guest, 2 vCPUs, CPU 1 sampled at 1 us; each reader "
          f"on CPU 0, both at once for {LIVE_S} s; relative figures only")
    for cmd in ("record", "hist"):
        fixed = idle(cmd)
        print(f"live idle, the same run with jitmod paused: jitread {cmd} "
              f"{fixed['jitread ' + cmd]:.2f} s CPU, trace-cmd record "
              f"{fixed['trace-cmd record']:.2f} s")
        rounds(cmd, LIVE_S, 8192, fixed)
    subprocess.run(["rmmod", "jitmod"], check=True)
    subprocess.run(["insmod", ko, "cpus=1", "threshold_ns=100"], check=True)
    flood(8192, "jitread's default")
    alone(FLOOD_S, 8192)
    flood(64, "small, to provoke losses")
    subprocess.run(["rmmod", "jitmod"], check=True)


def live():
    """Boot the generic kernel and run guest() there."""
    cmd = [sys.executable, "-m", "jitpy.vm", "-q",
           "-k", "generic", "-s", "2", "-t", "15m", "-C", TOP, "--",
           "python3", "-m", "jitpy.bench.reader", "--guest"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=False,
                       cwd=TOP)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("live")]
    print("\n".join(lines) if lines else
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
