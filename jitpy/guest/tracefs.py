# SPDX-License-Identifier: GPL-2.0
"""Our own tracefs instances, beside whatever else traces."""

import os

from jitpy.guest.sysio import write

ROOT = "/sys/kernel/tracing"


class Instance:
    """A tracefs instance of our own with the jitmod events enabled.

    The clock is 'global' by default so that markers written from one
    CPU order correctly against events from another.  'mono' (the
    clocksource, as ktime) orders them too and keeps the pace of the
    injector's spins, which 'global' (sched_clock, clamped per tick when
    the TSC is unstable, as under TCG) does not.  Create the instance
    after insmod: it only gets the events that existed when it was made.
    """

    def __init__(self, tag, events=("jitmod",), clock="global"):
        self.path = f"{ROOT}/instances/jitmod-{tag}-{os.getpid()}"
        os.mkdir(self.path)
        write(f"{self.path}/trace_clock", clock)
        write(f"{self.path}/buffer_size_kb", 8192)
        for ev in events:
            write(f"{self.path}/events/{ev}/enable", 1)
        self.events = events

    def marker(self, text):
        write(f"{self.path}/trace_marker", text)

    def text(self):
        with open(f"{self.path}/trace") as f:
            return f.read()

    def clear(self):
        write(f"{self.path}/trace", "")

    def close(self):
        if not os.path.isdir(self.path):
            return
        for ev in self.events:
            # A module's events leave every instance when it is unloaded.
            if os.path.exists(f"{self.path}/events/{ev}"):
                write(f"{self.path}/events/{ev}/enable", 0)
        os.rmdir(self.path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
