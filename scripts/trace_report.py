#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise jitmod events from a tracefs text trace (stdin).

A stop-gap report for `make demo` until jitread exists: per-CPU summary of
the jitmod:summary events, gap counts per class, and the top noise sources
from the per-class events.  Everything printed comes from the trace.
"""

import argparse
import collections
import re
import sys

LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+"
                  r"\S+\s+(?P<ts>[\d.]+):\s+(?P<event>\w+):\s+(?P<rest>.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")
SOFTIRQ = re.compile(r"vec=\d+ \[(\w+)\]")


def source_of(event, fields, rest):
    """The attribution key of one interference event."""
    if event == "irq_noise":
        if fields.get("irq", "-1") != "-1":
            return f"irq:{fields['irq']} {fields.get('name', '?')}"
        return f"irq:{fields.get('name', '?')}"
    if event == "softirq_noise":
        m = SOFTIRQ.search(rest)
        return f"softirq:{m.group(1) if m else '?'}"
    if event == "thread_noise":
        return f"thread:{fields.get('comm', '?')}[{fields.get('pid', '?')}]"
    return f"nmi:{fields.get('handler', '?')}"


def parse(stream):
    """Aggregate the trace into per-CPU tables."""
    per_cpu = collections.defaultdict(lambda: {
        "periods": 0, "runtime": 0, "noise": 0, "max": 0, "iters": 0,
        "res_ps": None, "gaps": collections.Counter(),
        "sources": collections.defaultdict(lambda: [0, 0, None, 0])})
    events = collections.Counter()
    for line in stream:
        m = LINE.match(line)
        if not m:
            continue
        ev, rest = m.group("event"), m.group("rest")
        cpu = int(m.group("cpu"))
        fields = dict(FIELD.findall(rest))
        events[ev] += 1
        c = per_cpu[cpu]
        if ev == "summary":
            c["periods"] += 1
            c["runtime"] += int(fields["runtime_ns"])
            c["noise"] += int(fields["noise_ns"])
            c["max"] = max(c["max"], int(fields["max_gap_ns"]))
            c["iters"] += int(fields["iterations"])
            res = int(fields["resolution_ps"])
            c["res_ps"] = res if c["res_ps"] is None else min(c["res_ps"],
                                                              res)
        elif ev == "gap":
            c["gaps"][fields["class"]] += 1
        elif ev.endswith("_noise"):
            d = int(fields["duration_ns"])
            s = c["sources"][source_of(ev, fields, rest)]
            s[0] += 1
            s[1] += d
            s[2] = d if s[2] is None else min(s[2], d)
            s[3] = max(s[3], d)
    return per_cpu, events


def report(per_cpu, events, kernel, out):
    """Print the report; the time unit is in the header."""
    print(f"# jitmod report, kernel {kernel}; times in ns", file=out)
    print("# events seen: " + ", ".join(
        f"{k}={v}" for k, v in sorted(events.items())), file=out)
    if not events.get("summary"):
        print("# no jitmod:summary event seen", file=out)
        return 1
    print(f"{'CPU':>3} {'periods':>7} {'runtime':>12} {'noise':>11} "
          f"{'%avail':>8} {'max gap':>10} {'ns/iter':>7} {'res ps':>6} "
          "gaps by class", file=out)
    for cpu in sorted(per_cpu):
        c = per_cpu[cpu]
        if not c["periods"]:
            continue
        avail = 100.0 * (c["runtime"] - c["noise"]) / c["runtime"]
        gaps = " ".join(f"{k}={v}" for k, v in sorted(c["gaps"].items()))
        print(f"{cpu:>3} {c['periods']:>7} {c['runtime']:>12} "
              f"{c['noise']:>11} {avail:>7.3f}% {c['max']:>10} "
              f"{c['runtime'] / max(c['iters'], 1):>7.1f} "
              f"{c['res_ps']:>6} {gaps}", file=out)
    for cpu in sorted(per_cpu):
        srcs = per_cpu[cpu]["sources"]
        if not srcs:
            continue
        print(f"# CPU {cpu}: top noise sources (count, total, min, max)",
              file=out)
        top = sorted(srcs.items(), key=lambda kv: -kv[1][1])[:8]
        for name, (n, tot, lo, hi) in top:
            print(f"  {name:<36} {n:>7} {tot:>11} {lo:>8} {hi:>9}",
                  file=out)
    return 0


def main(argv=None):
    """Read a trace on stdin and print the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default="?", help="kernel release to print")
    args = ap.parse_args(argv)
    per_cpu, events = parse(sys.stdin)
    return report(per_cpu, events, args.kernel, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
