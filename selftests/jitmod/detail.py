#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What ran inside the windows, named end to end.

jitread samples CPU 1 while the injector queues work items on its
system workqueue, timer_list callbacks and pinned hard hrtimers there.
The report must name each callback under the row of the window it ran
in: work:jinj_work_fn under a thread:kworker/1:N row, timer:jinj_timer_fn
under softirq:TIMER, hrtimer:jinj_hrtimer_fn under irq:local_timer.  A
detail's count and time stay within its row's, and jitmod's "details"
parameter lists those four kinds at least (every kernel of the matrix has
their tracepoints; 6.12 and later add ipi).
Each source also has a rate and, when it came twice, a dominant period,
and the live report carries the audit of the CPU it measured.
Then jitmod is unloaded and jitread's user sampler takes its place on
CPU 1: its BPF classifier must name the same callbacks under the same
rows, and say it named all four kinds.
"""

import json
import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
N = 6
D_US = 300
WANT = {"work:jinj_work_fn": "thread:kworker/1:",
        "timer:jinj_timer_fn": "softirq:TIMER",
        "hrtimer:jinj_hrtimer_fn": "irq:local_timer"}


def run_jitread(mode, out, ready):
    """A live jitread mode while the injector fires N of each class."""
    extra = ["--no-pipeline"] if mode == "user" else []
    p = kmod.jitread_live(mode, out, ready, *extra)
    for _ in range(N):
        for cls in ("work", "softirq", "hrtimer"):
            injector.fire(cls, D_US)
    time.sleep(2.5)     # a period's summary or two: the sampled time
    kmod.jitread_stop(p)


def check(cpu):
    """Each callback named under the right row, within its figures."""
    for name, prefix in WANT.items():
        rows = [s for s in cpu["sources"] if s["source"].startswith(prefix)
                and any(d["name"] == name for d in s["detail"])]
        if not rows:
            have = {s["source"]: [d["name"] for d in s["detail"]]
                    for s in cpu["sources"] if s["detail"]}
            seen = [(s["source"], s["count"]) for s in cpu["sources"]]
            raise Fail(f"{name} is under no {prefix} row: {have}; the "
                       f"rows {seen}; summary {cpu['summary']}; orphans "
                       f"{cpu['detail_orphans']}")
        for s in rows:
            d = [d for d in s["detail"] if d["name"] == name][0]
            if d["count"] > s["count"] or d["total_ns"] > s["total_ns"]:
                raise Fail(f"{name} ({d}) exceeds its row {s}")
            log(f"{s['source']}: {name} x{d['count']} "
                f"{d['total_ns'] / 1000:.1f} us of "
                f"{s['total_ns'] / 1000:.1f} us")


def body():
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000)
    kmod.insmod("jitinject", cpu=CPU)
    have = sysio.read("/sys/module/jitmod/parameters/details")
    if not {"work", "timer", "hrtimer", "tick"} <= set(have.split(",")):
        raise Fail(f"details: '{have}' (every kernel of the matrix has "
                   "the tracepoints of these four)")
    out, ready = "/tmp/detail.json", "/tmp/detail.ready"
    run_jitread("hist", out, ready)
    with open(out) as f:
        d = json.load(f)
    if d["system"]["details"] != have:
        raise Fail(f"report's details '{d['system']['details']}'")
    aud = d.get("audit", {})
    if aud.get("audit_version") != 1 or \
            [c["cpu"] for c in aud["cpus"]] != [CPU]:
        raise Fail(f"the report's audit block: {str(aud)[:300]}")
    cpu = [c for c in d["cpus"] if c["cpu"] == CPU][0]
    check(cpu)
    if not cpu["summary"]["runtime_ns"]:
        raise Fail("no period summary: no sampled time to rate against")
    for s in cpu["sources"]:
        if s["rate_hz"] <= 0:
            raise Fail(f"{s['source']} has no rate")
        if s["count"] >= 3 and not s["period_ns"]:
            raise Fail(f"{s['source']} came {s['count']} times, no period")
    timer = [s for s in cpu["sources"] if s["source"] == "irq:local_timer"]
    ticks = [x for x in timer[0]["detail"] if x["name"].startswith("tick:")]
    log(f"local_timer: {timer[0]['rate_hz']:.1f}/s, period "
        f"{timer[0]['period_ns'] / 1e6:.2f} ms "
        f"({100 * timer[0]['period_share']:.0f}%), kept by {ticks}; "
        f"orphans {cpu['detail_orphans']}")
    user_side(have)


def user_side(have):
    """The same injections under jitread's user sampler and BPF."""
    kmod.rmmod("jitmod")
    out, ready = "/tmp/detail-user.json", "/tmp/detail-user.ready"
    run_jitread("user", out, ready)
    with open(out) as f:
        d = json.load(f)
    bpf = d["sampler"]["bpf"]
    if not bpf["ok"] or bpf["details"] != have or \
            d["system"]["details"] != have:
        raise Fail(f"user side: BPF {bpf}, report's details "
                   f"'{d['system']['details']}'")
    cpu = [c for c in d["cpus"] if c["cpu"] == CPU][0]
    log("user side, BPF:")
    check(cpu)
    log(f"user side orphans {cpu['detail_orphans']}")


if __name__ == "__main__":
    sys.exit(jt.run(body))
