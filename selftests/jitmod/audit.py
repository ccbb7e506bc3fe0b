#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread audit in the guest, whose boot line isolates CPU 1
(isolcpus=1 nohz_full=1 rcu_nocbs=1): with no -c it audits CPU 1, finds
it isolated, nohz_full and offloaded, says so as ok items, and names the
boot line it read; no module is needed."""

import json
import sys

import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, Skip, log


def body():
    with open("/proc/cmdline") as f:
        cmdline = f.read().strip()
    if "isolcpus=1" not in cmdline.split():
        raise Skip(f"the boot line does not isolate CPU 1: {cmdline}")
    rc, out = sysio.sh([kmod.jitread(), "audit", "--json", "-", "-q"],
                       check=False)
    if rc:
        raise Fail(f"jitread audit exit {rc}: {out[-400:]}")
    d = json.loads(out)
    cpus = [c["cpu"] for c in d["cpus"]]
    if cpus != [1] or d["system"]["cmdline"] != cmdline:
        raise Fail(f"audited CPUs {cpus}, cmdline {d['system']['cmdline']}")
    c = d["cpus"][0]
    if not (c["isolated"] and c["nohz_full"] and c["rcu_nocb"]):
        raise Fail(f"CPU 1: {c}")
    ok = {k["id"] for k in d["checks"] if k["cpu"] == 1 and
          k["status"] == "ok"}
    if not {"isolated", "nohz_full", "rcu_nocbs"} <= ok:
        raise Fail(f"CPU 1's ok items: {sorted(ok)}")
    warns = [k["id"] for k in d["checks"] if k["status"] == "warn"]
    log(f"CPU 1 ok: {sorted(ok)}; warnings: {warns}")


if __name__ == "__main__":
    sys.exit(jt.run(body))
