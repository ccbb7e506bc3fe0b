# SPDX-License-Identifier: GPL-2.0
"""make bench: jitmod and jitread against the anchors, side by side, one run.

Kernel figures come from one boot of Debian's rt kernel in QEMU, the only
kernel here with the osnoise tracer (jitpy/bench/guest.py does that half);
user figures are native.  Every comparison is a ratio of two figures taken
in this run; the ones taken under TCG say so, since only their ratios mean
anything.  Writes the table to stdout and bench/results.txt, the raw record to
bench/results.json and a plot to bench/results.png (BENCH_OUT overrides
the directory).

Environment: BENCH_ROUNDS (3), BENCH_SECONDS (2, guest loops),
BENCH_USER_SECONDS (5), BENCH_REPS (3 injections per class and duration),
BENCH_IPIS (5000 per round), BENCH_READER_SECONDS (6), BENCH_LOOP_ROUNDS
(7) and BENCH_LOOP_SECONDS (2) for the kernel loop's rounds,
BENCH_SERVE_SECONDS (30 per phase of serve's cost); BENCH_ICOUNT_ROUNDS (3)
and BENCH_ICOUNT_SECONDS (1) for the deterministic-time half, whose
figures count instructions (jitpy/bench/icount.py).

A benchmark, not a test: it exits 0 whatever the speed, 1 if a part could
not run (each part that cannot run says why and the rest still run).
"""

import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import jitpy
from jitpy.bench import env_int, machine
from jitpy.bench import report as bench_report
from jitpy.bench import user as bench_user
from jitpy.vm import runner as jitvm

TOP = jitpy.TOP

JITREAD = os.path.join(TOP, "user", "jitread")
GUEST_VCPUS = 3


def guest_json(cmd, tag, what):
    """Run the runner's cmd; the JSON its guest printed after tag, or
    raise with what the runner said."""
    p = subprocess.run(cmd, capture_output=True, text=True, check=False,
                       cwd=TOP)
    for line in p.stdout.splitlines():
        if line.startswith(f"{tag} "):
            return json.loads(line[len(tag) + 1:])
    raise RuntimeError(f"{what} exit {p.returncode}: "
                       f"{(p.stdout + p.stderr).strip()[-400:]}")


def run_guest(save):
    """The kernel half in the rt guest; its JSON, or raise with why not."""
    _vmlinuz, release = jitvm.resolve_kernel("rt")
    for name in ("jitmod", "jitinject", "jitbench"):
        if not os.path.exists(jitpy.module_path(release, name)):
            raise RuntimeError(f"{name}.ko for {release} missing "
                               "(make modules-all)")
    env = [f"BENCH_{k}={os.environ[f'BENCH_{k}']}"
           for k in ("ROUNDS", "SECONDS", "REPS", "IPIS", "READER_SECONDS",
                     "LOOP_ROUNDS", "LOOP_SECONDS", "SERVE_SECONDS")
           if f"BENCH_{k}" in os.environ]
    cmd = [sys.executable, "-m", "jitpy.vm", "-q",
           "-k", "rt", "-s", str(GUEST_VCPUS), "-t", "40m", "--save", save]
    for e in env:
        cmd += ["-e", e]
    cmd += ["-C", TOP, "--", "python3", "-m", "jitpy.bench.guest"]
    print(f"# booting {release} ({GUEST_VCPUS} vCPUs) for the kernel "
          "figures", flush=True)
    return guest_json(cmd, "JITBENCH", "guest")


def run_icount():
    """The deterministic-time half in an rt guest on icount; its JSON."""
    _vmlinuz, release = jitvm.resolve_kernel("rt")
    jitvm.find_qemu("icount")
    for name in ("jitmod", "jitbench"):
        if not os.path.exists(jitpy.module_path(release, name)):
            raise RuntimeError(f"{name}.ko for {release} missing "
                               "(make modules-all)")
    cmd = [sys.executable, "-m", "jitpy.vm", "-q", "--clock", "icount",
           "-k", "rt", "-s", str(GUEST_VCPUS), "-t", "40m"]
    for k in ("ICOUNT_ROUNDS", "ICOUNT_SECONDS", "IPIS"):
        if f"BENCH_{k}" in os.environ:
            cmd += ["-e", f"BENCH_{k}={os.environ[f'BENCH_{k}']}"]
    cmd += ["-C", TOP, "--", "python3", "-m", "jitpy.bench.icount"]
    print(f"# booting {release} ({GUEST_VCPUS} vCPUs) on deterministic "
          "time for the instruction counts", flush=True)
    return guest_json(cmd, "JITICOUNT", "icount guest")


def timed(cmd, runs):
    """Median wall seconds of runs of cmd, output thrown away."""
    walls = []
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        walls.append(time.monotonic() - t0)
    return statistics.median(walls)


def reader(save, runs=5):
    """jitread --replay against trace-cmd report on the guest's captures."""
    rec = os.path.join(save, "bench-reader.rec")
    dat = os.path.join(save, "bench-reader.dat")
    out = os.path.join(save, "replay.json")
    subprocess.run([JITREAD, "--replay", rec, "-q", "--json", out],
                   check=True)
    with open(out) as f:
        jr_events = json.load(f)["events"]
    p = subprocess.run(["trace-cmd", "report", "-i", dat],
                       capture_output=True, text=True, check=True)
    tc_events = sum(1 for ln in p.stdout.splitlines()
                    if bench_report.TC_EVENT.search(ln))
    jr_s = timed(["taskset", "-c", "0", JITREAD, "--replay", rec, "-q",
                  "--json", os.devnull], runs)
    tc_s = timed(["taskset", "-c", "0", "trace-cmd", "report", "-i", dat],
                 runs)
    return {"jitread_events": jr_events, "jitread_s": jr_s,
            "tracecmd_events": tc_events, "tracecmd_s": tc_s,
            "runs": runs}


def part(name, fn, res, failed):
    """Run one part; a part that cannot run is reported, not fatal."""
    try:
        res[name] = fn()
    except (RuntimeError, OSError, subprocess.CalledProcessError,
            jitvm.MissingError, KeyError, ValueError) as e:
        res[name] = {"skipped": str(e)}
        failed.append(name)
        print(f"# {name}: not run: {e}", file=sys.stderr, flush=True)


def main():
    if not os.access(JITREAD, os.X_OK):
        print("bench: user/jitread missing (make user)", file=sys.stderr)
        return 1
    outdir = os.environ.get("BENCH_OUT", os.path.join(TOP, "bench"))
    rounds = env_int("BENCH_ROUNDS", 3)
    usecs = env_int("BENCH_USER_SECONDS", 5)
    res = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
           "host": machine(), "file_version": 1}
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        save = os.path.join(tmp, "guest")
        os.makedirs(save)
        part("guest", lambda: run_guest(save), res, failed)
        part("icount", run_icount, res, failed)
        if "skipped" not in res["guest"]:
            part("reader", lambda: reader(save), res, failed)
        part("user", lambda: bench_user.resolution(1, rounds, usecs, tmp),
             res, failed)
        part("pipeline", lambda: bench_user.pipeline(usecs, tmp), res,
             failed)
    res["figures"] = bench_report.figures(res)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    table = bench_report.text(res)
    with open(os.path.join(outdir, "results.txt"), "w") as f:
        f.write(table + "\n")
    print(table)
    bench_report.plot(res, os.path.join(outdir, "results.png"))
    print(f"# wrote {outdir}/results.json, results.txt and results.png")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
