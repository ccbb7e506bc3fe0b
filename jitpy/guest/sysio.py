# SPDX-License-Identifier: GPL-2.0
"""Files, commands and failures inside a booted kernel.

Fail and Skip are how a selftest (and a guest benchmark) says it cannot go
on; sh() turns a command stuck in the kernel into a Fail with the blocked
tasks in the kernel log.
"""

import os
import subprocess
import time

CMD_TIMEOUT_S = 60


class Skip(Exception):
    """This test cannot run here; the message says why."""


class Fail(Exception):
    """The thing under test is broken; the message says how."""


def log(msg):
    """A TAP diagnostic line."""
    print(f"# {msg}", flush=True)


def write(path, value):
    """Write a sysfs/tracefs file; raise OSError like the kernel said."""
    with open(path, "w") as f:
        f.write(f"{value}\n")


def read(path):
    with open(path) as f:
        return f.read().strip()


def dump_blocked_tasks():
    """Ask the kernel to log every task in D state (sysrq w)."""
    try:
        write("/proc/sysrq-trigger", "w")
    except OSError:
        return
    time.sleep(0.5)
    out = subprocess.run(["dmesg"], capture_output=True, text=True,
                         check=False).stdout
    for line in out.splitlines()[-80:]:
        log(f"dmesg: {line}")


def sh_split(cmd, timeout=CMD_TIMEOUT_S, stderr=subprocess.PIPE):
    """Run a command; return (rc, stdout, stderr), stderr None when it
    went into stdout.

    A command stuck in the kernel (D state) cannot be killed, so on the
    time limit the blocked tasks go to the kernel log and the test fails
    without waiting for it: a hang becomes a diagnosable failure instead
    of eating the suite's time.
    """
    p = subprocess.Popen(cmd, shell=isinstance(cmd, str), text=True,
                         stdout=subprocess.PIPE, stderr=stderr)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        dump_blocked_tasks()
        raise Fail(f"'{cmd}' still running after {timeout} s; blocked "
                   "tasks are in the kernel log")
    return p.returncode, out, err


def sh(cmd, check=True, timeout=CMD_TIMEOUT_S):
    """Run a command; return (rc, output), its stderr in the output
    (sh_split says what a hang does)."""
    rc, out, _ = sh_split(cmd, timeout, stderr=subprocess.STDOUT)
    if check and rc:
        raise Fail(f"'{cmd}' failed ({rc}): {out.strip()}")
    return rc, out


def wait_for(pred, seconds, step=0.1):
    """Poll pred() until true; False after seconds."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return bool(pred())


def cpu_s(pids):
    """utime + stime of each of pids, all threads, in s."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read().rsplit(")", 1)[1].split()
        total += int(st[11]) + int(st[12])
    return total / os.sysconf("SC_CLK_TCK")
