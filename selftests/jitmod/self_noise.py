#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitmod's own work is not noise: a recorded gap does not cause the next.

After a gap is recorded, the sampler's slow path (the snapshot, the event,
the hardware counters) runs before its next TSC read.  If that time were
left in the next loop delta, a threshold below the slow path's cost would
make every recorded gap cause another quiet one, a chain of self-made
"hardware" gaps.  With no injected noise and a threshold just above the
loop's own cost, this test traces with the TSC as the trace clock and
counts the quiet gaps that start within one threshold of the previous
gap's event: they directly follow it.  At most MAX_SHARE of all gaps may.
"""

import re
import sys
import time

import jittest as jt
from jitpy.guest import kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
MAX_SHARE = 0.05
CAPTURE_S = 0.5
# raw TSC timestamps: "task-pid [cpu] flags cycles: event: body"
RAW_LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]"
                      r"\s+\S+\s+(?P<ts>\d+): (?P<event>\w+): "
                      r"(?P<body>.*)$")


def loop_cost_ns():
    """The smallest loop delta the sampler reports, in ns."""
    with tracefs.Instance("selfres", events=("jitmod/summary",)) as inst:
        if not sysio.wait_for(lambda: "summary:" in inst.text(), 30):
            raise Fail("no summary within 30 s")
        s = [e for e in trace.parse(inst.text()) if e.cpu == CPU][0]
    return max(1, s.num("resolution_ps") // 1000)


def capture(threshold_ns):
    """Gap events on CPU, as (tsc, duration_ns, quiet), and summaries."""
    sysio.write(f"{kmod.JIT_PARAMS}/threshold_ns", threshold_ns)
    with tracefs.Instance("selfgap") as inst:
        sysio.write(f"{inst.path}/trace_clock", "x86-tsc")
        sysio.write(f"{inst.path}/trace", "")
        time.sleep(CAPTURE_S)
        sysio.write(f"{inst.path}/tracing_on", 0)
        text = inst.text()
    gaps, sums = [], []
    for m in map(RAW_LINE.match, text.splitlines()):
        if not m or int(m["cpu"]) != CPU:
            continue
        f = dict(trace.FIELD.findall(m["body"]))
        if m["event"] == "summary":
            sums.append(f)
        elif m["event"] == "gap":
            quiet = all(f[k].startswith("0/") for k in trace.INTF)
            gaps.append((int(m["ts"]), int(f["duration_ns"]), quiet))
    return gaps, sums


def body():
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=300000,
                runtime_us=250000)
    khz = int(sysio.read(f"{kmod.JIT_PARAMS}/tsc_khz"))
    loop_ns = loop_cost_ns()
    threshold_ns = max(100, 4 * loop_ns)
    gaps, sums = capture(threshold_ns)
    kmod.rmmod("jitmod")
    thr_cyc = threshold_ns * khz // 1000000
    chained = 0
    for (prev_ts, _, _), (ts, dur_ns, quiet) in zip(gaps, gaps[1:]):
        start = ts - dur_ns * khz // 1000000
        if quiet and start - prev_ts < thr_cyc:
            chained += 1
    share = chained / max(1, len(gaps) - 1)
    self_ns = sum(int(s.get("self_ns", 0)) for s in sums)
    log(f"loop {loop_ns} ns, threshold {threshold_ns} ns: {len(gaps)} "
        f"gaps in {CAPTURE_S} s, {chained} quiet ones directly after "
        f"another ({100 * share:.1f} %); self_ns {self_ns} in "
        f"{len(sums)} summaries")
    if len(gaps) < 2:
        raise Fail("fewer than 2 gaps captured")
    if share > MAX_SHARE:
        raise Fail(f"{100 * share:.1f} % of gaps are quiet and directly "
                   f"follow a recorded gap (max {100 * MAX_SHARE:.0f} %)")


if __name__ == "__main__":
    sys.exit(jt.run(body))
