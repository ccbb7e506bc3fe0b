#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread survey under OpenMPI's mpirun, where jitmod is loaded.

Two ranks both take CPU 1, which jitmod samples, so each reads jitmod's
events there rather than running the user sampler: both report
backend jitmod, and jitmod's threshold is the one it was loaded with.
Reading the same events, their gaps come at the same moments on rank 0's
clock (one host, one CLOCK_MONOTONIC), which the co-occurrence figure
must show: bins shared by both ranks, and far more pairs together than
independent ranks would give.  The fleet's merged
counts are the two ranks' counts summed.
"""

import json
import os
import shutil
import sys

import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, Skip, log

CPU = 1
THRESHOLD_NS = 10000


def body():
    jr = kmod.jitread()
    plugin = os.path.join(os.path.dirname(jr), "jitread-mpi.so")
    if not shutil.which("mpirun") or not os.path.exists(plugin):
        raise Skip("mpirun or jitread-mpi.so missing (make deps, make user)")
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=THRESHOLD_NS)
    tmp = f"/tmp/jitread-survey-{os.getpid()}"
    os.makedirs(tmp, mode=0o700, exist_ok=True)
    out = os.path.join(tmp, "s.json")
    rc, txt = sysio.sh(["mpirun", "--allow-run-as-root", "--oversubscribe",
                        "-n", "2", jr, "survey", "--rank-cpus", str(CPU),
                        "-d", "4s", "--json", out], check=False,
                       timeout=300)
    if rc:
        raise Fail(f"mpirun exit {rc}: {txt[-1500:]}")
    with open(out) as f:
        d = json.load(f)
    ranks = d["ranks"]
    if [(r["ok"], r["cpu"], r.get("backend")) for r in ranks] != \
            [(True, CPU, "jitmod")] * 2:
        raise Fail(f"ranks: {ranks}")
    thr = int(sysio.read(f"{kmod.JIT_PARAMS}/threshold_ns"))
    if thr != THRESHOLD_NS:
        raise Fail(f"jitmod's threshold_ns is {thr}, not {THRESHOLD_NS}")
    gaps = sum(r["gaps"] for r in ranks)
    for name, c in d["fleet"].items():
        if c["hist"]["count"] != c["sum_of_ranks"]:
            raise Fail(f"{name}: merged {c['hist']['count']}, ranks "
                       f"{c['sum_of_ranks']}")
    if d["fleet"]["gap"]["hist"]["count"] != gaps or not gaps:
        raise Fail(f"merged gaps {d['fleet']['gap']['hist']['count']}, "
                   f"ranks {gaps}")
    co = d["cooc"]
    log(f"gaps {gaps}; together: {co}")
    for r in ranks:
        big = [t for t in r["timeline"] if t[1] >= co["gap_ns"]][:2]
        log(f"rank {r['rank']}: offset {r['offset_ns']} ns (round trip "
            f"{r['rtt_ns']} ns), its first large gaps on rank 0's clock: "
            f"{big}")
    if co["shared"] < 3 or co["max_ranks"] != 2 or co["pair_ratio"] < 5:
        raise Fail(f"the same events on one CPU do not come together: {co}")


if __name__ == "__main__":
    sys.exit(jt.run(body))
