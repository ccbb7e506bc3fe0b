# SPDX-License-Identifier: GPL-2.0
"""The runner of the Python jitmod selftests (the shell ones use lib.sh).

A test calls run(body): body raises Skip or Fail (jitpy.guest.sysio), or
returns to pass; the exit code follows kselftest (0 pass, 1 fail, 4 skip).
A test of several cases runs each through Cases, which reports each as a
KTAP subtest and goes on after a failure; a measurement that the emulator
can spoil is made again through attempts(), the one retry helper.
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


class Again(Exception):
    """A measurement that proved nothing (the emulator stalled, a window
    crossed a period boundary): make it again."""


def attempts(fn, n, after_fail=None, retry=(Fail,), what="attempt"):
    """fn(i) for i = 0, 1, ... until it returns, at most n times: a host
    stall under TCG can spoil one measurement.  An exception of retry
    (Fail, unless the test says which), or Again, makes it again; each is
    logged and followed by after_fail().  When all n were spoiled, the
    last Fail is raised, or a Fail saying that every try was made
    again."""
    for i in range(n):
        try:
            return fn(i)
        except (Again,) + tuple(retry) as e:
            if after_fail:
                after_fail()
            if i == n - 1:
                if isinstance(e, Fail):
                    raise
                raise Fail(f"{what}: made again in every one of {n} "
                           f"attempts; the last: {e}") from e
            # the harness counts these lines by their start (AGAIN in
            # jitpy/harness/guests.py)
            log(f"again after {what} {i + 1} of {n}: {e}")
    raise Fail(f"{what}: no attempt made (n={n})")


class Cases:
    """The cases of one test as KTAP subtests: each runs and reports its
    own line, whatever the others did, and the test fails at the end if
    any case failed.  A case that raises Skip is reported as skipped."""

    def __init__(self, count):
        self.count, self.n, self.failed = count, 0, []
        print("    KTAP version 1", flush=True)
        print(f"    1..{count}", flush=True)

    def run(self, name, fn, *args, **kw):
        """Case name: fn(*args, **kw), passed unless it raises."""
        self.n += 1
        try:
            fn(*args, **kw)
        except Skip as e:
            print(f"    ok {self.n} {name} # SKIP {e}", flush=True)
        except (Fail, OSError) as e:
            log(f"{name}: FAIL: {e}")
            print(f"    not ok {self.n} {name}", flush=True)
            self.failed.append(name)
        else:
            print(f"    ok {self.n} {name}", flush=True)

    def finish(self):
        """Fail the test if a case failed, or the plan was not kept."""
        if self.n != self.count:
            self.failed.append(f"{self.count - self.n} never run")
        if self.failed:
            raise Fail(f"{len(self.failed)} of {self.count} cases failed: "
                       f"{', '.join(self.failed)}")


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
