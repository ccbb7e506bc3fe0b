# SPDX-License-Identifier: GPL-2.0
"""CPU control groups for make check's two lanes.

The guests' timing tests need their vCPU threads to run the moment they
wake.  A nice value cannot promise that here: with autogroup scheduling
the CPUs are shared between sessions first, and every QEMU runs in a
session of its own; and even at nice 19 a task keeps the CPU for the rest
of its slice when a vCPU wakes.  Control groups can.  A run of make
check makes one group, PREFIX + its pid, which weighs WEIGHT_FACTOR times
a session, so that a job the user started elsewhere (at any nice: its
session counts, not its nice) takes little from it; and in it three
leaves:

  guests   make check itself: the guests under test and the host tests
           that time something, with the run's real-time time (the host
           tests' SCHED_FIFO samplers need it where the kernel schedules
           real-time tasks by group);
  lane     the lane beside the guests: an idle group (cpu.idle), which
           runs only on a CPU nothing else in the run wants, and which a
           waking guest thread takes the CPU from at once;
  smoke    the smoke boots the lane runs: an eighth of guests' weight, no
           real-time time.  An idle group's guest can wait seconds for a
           CPU (a woken task in it measured 3.2 s), where a weight keeps
           it to a share of each scheduling period; when the guests' leaf
           wants both CPUs, the smoke guest gets about a ninth of them.

join() moves the calling process, and so everything it starts from then
on, into a leaf.  Where the machine has no CPU controller to write (a
container, an unprivileged run), it says why and changes nothing.
"""

import os
import signal
import time

# cgroup v1 (a hierarchy of its own) and v2 (the unified one)
V1_CPU = "/sys/fs/cgroup/cpu"
V2_ROOT = "/sys/fs/cgroup"
PREFIX = "jitcheck-"
# a session's weight is that of one nice-0 task: 1024 in v1, 100 in v2;
# a job beside the run then gets about 1 % of a CPU the run wants (v2 tops
# out at 10000, v1 at 262144)
WEIGHT_FACTOR = 100
# how long real-time time may stay held by a group just removed
RT_FREED_S = 2.0
# where join() took this process from, by (run, leaf)
_ORIGIN = {}


def _write(path, value):
    with open(path, "w") as f:
        f.write(f"{value}\n")


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


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


def where():
    """(version, directory under which to make groups), or None."""
    if os.path.exists(os.path.join(V1_CPU, "cpu.shares")):
        return 1, V1_CPU
    if _v2_usable(V2_ROOT):
        return 2, V2_ROOT
    return None


def _current(version):
    """This process's group in the hierarchy of that version."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrls, rel = line.rstrip("\n").split(":", 2)
            if (version == 2 and ctrls == "") or \
                    (version == 1 and "cpu" in ctrls.split(",")):
                return rel
    return "/"


def _make(path, version, weight=None, idle=False, leaf=True):
    """Make group path if need be and give it its weight, or make it an
    idle group (cpu.idle, new in 5.15; before it, the least weight).  In
    v2, a group that is not a leaf hands the CPU controller to its
    children (a leaf must not: it could hold no process then)."""
    os.makedirs(path, exist_ok=True)
    if version == 2 and not leaf:
        _write(os.path.join(path, "cgroup.subtree_control"), "+cpu")
    if idle:
        try:
            _write(os.path.join(path, "cpu.idle"), 1)
            return
        except OSError:
            weight = 2 if version == 1 else 1
    else:
        try:
            _write(os.path.join(path, "cpu.idle"), 0)
        except OSError:
            pass
    if weight is not None:
        _write(os.path.join(path, "cpu.shares" if version == 1
                            else "cpu.weight"), weight)


def _give_rt(path):
    """Where the kernel schedules real-time tasks by group, a new group
    may run none until it is given time: give path all of its parent's.
    False where the parent has none to give (another run holds it)."""
    knob = "cpu.rt_runtime_us"
    have = _read_int(os.path.join(os.path.dirname(path), knob))
    if have is None or not os.path.exists(os.path.join(path, knob)):
        return True
    # a group just removed gives its time back only once the kernel has
    # freed it, a little after rmdir returns
    end = time.monotonic() + RT_FREED_S
    while True:
        try:
            _write(os.path.join(path, knob), have)
            return True
        except OSError:
            if time.monotonic() > end:
                return False
        time.sleep(0.05)


def run_dir(run, leaf=None):
    """The directory of a run's group, or of one of its leaves; None
    where there is no CPU controller."""
    found = where()
    if found is None:
        return None
    path = os.path.join(found[1], PREFIX + run)
    return os.path.join(path, leaf) if leaf else path


def join(run, leaf, idle=False, share=None):
    """Move this process into leaf of run's group, made if need be.

    A run's group weighs WEIGHT_FACTOR times a session and has all the
    real-time time its parent gives; in it, a leaf has the default weight
    and the run's real-time time, or is an idle group (idle=True) with
    none, or has share times the default weight (a fraction) and none.
    Returns a line that says what was done, or why nothing was."""
    found = where()
    if found is None:
        return (f"{run}/{leaf}: no CPU controller to write under {V1_CPU} "
                f"or {V2_ROOT}; scheduling left as it is")
    version, base = found
    top = run_dir(run)
    path = os.path.join(top, leaf)
    try:
        origin = _current(version)
        _make(top, version, weight=(1024 if version == 1 else 100) *
              WEIGHT_FACTOR, leaf=False)
        # an idle leaf runs no real-time task: it needs none, nor its run
        rt = not idle and share is None and _give_rt(top)
        weight = None if share is None else max(
            1, round(share * (1024 if version == 1 else 100)))
        _make(path, version, weight=weight, idle=idle)
        if rt:
            rt = _give_rt(path)
        _write(os.path.join(path, "cgroup.procs"), os.getpid())
    except OSError as e:
        return (f"{run}/{leaf}: could not use {path} ({e.strerror}); "
                f"scheduling left as it is")
    _ORIGIN[run, leaf] = os.path.join(base, origin.lstrip("/"))
    kind = "idle" if idle else (
        f"weight {weight}, no real-time time" if share is not None else
        "the run's real-time time" if rt else
        "no real-time time: SCHED_FIFO is refused in it")
    return (f"{run}/{leaf}: in {path} (cgroup v{version}; the run "
            f"{WEIGHT_FACTOR}x a session's weight; {kind})")


def kill(run, leaf):
    """SIGKILL everything in leaf of run's group: whatever sessions its
    processes started (QEMU runs in its own), they are all in it."""
    path = run_dir(run, leaf)
    if path is None:
        return
    try:
        with open(os.path.join(path, "cgroup.procs")) as f:
            pids = [int(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def leave(run, leaf):
    """Go back to the group join() took this process from, if it did,
    and remove leaf, and run's group once no leaf is left in it."""
    origin = _ORIGIN.pop((run, leaf), None)
    path = run_dir(run, leaf)
    if path is None:
        return
    for step in ("move", path, os.path.dirname(path)):
        try:
            if step != "move":
                os.rmdir(step)
            elif origin is not None:
                _write(os.path.join(origin, "cgroup.procs"), os.getpid())
        except OSError:
            pass


def sweep():
    """Remove the empty groups that runs which were killed left behind;
    the kernel refuses to remove one that still holds a process.  Only
    where no other join() can be under way: between its mkdir and its
    move, a group is empty."""
    found = where()
    if found is None:
        return
    for entry in os.listdir(found[1]):
        if not entry.startswith(PREFIX):
            continue
        top = os.path.join(found[1], entry)
        for leaf in os.listdir(top):
            try:
                os.rmdir(os.path.join(top, leaf))
            except OSError:
                pass
        try:
            os.rmdir(top)
        except OSError:
            pass
