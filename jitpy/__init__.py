# SPDX-License-Identifier: GPL-2.0
"""jitmod's Python side, one package.  Its tools run from the checkout;
abi, formats and plot are also installed (make install, python3-jitpy),
so that python3 -m jitpy.plot and the readers work from /usr.

  abi       include/jitmod_abi.h's tables (classes, softirqs, vectors)
  formats   readers and writers of jitread's files: JSON report, journal,
            recording
  vm        the QEMU runner (python3 -m jitpy.vm) and its vCPU watch
  guest     helpers that run inside a booted kernel: tracefs, trace text,
            modules and the test injector
  harness   make check (python3 -m jitpy.harness)
  cpugroup  the CPU control groups that keep make check's two lanes apart
  bench     make bench* (python3 -m jitpy.bench.suite, .reader, .user)
  plot      jitread's JSON as PNGs (python3 -m jitpy.plot)
"""

import os


def _checkout():
    """The checkout above this package: its own folder, or the one that
    holds build/ksft/jitmod, where `make ksft` stages a copy of it."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    top = here
    while top != os.path.dirname(top):
        if os.path.exists(os.path.join(top, "module", "Kbuild")):
            return top
        top = os.path.dirname(top)
    return here


TOP = _checkout()
JITREAD = os.path.join(TOP, "user", "jitread")


def module_path(release, name="jitmod"):
    """Where make modules-all puts module name (jitmod, jitinject or
    jitbench) built for kernel release."""
    sub = "module" if name == "jitmod" else name
    return os.path.join(TOP, "build", "modules", release, sub, f"{name}.ko")


def session_nice(pid):
    """Give pid's session this process's nice value.

    With autogroup scheduling (/proc/sys/kernel/sched_autogroup_enabled,
    on here), the scheduler first shares the CPUs between sessions, each
    weighed by its autogroup's nice, and only then between the tasks of
    a session by theirs: a process started in a session of its own
    (start_new_session) from a task at nice 19 would take as much as the
    rest of the machine.  Where there is no autogroup, nothing changes."""
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(os.nice(0)))
    except OSError:
        pass
