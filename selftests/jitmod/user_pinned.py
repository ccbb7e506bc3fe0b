#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread user in the layout the pipeline is built for, on this kernel.

Three user CPUs: a sampler on each, then producer, accumulator and
journaller each pinned to its own CPU and busy-spinning (the default
wait).  Every CPU must have its sampler's report; the pipeline must say
it is not shared and lose nothing, and the journal must read back in
sequence with the header's checksum.  (user_bpf.py checks the BPF
attribution, on one CPU, where TCG's noise is smaller.)

Needs 4 CPUs (CPU 0 keeps the rest of the system), so `make check` runs
it in a boot of its own with 4 vCPUs; with fewer it is a SKIP.
"""

import json
import sys

import jittest as jt
from jitpy.formats import journal as jrjournal
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, log

CPUS = (1, 2, 3)
PHASE_S = 4
JOURNAL = "/tmp/user_pinned.jrnl"
REPORT = "/tmp/user_pinned.json"


def check_pipeline(p):
    """Pinned, spinning, nothing lost, the journal agrees."""
    placed = (p["cpus"]["producer"], p["cpus"]["accumulator"],
              p["cpus"]["journaller"])
    if placed != CPUS or p["shared"] or p["wait"] != "spin":
        raise Fail(f"pipeline placed {placed}, shared {p['shared']}, "
                   f"wait {p['wait']}")
    n = p["produced"]
    if not p["verified"] or p["consumed"] != [n, n] or n < 1000:
        raise Fail(f"pipeline: {p['verdict']}")
    try:
        entries, _ = jrjournal.verify(JOURNAL)
    except jrjournal.JournalError as e:
        raise Fail(str(e)) from e
    if entries != n:
        raise Fail(f"journal holds {entries} entries, produced {n}")
    for name, h in p["histograms"].items():
        want = n - p["warmup_messages"] - ("inter" in name)
        if h["count"] != want:
            raise Fail(f"{name}: {h['count']} values, want {want}")
    log(f"pipeline: {n} messages, accumulator transit p50 "
        f"{p['histograms']['accumulator transit']['percentiles_ns']['50']}"
        " ns (TCG: relative only)")


def body():
    kmod.require(min_cpus=len(CPUS) + 1)
    cmd = [kmod.jitread(), "user", "-c", ",".join(map(str, CPUS)), "-d",
           f"{PHASE_S}s", "--warmup-ms", "200", "--journal", JOURNAL,
           "--json", REPORT, "-q"]
    rc, out = sysio.sh(cmd, check=False, timeout=120)
    if rc:
        raise Fail(f"jitread user exit {rc}: {out[-600:]}")
    with open(REPORT) as f:
        d = json.load(f)
    cpus = {c["cpu"]: c for c in d["cpus"]}
    if sorted(cpus) != list(CPUS):
        raise Fail(f"sampled CPUs {sorted(cpus)}, want {list(CPUS)}")
    for cpu, c in cpus.items():
        if c["summary"]["periods"] != 1 or not c["summary"]["runtime_ns"]:
            raise Fail(f"CPU {cpu}: no sampler run: {c['summary']}")
    check_pipeline(d["pipeline"])


if __name__ == "__main__":
    sys.exit(jt.run(body))
