# SPDX-License-Identifier: GPL-2.0
"""The runner of the Python jitmod selftests (the shell ones use lib.sh).

A test calls run(body): body raises Skip or Fail (jitpy.guest.sysio), or
returns to pass; the exit code follows kselftest (0 pass, 1 fail, 4 skip).
Every test also fails on a bad kernel log, judged by the pattern in
lib.sh.  The helpers a test uses are jitpy.guest's: sysio, tracefs, trace,
kmod and injector, staged beside this file by `make ksft`.
"""

import os
import re
import sys

from jitpy.guest import kmod
from jitpy.guest.sysio import Fail, Skip, log, read, sh, write

KSFT_PASS, KSFT_FAIL, KSFT_SKIP = 0, 1, 4
HERE = os.path.dirname(os.path.abspath(__file__))


def bad_dmesg_pattern():
    """JIT_BAD_DMESG from lib.sh, so shell and Python tests agree."""
    with open(os.path.join(HERE, "lib.sh")) as f:
        m = re.search(r"^JIT_BAD_DMESG='(.*)'$", f.read(), re.M)
    return re.compile(m.group(1))


def attempts(fn, n, after_fail=None):
    """fn() until it returns, at most n times: a host stall under TCG can
    spoil one measurement.  Each failed try is logged and followed by
    after_fail(); the last try's Fail is raised."""
    for i in range(1, n + 1):
        try:
            return fn()
        except Fail as e:
            if after_fail:
                after_fail()
            if i == n:
                raise
            log(f"attempt {i} of {n} failed: {e}")


def diagnose(cpu):
    """Log what the sampler on cpu is doing, for a failure report."""
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if read(f"/proc/{pid}/comm") != f"jitmod/{cpu}":
                continue
            st = read(f"/proc/{pid}/stat").split()
            log(f"jitmod/{cpu} pid {pid} state {st[2]} wchan "
                f"{read(f'/proc/{pid}/wchan')} utime+stime "
                f"{int(st[13]) + int(st[14])}")
            for line in read(f"/proc/{pid}/stack").splitlines()[:8]:
                log(f"  {line}")
        except OSError:
            continue
    for name in ("parameters/enable", "parameters/period_us",
                 "parameters/runtime_us"):
        try:
            log(f"{name}: {read('/sys/module/jitmod/' + name)}")
        except OSError:
            pass


def run(body):
    """Run a test body with kselftest exit codes and a dmesg check."""
    mark = f"jitmod-selftest: {os.path.basename(sys.argv[0])} {os.getpid()}"
    code = KSFT_PASS
    try:
        kmod.require()
        write("/dev/kmsg", mark)
        body()
        _, dmesg = sh("dmesg")
        since = dmesg[dmesg.rfind(mark):]
        pattern = bad_dmesg_pattern()
        bad = [ln for ln in since.splitlines() if pattern.search(ln)]
        if bad:
            raise Fail("kernel log: " + " | ".join(bad[:3]))
    except Skip as e:
        log(f"SKIP: {e}")
        code = KSFT_SKIP
    except (Fail, OSError) as e:
        log(f"FAIL: {e}")
        code = KSFT_FAIL
    finally:
        for m in ("jitinject", "jitmod"):
            try:
                if kmod.loaded(m) and kmod.rmmod(m, check=False)[0]:
                    log(f"cleanup: rmmod {m} failed")
            except Fail as e:
                log(f"cleanup: {e}")
                code = KSFT_FAIL
    return code
