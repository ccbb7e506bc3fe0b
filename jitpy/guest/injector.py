# SPDX-License-Identifier: GPL-2.0
"""The selftests' injector module (jitinject): noise of a known class,
source and length on its CPU, and what it measured of its own spins."""

import os
import time

from jitpy.guest.sysio import read, write

PARAMS = "/sys/module/jitinject/parameters"


def fire(cls, us):
    """One injection on the injector's CPU; returns when it has run."""
    write(f"{PARAMS}/inject", f"{cls} {us}")


def smi(n, settle_s):
    """n SMIs to the injector's CPU, raised from the writer's CPU; returns
    settle_s after the last.  Under icount the target takes an SMI only
    once the writer's CPU sleeps, so until then anything the writer wakes
    there would share the SMI's gap.  Closing the parameter's file is such
    a thing: the file is freed through RCU, whose callbacks for an
    isolated CPU run on a housekeeping one.  So the writer sleeps first,
    its file still open."""
    fd = os.open(f"{PARAMS}/smi", os.O_WRONLY)
    try:
        os.write(fd, f"{n}\n".encode())
        time.sleep(settle_s)
    finally:
        os.close(fd)


def late_ns():
    """How far the last injection's spins ran past their time.  They end by
    the clock, so a stall of the vCPU that straddles a spin's end (a busy
    host) lengthens it; an upper bound on a source's net time adds this."""
    return int(read(f"{PARAMS}/late_ns"))


def nested_ns():
    """How much of the last injection's source spin (the thread's, if the
    class has one, else the handler's) went to interrupts nested in it: the
    spin's loop steps in which the CPU's interrupt counts moved.  That time
    comes off the source's net time; a lower bound on it subtracts this."""
    return int(read(f"{PARAMS}/nested_ns"))


def spin_floor_ns(d_ns):
    """The least net time an injection spun for d_ns can be charged: the
    injector spins by the clock, so interrupts nested in the spin (a tick,
    ~20-70 us under TCG) rightly come off its net time; at most D/10."""
    return d_ns - d_ns // 10
