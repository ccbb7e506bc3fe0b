# SPDX-License-Identifier: GPL-2.0
"""make bench-user, part 3: what `jitread attach` costs the application
it watches.

bench/spin/spin.c spins on one CPU for a few seconds and counts the turns
of its loop.  Rounds alternate between it alone and it watched by
`jitread attach -p PID -c CPU` (jitread's own reader then lives on the
other CPUs, as it would in production), the order turned every round so
that a drift of the machine's speed weighs on both.  A round's loss is
1 - the watched rate / the bare rate; the figure is the median of the
rounds' losses, against the goal of 1 % at the machine's own interrupt
rate.

The BPF cost is measured, not inferred from the loss: during the bench
the kernel's BPF statistics are on (kernel.bpf_stats_enabled, restored
after), and before the spinner exits the bench reads every jr_* program's
run time (bpftool prog show).  That time over the events attach recorded
is the cost per recorded event; over the round's length it is the share
of one CPU the probes took, on all CPUs together: the loss's direct
part, which the machine's round-to-round spread does not blur.  What the
probes cause besides (jitread-attach(1), Cost: more RCU softirqs where
tasks switch often) is in the loop's rate alone.
"""

import json
import os
import subprocess
import time

import jitpy
from jitpy.bench.report import med

GOAL = 0.01
STATS = "/proc/sys/kernel/bpf_stats_enabled"


def build(tmp):
    exe = os.path.join(tmp, "spin")
    if not os.path.exists(exe):
        subprocess.run(["cc", "-O2", "-o", exe,
                        os.path.join(jitpy.TOP, "bench", "spin", "spin.c")],
                       check=True, capture_output=True)
    return exe


def wait_file(path, proc, secs=60):
    end = time.monotonic() + secs
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() > end:
            raise RuntimeError(f"{proc.args[1:3]} did not start: "
                               f"{proc.communicate()[1][-300:]}")
        time.sleep(0.05)


def bpf_progs():
    """The loaded BPF programs named jr_* (jitread's, the only ones the
    benches load): name -> (run time in ns, runs), summed over programs
    of one name."""
    p = subprocess.run(["bpftool", "prog", "show", "-j"],
                       capture_output=True, text=True, check=True)
    out = {}
    for x in json.loads(p.stdout):
        name = x.get("name", "")
        if name.startswith("jr_"):
            ns, n = out.get(name, (0, 0))
            out[name] = (ns + x.get("run_time_ns", 0),
                         n + x.get("run_cnt", 0))
    return out


def bpf_run_ns():
    """The run time, in ns, of jitread's loaded BPF programs."""
    return sum(ns for ns, _ in bpf_progs().values())


class BpfStats:
    """kernel.bpf_stats_enabled on for the with block, then as it was."""

    def __enter__(self):
        with open(STATS, encoding="ascii") as f:
            self.was = f.read().strip()
        with open(STATS, "w", encoding="ascii") as f:
            f.write("1")
        return self

    def __exit__(self, *exc):
        with open(STATS, "w", encoding="ascii") as f:
            f.write(self.was)


def spin_run(exe, cpu, secs, tmp, attached):
    """One run of the spinner: (turns per ns, events attach recorded,
    the run's ns, the probes' run time in ns)."""
    p = subprocess.Popen([exe, str(cpu), str(secs)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    a, out, bpf_ns = None, os.path.join(tmp, "attach.json"), 0
    try:
        if attached:
            ready = os.path.join(tmp, "ready")
            if os.path.exists(ready):
                os.unlink(ready)
            a = subprocess.Popen([jitpy.JITREAD, "attach", "-p", str(p.pid),
                                  "-c", str(cpu), "-q", "--json", out,
                                  "--ready-file", ready],
                                 stderr=subprocess.PIPE, text=True)
            wait_file(ready, a)
            bpf_ns = -bpf_run_ns()
        p.stdin.write("go\n")
        p.stdin.flush()
        res = json.loads(p.stdout.readline())
        if a:
            # the spinner waits: attach still runs and its probes are there
            bpf_ns += bpf_run_ns()
        p.stdin.close()
        p.wait(timeout=60)
        events = 0
        if a:
            err = a.communicate(timeout=60)[1]
            if a.returncode:
                raise RuntimeError(f"jitread attach failed: {err[-300:]}")
            with open(out, encoding="utf-8") as f:
                events = json.load(f)["attach"]["events"]
    finally:
        for x in (p, a):
            if x and x.poll() is None:
                x.kill()
                x.wait()
    return res["turns"] / res["ns"], events, res["ns"], bpf_ns


def rounds(cpu, n, secs, tmp, say=lambda i, r: None):
    """n rounds, bare and watched, the order turned every round."""
    exe, out = build(tmp), []
    with BpfStats():
        for i in range(n):
            r = {}
            for attached in ((False, True) if i % 2 == 0 else
                             (True, False)):
                rate, events, ns, bpf_ns = spin_run(exe, cpu, secs, tmp,
                                                    attached)
                if attached:
                    r.update(attached=rate, events=events, ns=ns,
                             bpf_ns=bpf_ns)
                else:
                    r["bare"] = rate
            out.append(r)
            say(i, r)
    return out


def figures(rs):
    """The median loss and its rounds; the probes' ns per event, their
    share of one CPU and the event rate, each the rounds' median."""
    losses = [1 - r["attached"] / r["bare"] for r in rs]
    per_event = [r["bpf_ns"] / r["events"] for r in rs if r["events"]]
    return {"loss": med(losses), "losses": losses,
            "ns_per_event": med(per_event) if per_event else None,
            "bpf_share": med([r["bpf_ns"] / r["ns"] for r in rs]),
            "events_per_s": med([r["events"] * 1e9 / r["ns"] for r in rs])}


def lines(f):
    """The figures as the bench prints them."""
    lo, hi = min(f["losses"]), max(f["losses"])
    # as printed: to a hundredth of a percent
    verdict = "met" if round(f["loss"], 4) <= GOAL else "NOT met"
    out = [f"attach: loop rate lost while watched: {f['loss']:+.2%} "
           f"(rounds {lo:+.2%} to {hi:+.2%}; goal <= {GOAL:.0%}: "
           f"{verdict}), at {f['events_per_s']:.0f} recorded events/s"]
    if f["ns_per_event"] is None:
        out.append("attach: no event recorded, so no cost per event")
    else:
        out.append(f"attach: BPF cost per recorded event: "
                   f"{f['ns_per_event']:.0f} ns (the probes' run time on "
                   "all CPUs over the events)")
    out.append(f"attach: the probes took {f['bpf_share']:.3%} of one CPU, "
               "on all CPUs together: the loss's direct part")
    if lo < 0 < hi:
        out.append("attach: the rounds straddle zero: the loss is within "
                   "the machine's own round-to-round spread")
    return out
