# SPDX-License-Identifier: GPL-2.0
"""CPU control groups for make check's two lanes.

The guests' timing tests need their vCPU threads to run the moment they
wake.  A nice value cannot promise that here: with autogroup scheduling
the CPUs are shared between sessions first, and every QEMU runs in a
session of its own; and even at nice 19 a task keeps the CPU for the rest
of its slice when a vCPU wakes.  A control group can:

  the guests' group  weighs WEIGHT_FACTOR times a session, so that a job
                     the user started elsewhere (at any nice: its session
                     counts, not its nice) takes little from the guests;
  the lane's group   is an idle group (cpu.idle): it runs only on a CPU
                     nothing else wants, and a waking guest thread takes
                     the CPU from it at once.

join() moves the calling process, and so everything it starts from then
on, into one of them.  Where the machine has no CPU controller to write
(a container, an unprivileged run), it says why and changes nothing.
"""

import os
import signal

# cgroup v1 (a hierarchy of its own) and v2 (the unified one)
V1_CPU = "/sys/fs/cgroup/cpu"
V2_ROOT = "/sys/fs/cgroup"
PREFIX = "jitcheck-"
# a session's weight is that of one nice-0 task: 1024 in v1, 100 in v2
WEIGHT_FACTOR = 10
# where join() took this process from, by group name
_ORIGIN = {}


def _write(path, value):
    with open(path, "w") as f:
        f.write(f"{value}\n")


def _v2_usable(root):
    """Whether the unified hierarchy at root can give children the CPU
    controller."""
    try:
        with open(os.path.join(root, "cgroup.controllers")) as f:
            if "cpu" not in f.read().split():
                return False
        with open(os.path.join(root, "cgroup.subtree_control")) as f:
            if "cpu" in f.read().split():
                return True
        _write(os.path.join(root, "cgroup.subtree_control"), "+cpu")
        return True
    except OSError:
        return False


def _settings(version, base, idle):
    """The files to write in the new group: each a list of (file,
    value) to try in turn until one is written.  cpu.idle is new in 5.15;
    before it, the least weight stands in.  Where the kernel schedules
    real-time tasks by group (cpu.rt_runtime_us), a new group may run none
    until it is given time: the guests' group gets all of its parent's, as
    the host tests' SCHED_FIFO samplers run in it; the lane runs none."""
    least = [("cpu.shares", 2)] if version == 1 else [("cpu.weight", 1)]
    if idle:
        return [[("cpu.idle", 1)] + least]
    heavy = (1024 if version == 1 else 100) * WEIGHT_FACTOR
    knob = "cpu.shares" if version == 1 else "cpu.weight"
    out = [[("cpu.idle", 0), (None, None)], [(knob, heavy)]]
    try:
        with open(os.path.join(base, "cpu.rt_runtime_us")) as f:
            out.append([("cpu.rt_runtime_us", int(f.read()))])
    except (OSError, ValueError):
        pass
    return out


def _write_first(path, choices):
    """Write the first of choices that the kernel takes; (None, None)
    stands for leaving the file alone.  Raises the last OSError."""
    err = None
    for knob, value in choices:
        if knob is None:
            return
        try:
            _write(os.path.join(path, knob), value)
            return
        except OSError as e:
            err = e
    raise err


def _current(version):
    """This process's group in the hierarchy of that version."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrls, rel = line.rstrip("\n").split(":", 2)
            if (version == 2 and ctrls == "") or \
                    (version == 1 and "cpu" in ctrls.split(",")):
                return rel
    return "/"


def where():
    """(version, directory under which to make groups), or None."""
    if os.path.exists(os.path.join(V1_CPU, "cpu.shares")):
        return 1, V1_CPU
    if _v2_usable(V2_ROOT):
        return 2, V2_ROOT
    return None


def sweep():
    """Remove the empty groups that runs which were killed left behind;
    the kernel refuses to remove one that still holds a process.  Only
    where no other join() can be under way: between its mkdir and its
    move, a group is empty."""
    found = where()
    if found is None:
        return
    base = found[1]
    for entry in os.listdir(base):
        if entry.startswith(PREFIX):
            try:
                os.rmdir(os.path.join(base, entry))
            except OSError:
                pass


def join(name, idle=False):
    """Move this process into the group PREFIX + name, made if need be:
    an idle group (idle=True) or the guests' heavy one.  Returns a line
    that says what was done, or why nothing was."""
    found = where()
    if found is None:
        return (f"{name}: no CPU controller to write under {V1_CPU} or "
                f"{V2_ROOT}; scheduling left as it is")
    version, base = found
    path = os.path.join(base, PREFIX + name)
    try:
        origin = _current(version)
        os.makedirs(path, exist_ok=True)
        for choices in _settings(version, base, idle):
            _write_first(path, choices)
        _write(os.path.join(path, "cgroup.procs"), os.getpid())
    except OSError as e:
        return (f"{name}: could not use {path} ({e.strerror}); "
                f"scheduling left as it is")
    _ORIGIN[name] = os.path.join(base, origin.lstrip("/"))
    kind = "idle" if idle else f"{WEIGHT_FACTOR}x a session's weight"
    return f"{name}: in {path} (cgroup v{version}, {kind})"


def kill(name):
    """SIGKILL everything in the group PREFIX + name: whatever sessions
    its processes started (QEMU runs in its own), they are all in it."""
    found = where()
    if found is None:
        return
    procs = os.path.join(found[1], PREFIX + name, "cgroup.procs")
    try:
        with open(procs) as f:
            pids = [int(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def leave(name):
    """Go back to the group join(name) took this process from, if it
    did, and remove PREFIX + name if nothing is left in it."""
    origin = _ORIGIN.pop(name, None)
    found = where()
    if found is None:
        return
    try:
        if origin is not None:
            _write(os.path.join(origin, "cgroup.procs"), os.getpid())
        os.rmdir(os.path.join(found[1], PREFIX + name))
    except OSError:
        pass
