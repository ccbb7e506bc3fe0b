# SPDX-License-Identifier: GPL-2.0
"""make bench-merge: the survey's fleet merge on rank 0, natively.

A rank report as a survey rank writes it (jitread report's JSON of a
recording with MERGE_GAPS timeline gaps, 20,000 by default, the most a
report keeps, with its survey member) is merged as the report of each of
N ranks, each on a host of its own, by tests/host/c/survey_test.c
--ranks N, which links
user/libjrcore.a as jitread does: each report read, merged, let go, then
the fleet analysed and its JSON written.  For N in MERGE_RANKS (100,
1000, 10000) it prints the reports' bytes over the child's CPU time
(user and system, so that other load on the machine does not count) and
its peak RSS.

Figures and goals:
- merge rate, MB of reports per CPU second at the most ranks (goal >= 100);
- rank 0's peak RSS at the most ranks over the fewest (goal <= 1.5: flat).

A benchmark, not a test: it exits 0 whatever the figures (1 only if a
tool is missing or fails).
"""

import json
import os
import subprocess
import sys
import tempfile

import jitpy
from jitpy.bench import env_int, machine
from jitpy.formats import recording as jrrec
from jitpy.formats import survey as jrsurvey

TOP = jitpy.TOP
USER = os.path.join(TOP, "user")
RATE_GOAL = 100.0  # MB/s
RSS_GOAL = 1.5  # peak RSS at the most ranks / at the fewest


def env_ints(name, default):
    return [int(x) for x in os.environ.get(name, default).split()]


def rank_report(tmp, gaps):
    """A rank's report with gaps timeline gaps: its path and size."""
    rec, rep = os.path.join(tmp, "r.rec"), os.path.join(tmp, "r.json")
    jrrec.write(rec, [jrrec.gap(1, 2000 + i % 5000, ts=10000 * (i + 1))
                      for i in range(gaps)] +
                [jrrec.summary(1, 10**9, 10**8, 7000)])
    subprocess.run([jitpy.JITREAD, "report", rec, "-q", "--json", rep],
                   check=True)
    with open(rep) as f:
        report = json.load(f)
    path = os.path.join(tmp, "rank.json")
    with open(path, "w") as f:
        json.dump(jrsurvey.rank_report(report, 0, "host-000000"), f)
    return path, os.path.getsize(path)


def build(tmp):
    exe = os.path.join(tmp, "survey_test")
    subprocess.run(["cc", "-O2", "-std=gnu11", f"-I{USER}",
                    f"-I{os.path.join(TOP, 'include')}", "-pthread", "-o",
                    exe, os.path.join(TOP, "tests", "host", "c",
                                      "survey_test.c"),
                    os.path.join(USER, "libjrcore.a"), "-lm", "-ljansson"],
                   check=True)
    return exe


def merge(exe, ranks, path):
    """One merge of ranks copies: (CPU s, wall s, peak RSS KiB)."""
    t0 = os.times()
    p = subprocess.Popen([exe, "--ranks", str(ranks), path],
                         stdout=subprocess.PIPE, text=True)
    out = p.communicate()[0]  # and reaped: its times are the children's
    t1 = os.times()
    if p.returncode or "refused" in out:
        raise RuntimeError(f"survey_test --ranks {ranks}: {out.strip()}")
    cpu = (t1.children_user - t0.children_user +
           t1.children_system - t0.children_system)
    rss = int(out.split("maxrss_kb ")[1])
    return cpu, t1.elapsed - t0.elapsed, rss


def met(ok):
    return "met" if ok else "not met"


def main():
    if not os.path.exists(os.path.join(USER, "libjrcore.a")) or \
            not os.access(jitpy.JITREAD, os.X_OK):
        print("bench-merge: user/ not built (make user)", file=sys.stderr)
        return 1
    ranks = env_ints("MERGE_RANKS", "100 1000 10000")
    gaps = env_int("MERGE_GAPS", 20000)
    print(f"# {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        path, size = rank_report(tmp, gaps)
        exe = build(tmp)
        print(f"# a rank report of {size} bytes ({gaps} timeline gaps), "
              "merged as each rank's")
        print(f"{'ranks':>7} {'MB':>9} {'CPU s':>8} {'wall s':>8} "
              f"{'MB/CPU s':>9} {'peak RSS KiB':>13}")
        rows = []
        for n in ranks:
            cpu, wall, rss = merge(exe, n, path)
            mb = n * size / 1e6
            rows.append((n, mb / cpu if cpu else 0, rss))
            print(f"{n:>7} {mb:>9.1f} {cpu:>8.2f} {wall:>8.2f} "
                  f"{rows[-1][1]:>9.1f} {rss:>13}")
    rate, rss = rows[-1][1], rows[-1][2] / rows[0][2]
    print(f"merge rate at {rows[-1][0]} ranks: {rate:.1f} MB/CPU s "
          f"(goal >= {RATE_GOAL:g}): {met(rate >= RATE_GOAL)}")
    print(f"peak RSS at {rows[-1][0]} ranks / at {rows[0][0]}: {rss:.2f} "
          f"(goal <= {RSS_GOAL:g}): {met(rss <= RSS_GOAL)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
