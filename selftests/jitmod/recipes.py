#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The manual's recipes for reading jitmod's events with trace-cmd, perf
and bpftrace (Documentation/jitmod.rst, "With other tools") work as
written, against jitmod sampling CPU 1.

Each block after a ".. recipe: NAME" comment is run by sh, in a
directory of its own, for 3 s instead of 10 ("sleep 10" and bpftrace's
"interval:s:10" made 3); then:
 - trace-cmd: gap lines whose class is a name;
 - perf: a count of jitmod:gap above 0, and gap lines from perf script
   whose class is a name;
 - bpftrace: a histogram per class, keyed by a class's name.
A tool that is not installed is a SKIP of its case.
"""

import os
import re
import shutil
import sys
import tempfile

import jitpy
import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, Skip, log

CPU = 1
MANUAL = os.path.join(jitpy.TOP, "Documentation", "jitmod.rst")
CLASS = r"class=(irq|softirq|nmi|thread|hw:smi|hw:steal|hw:unknown) "
TIMEOUT_S = 300


def recipes():
    """{name: the commands of its block}, from the manual."""
    with open(MANUAL) as f:
        text = f.read()
    out = {}
    for m in re.finditer(r"^\.\. recipe: (\S+)\n\n::\n\n((?:  .*\n|\n)+)",
                         text, re.M):
        lines = [ln[2:] for ln in m.group(2).rstrip().splitlines()]
        out[m.group(1)] = "\n".join(lines)
    return out


def run(tmp, name, block):
    if not shutil.which(name):
        raise Skip(f"{name} is not installed (make deps)")
    d = os.path.join(tmp, name)
    os.mkdir(d)
    script = block.replace("sleep 10", "sleep 3").replace("interval:s:10",
                                                          "interval:s:3")
    if script == block:
        raise Fail(f"the {name} recipe has no 10 s to shorten")
    rc, out = sysio.sh(["sh", "-ec", f"cd {d}\n{script}"], check=False,
                       timeout=TIMEOUT_S)
    if rc:
        raise Fail(f"the {name} recipe ended {rc}: {out[-800:]}")
    return out


def trace_cmd(tmp, block):
    out = run(tmp, "trace-cmd", block)
    gaps = re.findall(r" gap: +duration_ns=\d+ " + CLASS, out)
    log(f"trace-cmd: {len(gaps)} gap lines, classes {sorted(set(gaps))}")
    if not gaps:
        raise Fail(f"trace-cmd printed no named gap: {out[-800:]}")


def perf(tmp, block):
    out = run(tmp, "perf", block)
    counted = re.search(r"^\s*([\d,.]+)\s+jitmod:gap\b", out, re.M)
    n = int(re.sub(r"[,.]", "", counted.group(1))) if counted else 0
    gaps = re.findall(r"jitmod:gap: +duration_ns=\d+ " + CLASS, out)
    log(f"perf: stat counted {n} gaps; script printed {len(gaps)}, "
        f"classes {sorted(set(gaps))}")
    if not n or not gaps:
        raise Fail(f"perf: {n} gaps counted, {len(gaps)} printed: "
                   f"{out[-800:]}")


def bpftrace(tmp, block):
    out = run(tmp, "bpftrace", block)
    keys = re.findall(r"^@gap_us\[([^\]]+)\]:", out, re.M)
    log(f"bpftrace: histograms for {keys}")
    names = {"irq", "softirq", "nmi", "thread", "hw:smi", "hw:steal",
             "hw:unknown"}
    if not keys or set(keys) - names or "@c[" in out:
        raise Fail(f"bpftrace printed: {out[-800:]}")


def body():
    found = recipes()
    log(f"recipes in the manual: {sorted(found)}")
    checks = {"trace-cmd": trace_cmd, "perf": perf, "bpftrace": bpftrace}
    if sorted(found) != sorted(checks):
        raise Fail(f"the manual's recipes are {sorted(found)}, the test's "
                   f"{sorted(checks)}")
    # gaps of 10 us and more, a few hundred a second under TCG
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cases = jt.Cases(len(checks))
            for name, check in checks.items():
                cases.run(name, check, tmp, found[name])
            cases.finish()
    finally:
        kmod.rmmod("jitmod")


if __name__ == "__main__":
    sys.exit(jt.run(body))
