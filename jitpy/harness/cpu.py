# SPDX-License-Identifier: GPL-2.0
"""CPU seconds for make check's cost lines: a test's, a boot's, a lane's.

The machine is the limit of a check (its two CPUs are busy most of the
run), so each result says the CPU it took beside its wall time: that,
not the wall time of a test that waited its turn, is what a shorter
check must save.
"""

import os
import resource

TICK = os.sysconf("SC_CLK_TCK")


def used():
    """CPU seconds of this process and of every child it has waited for
    (their descendants' with them)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def _stat(pid):
    """(parent pid, CPU ticks) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    # the fields after the command name, which may hold spaces and ')'
    rest = text[text.rindex(")") + 2:].split()
    return int(rest[1]), int(rest[11]) + int(rest[12])


def tree(root):
    """CPU seconds so far of the live process root and its live
    descendants: a guest's runner and its QEMU, while they run."""
    kids, ticks = {}, {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            got = _stat(int(name))
            if got:
                kids.setdefault(got[0], []).append(int(name))
                ticks[int(name)] = got[1]
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += ticks.get(pid, 0)
        todo += kids.get(pid, [])
    return total / TICK
