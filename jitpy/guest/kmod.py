# SPDX-License-Identifier: GPL-2.0
"""This checkout's modules and jitread, loaded and run in the guest."""

import os

import jitpy
from jitpy.guest.sysio import Fail, Skip, sh
from jitpy.guest.tracefs import ROOT

JIT_PARAMS = "/sys/module/jitmod/parameters"


def ko(name):
    """Path of jitmod.ko or jitinject.ko built for the running kernel."""
    sub = "module" if name == "jitmod" else name
    env = os.environ.get(f"{name.upper()}_KO")
    path = env or os.path.join(jitpy.TOP, "build", "modules",
                               os.uname().release, sub, f"{name}.ko")
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
