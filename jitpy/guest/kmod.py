# SPDX-License-Identifier: GPL-2.0
"""This checkout's modules and jitread, loaded and run in the guest."""

import os
import signal
import subprocess

import jitpy
from jitpy.guest.sysio import Fail, Skip, read, sh, wait_for
from jitpy.guest.tracefs import ROOT

JIT_PARAMS = "/sys/module/jitmod/parameters"


def ko(name):
    """Path of jitmod.ko or jitinject.ko built for the running kernel."""
    env = os.environ.get(f"{name.upper()}_KO")
    path = env or jitpy.module_path(os.uname().release, name)
    if not os.path.exists(path):
        raise Fail(f"{path} missing (make modules-all)")
    return path


def jitread():
    """Path of user/jitread in the checkout; Fail if it was not built."""
    path = jitpy.JITREAD
    if not os.access(path, os.X_OK):
        raise Fail(f"{path} missing (make user)")
    return path


def loaded(name):
    """Whether module name is loaded; never, where modules cannot be."""
    try:
        with open("/proc/modules") as f:
            return any(line.split()[0] == name for line in f)
    except FileNotFoundError:
        return False


def insmod(name, **params):
    """Load jitmod or jitinject with params; Fail with kmod's message."""
    args = [f"{k}={v}" for k, v in params.items()]
    sh(["insmod", ko(name)] + args)


def rmmod(name, check=True):
    if loaded(name):
        return sh(["rmmod", name], check=check)
    return 0, ""


def rt_kernel():
    """Whether this kernel is PREEMPT_RT."""
    try:
        return read("/sys/kernel/realtime") == "1"
    except OSError:
        return False


def require(min_cpus=2):
    """Skip unless modules can be loaded and tracefs is here."""
    if os.geteuid() != 0:
        raise Skip("needs root")
    if not os.path.exists("/proc/modules"):
        raise Skip(f"kernel {os.uname().release} cannot load modules "
                   "(run under python3 -m jitpy.vm)")
    if not os.path.isdir(f"{ROOT}/events"):
        sh(f"mount -t tracefs nodev {ROOT}", check=False)
    if not os.path.isdir(f"{ROOT}/events"):
        raise Skip("tracefs not available")
    if os.cpu_count() < min_cpus:
        raise Skip(f"needs {min_cpus} CPUs, have {os.cpu_count()}")
    ko("jitmod")
    rmmod("jitinject")
    rmmod("jitmod")


def instance_events(pid, cpu):
    """Events of jitread pid's tracefs instance on cpu so far, read or
    not; None while it has no instance."""
    inst = f"{ROOT}/instances"
    for name in os.listdir(inst):
        if not name.startswith(f"jitread-{pid}-"):
            continue
        try:
            with open(f"{inst}/{name}/per_cpu/cpu{cpu}/stats") as f:
                st = dict(ln.split(": ", 1) for ln in f.read().splitlines()
                          if ": " in ln)
        except OSError:
            return None
        return int(st["entries"]) + int(st.get("read events", "0"))
    return None


def events_flowing(p, cpu=1, seconds=30):
    """Wait until jitmod's events reach jitread p's instance on cpu.
    Enabling them there patches kernel text, and under QEMU's TCG a vCPU
    can go on running the old translation, events off, for a while: an
    injection in that time leaves no event.  Fail, and kill p, if none
    come."""
    if not wait_for(lambda: (instance_events(p.pid, cpu) or 0) > 0 or
                    p.poll() is not None, seconds):
        p.kill()
        p.wait()
        raise Fail(f"no jitmod event reached jitread's instance on CPU "
                   f"{cpu} within {seconds} s")
    if p.poll() is not None:
        raise Fail(f"jitread ended early: exit {p.returncode}")


def unload():
    """Unload the injector and jitmod, whatever a failed try left."""
    rmmod("jitinject", check=False)
    rmmod("jitmod", check=False)


def is_ready(p, ready):
    """Whether jitread p has written its --ready-file, ready: the file
    holds its pid, so one that an earlier run left there does not count."""
    try:
        with open(ready) as f:
            return f.read().strip() == str(p.pid)
    except OSError:
        return False


def await_ready(p, ready, what, seconds=30):
    """Wait until jitread p writes its --ready-file; Fail if it does not
    within seconds (p killed) or ends first."""
    if not wait_for(lambda: is_ready(p, ready) or p.poll() is not None,
                    seconds):
        p.kill()
        p.wait()
        raise Fail(f"{what} never became ready")
    if p.poll() is not None:
        raise Fail(f"{what} ended early: {p.communicate()[1]}")


def jitread_live(mode, out, ready, *extra):
    """jitread MODE on CPU 1's report into out, started, ready (its
    --ready-file exists) and, but for the user side, getting CPU 1's
    jitmod events; the caller ends it with jitread_stop()."""
    p = subprocess.Popen([jitread(), mode, "-q", "-c", "1", "-d", "120s",
                          "--json", out, "--ready-file", ready, *extra],
                         stderr=subprocess.PIPE, text=True)
    await_ready(p, ready, f"jitread {mode}")
    if mode != "user":  # the user side reads no jitmod events
        events_flowing(p)
    return p


def jitread_stop(p):
    """End a jitread_live() run with SIGINT; Fail unless it exits 0."""
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    if p.returncode:
        raise Fail(f"jitread exit {p.returncode}: {err}")
