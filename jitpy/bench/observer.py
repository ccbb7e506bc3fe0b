# SPDX-License-Identifier: GPL-2.0
"""make bench-user, part 4: what the user sampler's BPF classifier costs
the CPU it watches.

Rounds alternate `jitread user --no-pipeline` on BENCH_CPU with the
classifier (its 34 programs on the tracepoints it names gaps by) and
with --no-bpf, the order turned every round so that a drift of the
machine weighs on both.  Each run gives the gaps it counted per second
and the noise it measured (the CPU's noise_ns over its runtime); a
round's ratio is the run with the classifier over the run without.  The
figures are the rounds' medians, with their spread, against the goal:
within 5 % either way, so that the classifier adds no gaps of its own
by lengthening the interrupts and switches it watches.

While a classified run still samples, the kernel's BPF statistics are
on (kernel.bpf_stats_enabled, restored after) and each jr_* program's
run time and runs are read (bpftool prog show): its ns per run, and
what all of them took over the run's length, on every CPU together.
"""

import json
import os
import subprocess
import time

import jitpy
from jitpy.bench import attach
from jitpy.bench.report import med

GOAL = 0.05


def sampler_run(cpu, secs, tmp, classify):
    """One sampler-only run: (gaps/s, noise share, {program: (ns, runs)}
    read just before it ended, or {} without the classifier)."""
    out, ready = os.path.join(tmp, "o.json"), os.path.join(tmp, "o.ready")
    if os.path.exists(ready):
        os.unlink(ready)
    p = subprocess.Popen([jitpy.JITREAD, "user", "-c", str(cpu), "-d",
                          f"{secs}s", "--no-pipeline", "-q", "--ready-file",
                          ready, "--json", out,
                          *(() if classify else ("--no-bpf",))],
                         stderr=subprocess.PIPE, text=True)
    progs = {}
    try:
        attach.wait_file(ready, p)
        if classify:
            time.sleep(max(0.0, secs - 0.5))
            progs = attach.bpf_progs()
        err = p.communicate(timeout=secs + 60)[1]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode:
        raise RuntimeError(f"jitread user failed: {err[-300:]}")
    with open(out, encoding="utf-8") as f:
        d = json.load(f)
    s, c = d["sampler"], d["cpus"][0]["summary"]
    return (s["gaps"] * 1e9 / s["runtime_ns"],
            c["noise_ns"] / c["runtime_ns"], progs, s["runtime_ns"])


def rounds(cpu, n, secs, tmp, say=lambda i, r: None):
    """n rounds, with and without the classifier, the order turned every
    round."""
    out = []
    with attach.BpfStats():
        for i in range(n):
            r = {}
            for classify in ((True, False) if i % 2 == 0 else
                             (False, True)):
                rate, noise, progs, ns = sampler_run(cpu, secs, tmp,
                                                     classify)
                key = "on" if classify else "off"
                r[key] = {"gaps_per_s": rate, "noise": noise}
                if classify:
                    r["progs"], r["ns"] = progs, ns
            out.append(r)
            say(i, r)
    return out


def figures(rs):
    """The median ratios on/off and their rounds; each program's ns per
    run and the share of one CPU all took, each the rounds' median."""
    def ratios(k):
        return [r["on"][k] / r["off"][k] if r["off"][k] else None
                for r in rs]
    names = sorted({n for r in rs for n in r["progs"]})
    per_run = {n: med([r["progs"][n][0] / r["progs"][n][1] for r in rs
                       if r["progs"].get(n, (0, 0))[1]]) for n in names}
    runs_per_s = {n: med([r["progs"].get(n, (0, 0))[1] * 1e9 / r["ns"]
                          for r in rs]) for n in names}
    share = med([sum(ns for ns, _ in r["progs"].values()) / r["ns"]
                 for r in rs])
    return {"gaps": ratios("gaps_per_s"), "noise": ratios("noise"),
            "per_run_ns": per_run, "runs_per_s": runs_per_s,
            "share": share}


def lines(f):
    """The figures as the bench prints them."""
    out = []
    for k, what in (("gaps", "gap rate"), ("noise", "noise")):
        xs = [x for x in f[k] if x is not None]
        if not xs:
            out.append(f"classifier: {what}: no round to compare")
            continue
        m = med(xs)
        verdict = "met" if abs(m - 1) <= GOAL else "NOT met"
        out.append(f"classifier: {what} with / without: {m:.3f} (rounds "
                   f"{min(xs):.3f} to {max(xs):.3f}; goal within "
                   f"{GOAL:.0%}: {verdict})")
    busy = sorted(f["per_run_ns"], key=lambda n: -(f["per_run_ns"][n] or 0)
                  * (f["runs_per_s"][n] or 0))
    for n in busy:
        if f["runs_per_s"][n]:
            out.append(f"classifier: {n}: {f['per_run_ns'][n]:.0f} ns a "
                       f"run, {f['runs_per_s'][n]:.0f} runs/s")
    if f["share"] is not None:
        out.append(f"classifier: its programs took {f['share']:.3%} of one "
                   "CPU, on all CPUs together")
    return out
