#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread compare with the module: both sides, side by side.

Two rounds of kernel and user phases on CPU 1 (the pipeline shares it with
--wait yield): the report has jitmod's summaries from the kernel phases,
the user sampler's from the user phases, BPF loaded in the guest, a
verified pipeline whose journals (one per round, --journal FILE.r) hold
every message, the per-CPU comparison and why its floors differ, and
jitmod's enable put back.
--fail-if judges each side by its own model: a condition that holds on
the kernel side exits 4 with one line, and those that cannot hold (on the
user side, and without side=, the kernel's) add none.
"""

import json
import os
import re
import sys

import jittest as jt
from jitpy.formats import journal as jrjournal
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
ROUNDS = 2
ATTEMPTS = 2


def check_why(cmp, k, u, text):
    """Why the floors differ: each side's classes add up to its noise,
    its top source is there at its own rate, each row's difference is
    user minus kernel, and the rows rank by its size, classes first."""
    why = cmp["why"]
    rows = why["rows"]
    for side, c in (("kernel", k), ("user", u)):
        run = c["summary"]["runtime_ns"] / 1e9
        noise = c["summary"]["noise_ns"] / run
        if abs(why["noise_ns_per_s"][side] - noise) > 1:
            raise Fail(f"{side} noise {why['noise_ns_per_s'][side]} ns/s, "
                       f"the summaries say {noise}")
        classes = sum(r[f"{side}_ns_per_s"] for r in rows
                      if r["kind"] == "class")
        if abs(classes - noise) > 0.01 * noise + 1000:
            raise Fail(f"{side}: the classes add up to {classes} ns/s, "
                       f"its noise is {noise}: {rows}")
        if c["sources"]:
            top = c["sources"][0]
            got = [r[f"{side}_ns_per_s"] for r in rows
                   if r["kind"] == "source" and r["name"] == top["source"]]
            if len(got) != 1 or abs(got[0] - top["total_ns"] / run) > 1:
                raise Fail(f"{side}'s top source {top} in the rows: {got}")
    for r in rows:
        if abs(r["diff_ns_per_s"] - r["user_ns_per_s"] +
               r["kernel_ns_per_s"]) > 0.01:
            raise Fail(f"a row's difference is not user minus kernel: {r}")
    order = [(r["kind"] == "source", -abs(r["diff_ns_per_s"])) for r in rows]
    if order != sorted(order):
        raise Fail(f"the rows are not ranked: {rows}")
    said = [ln for ln in text.splitlines()
            if ln.startswith(f"CPU {CPU}: the user thread lost ")]
    if "# why they differ" not in text or len(said) != 1:
        raise Fail(f"no explanation in the text: {text[-800:]}")
    log(said[0])


def check_user_only(cmp, d):
    """The user thread's own counts: the same in the comparison as in the
    sampler's block, and no migration of the pinned thread.  A fault or a
    wait is the kernel's doing and is logged, not refused: the generic
    kernel once gave the locked loop one fault that slept (compaction
    may move locked pages there)."""
    mine = [t["counts"] for t in d["sampler"]["threads"] if t["cpu"] == CPU]
    if not mine or cmp["why"]["user_only"] != mine[0]:
        raise Fail(f"user_only {cmp['why']['user_only']}, the sampler's "
                   f"{mine}")
    n = mine[0]
    if n["migrations"] not in (0, None):
        raise Fail(f"the pinned sampler migrated: {n}")
    log(f"user thread: {n}")


def check_read_back(jitread, out, cmp):
    """diff of the comparison with itself carries each row's difference
    twice and the counts twice; advise reads the counts."""
    rc, text, err = sysio.sh_split([jitread, "diff", out, out, "--json",
                                    "-"], timeout=60)
    if rc != 0:
        raise Fail(f"jitread diff of the comparison: exit {rc}: {err}")
    got = [c for c in json.loads(text)["cpus"] if c["cpu"] == CPU]
    w = got[0].get("user_minus_kernel") if got else None
    if not w:
        raise Fail("diff of two comparisons shows no user_minus_kernel")
    want = {(r["kind"], r["name"]): r["diff_ns_per_s"]
            for r in cmp["why"]["rows"]}
    rows = {(r["kind"], r["name"]): r["ns_per_s"] for r in w["rows"]}
    if set(rows) != set(want) or any(
            abs(a - want[k]) > 0.01 or a != b for k, (a, b) in rows.items()):
        raise Fail(f"diff's rows {rows}, the comparison's {want}")
    if w["user_only"] != [cmp["why"]["user_only"]] * 2:
        raise Fail(f"diff's user_only {w['user_only']}")
    rc, text, err = sysio.sh_split([jitread, "advise", out, "--json", "-"],
                                   timeout=60)
    if rc != 0:
        raise Fail(f"jitread advise of the comparison: exit {rc}: {err}")
    rules = [x["rule"] for x in json.loads(text)["user_thread"]]
    n = cmp["why"]["user_only"] or {}
    want = [r for r, k in (("user-faults", ("minor_faults", "major_faults")),
                           ("user-waited", ("waited",)))
            if sum(n.get(c) or 0 for c in k)]
    if [r for r in rules if r in ("user-faults", "user-waited")] != want:
        raise Fail(f"advise's rules {rules} for the counts {n}")


def attempt(_try=0):
    """One comparison, checked; Fail says what."""
    jitread = kmod.jitread()
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000)
    out, journal = "/tmp/compare.json", "/tmp/compare-journal"
    # jitread refuses a journal that exists: a failed attempt's goes
    for r in range(1, ROUNDS + 1):
        if os.path.exists(f"{journal}.{r}"):
            os.unlink(f"{journal}.{r}")
    # apart: a pipe buffers stdout, so stderr's lines land inside its
    rc, text, err = sysio.sh_split(
        [jitread, "compare", "--rounds", str(ROUNDS), "--phase", "2s",
         "--wait", "yield", "--warmup-ms", "100", "--json", out,
         "--journal", journal, "--fail-if", "side=kernel,count>=0",
         "--fail-if", "side=user,max>100s", "--fail-if", "max>100s"],
        timeout=240)
    if rc != 4:
        raise Fail(f"jitread compare exit {rc}, not 4: {err[-600:]}")
    verdicts = [ln for ln in err.splitlines() if "fail-if" in ln]
    want = f"'side=kernel,count>=0': kernel side, CPU {CPU}: gap count"
    if len(verdicts) != 1 or want not in verdicts[0]:
        raise Fail(f"--fail-if lines {verdicts}, want one with '{want}'")
    with open(out) as f:
        d = json.load(f)
    kinds = (d["mode"], d["side"], d["user"]["side"])
    if kinds != ("compare", "kernel", "user"):
        raise Fail("report is not a comparison")
    k = [c for c in d["cpus"] if c["cpu"] == CPU]
    u = [c for c in d["user"]["cpus"] if c["cpu"] == CPU]
    if not k or not u:
        raise Fail(f"CPU {CPU} missing on a side: kernel {bool(k)}, "
                   f"user {bool(u)}")
    if k[0]["summary"]["periods"] < ROUNDS:
        raise Fail(f"kernel side: {k[0]['summary']['periods']} periods")
    if u[0]["summary"]["periods"] != ROUNDS:
        raise Fail(f"user side: {u[0]['summary']['periods']} phases")
    s = d["sampler"]
    if not s["bpf"]["ok"]:
        raise Fail(f"BPF did not load in the guest: {s['bpf']['why']}")
    if not d["pipeline"]["verified"] or d["pipeline"]["runs"] != ROUNDS:
        raise Fail(f"pipeline: {d['pipeline']['verdict']}")
    kept = 0
    for r in range(1, ROUNDS + 1):
        path = f"{journal}.{r}"
        if not os.path.exists(path):
            raise Fail(f"round {r}'s journal {path} is missing")
        kept += jrjournal.verify(path)[0]
    if kept != d["pipeline"]["produced"]:
        raise Fail(f"the journals hold {kept} messages, the pipeline "
                   f"produced {d['pipeline']['produced']}")
    cmp = [c for c in d["compare"]["cpus"] if c["cpu"] == CPU]
    if not cmp or set(cmp[0]["avail_pct"]) != {"kernel", "user"}:
        raise Fail("no side-by-side figures for the CPU")
    if d["compare"]["threshold_ns"] != 10000:
        raise Fail("the threshold was not shared")
    check_why(cmp[0], k[0], u[0], text)
    check_user_only(cmp[0], d)
    check_read_back(jitread, out, cmp[0])
    for want in ("kernel side: jitmod", "user side", "# noise floors",
                 f"CPU {CPU}: user minus kernel gap"):
        if want not in text:
            said = [ln for ln in text.splitlines()
                    if ln.startswith(f"CPU {CPU}:")]
            raise Fail(f"text report lacks '{want}'; its CPU {CPU} lines: "
                       f"{said}")
    # the text's times are in us by default, to the ns
    floor = rf"^CPU {CPU}: user minus kernel gap: min [-+]\d+\.\d{{3}} us, "
    if "threshold 10 us; times in us" not in text or \
            not re.search(floor, text, re.M):
        raise Fail("the comparison's text is not in us: "
                   f"{[ln for ln in text.splitlines() if 'us' in ln][:3]}")
    if sysio.read("/sys/module/jitmod/parameters/enable") != "1":
        raise Fail("jitmod's enable was not put back")
    log(f"kernel avail {cmp[0]['avail_pct']['kernel']:.3f}%, user "
        f"{cmp[0]['avail_pct']['user']:.3f}%, user ns/iter "
        f"{s['ns_per_iter']:.1f}, {s['gaps_classified']}/{s['gaps']} "
        "user gaps classified")
    kmod.rmmod("jitmod")


def body():
    """ATTEMPTS tries, each logged: under TCG a phase can be spoiled (a
    side without a gap over the threshold leaves the per-CPU comparison
    line out); a report that lacks a part every time is a jitread bug."""
    jt.attempts(attempt, ATTEMPTS, after_fail=kmod.unload)


if __name__ == "__main__":
    sys.exit(jt.run(body))
