# SPDX-License-Identifier: GPL-2.0
"""jitmod's events in a formatted ftrace trace, parsed for checks."""

import re

from jitpy import abi

# the interference classes, in jitmod's enum order: a gap's fields
INTF = tuple(c for c in abi.CLASSES if not c.startswith("hw:"))

# "  task-pid  [cpu] flags  ts: event: body"
TRACE_LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]"
                        r"\s+\S+\s+(?P<ts>\d+\.\d+): (?P<event>\w+): "
                        r"(?P<body>.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")


class Event:
    """One formatted trace line."""

    def __init__(self, m):
        self.task = m["task"]
        self.pid = int(m["pid"])
        self.cpu = int(m["cpu"])
        self.ts = float(m["ts"])
        self.name = m["event"]
        self.body = m["body"]
        self.f = dict(FIELD.findall(m["body"]))

    def num(self, key):
        """An integer field; gap's 'irq=2/1400ns' gives count 2."""
        return int(self.f[key].split("/")[0])

    def ns(self, key):
        """The ns part of a gap's 'irq=2/1400ns', or a plain *_ns field."""
        v = self.f[key]
        return int(v.split("/")[1][:-2]) if "/" in v else int(v)

    def __repr__(self):
        return f"[{self.cpu:03d}] {self.ts:.6f} {self.name}: {self.body}"


def parse(text):
    """Events of a formatted trace, in order; other lines are dropped."""
    return [Event(m) for m in map(TRACE_LINE.match, text.splitlines()) if m]


def windows(events, tag, cpu):
    """cpu's events between each marker that starts with tag and the next
    marker, keyed by the marker's text."""
    out, cur = {}, None
    for e in events:
        if e.name == "tracing_mark_write":
            cur = e.body.strip() if e.body.strip().startswith(tag) else None
            if cur is not None:
                out[cur] = []
        elif cur is not None and e.cpu == cpu:
            out[cur].append(e)
    return out


def filing(gap):
    """The class jitmod's rule gives a gap: the interference class with
    the most net time, the first in enum order on a tie."""
    return max(INTF, key=lambda f: (gap.ns(f), -INTF.index(f)))


def class_ns(gap, fields):
    """The net time of the classes in fields, summed, in gap."""
    return sum(gap.ns(f) for f in fields)


def gap_after(evs, src, field):
    """The gap event that holds src: the first later gap whose class time
    covers src's.  Usually the very next gap; but an interrupt that lands
    in the sampler's own slow path, after one gap was measured and before
    it was written, is emitted before that gap and belongs to the next one
    (seen with the hrtimer, armed by an IPI whose own gap was being
    written when it fired).  If no gap covers it, the first later gap that
    counted the class, so that the caller's message shows what was there."""
    later = [e for e in evs[evs.index(src) + 1:] if e.name == "gap" and
             e.num(field) >= 1]
    dur = src.ns("duration_ns")
    return next((e for e in later if e.ns(field) >= dur),
                later[0] if later else None)
