# SPDX-License-Identifier: GPL-2.0
"""make check's TAP tally, and the host unit tests run into it.

Each result is one numbered TAP line with its wall time and, where it
was measured, the CPU time it took ('# 1.2 s, CPU 2.0 s': a guest's QEMU
can use more than one CPU); a host test's times run from the previous
result, so that its class's set-up counts.  A measurement made again
is a '# retried:' line after its test's.  The run ends with the ten
slowest, every retry counted, and 'N passed, N failed, N skipped'.
"""

import os
import re
import sys
import time
import unittest

import jitpy
from jitpy.harness import cpu

TOP = jitpy.TOP
SLOWEST = 10


class Tally:
    """Numbered TAP output, each test's wall time and the closing
    counts."""

    def __init__(self):
        self.n = self.passed = self.failed = self.skipped = 0
        self.times = []
        self.cpu = {}
        self.beside = set()
        self.retries = []

    def report(self, ok, name, skip_reason=None, detail=None, secs=None,
               cpu_s=None):
        self.n += 1
        took = ""
        if secs is not None:
            self.times.append((secs, name))
            took = f" # {secs:.1f} s"
            if cpu_s is not None:
                self.cpu[name] = cpu_s
                took += f", CPU {cpu_s:.1f} s"
        if skip_reason is not None:
            self.skipped += 1
            print(f"ok {self.n} {name} # SKIP {skip_reason}", flush=True)
            return
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} {name}{took}", flush=True)
        if detail and not ok:
            for line in detail.splitlines()[-30:]:
                print(f"# {line}")

    def retried(self, name, n):
        """name made n measurements (or boots) again: printed now, and
        counted at the close."""
        self.retries.append((name, n))
        print(f"# retried: {name}: {n}", flush=True)

    def retry_line(self):
        """What was made again, as one comment line."""
        if not self.retries:
            return "# retries: none"
        each = ", ".join(f"{name} ({n})" for name, n in self.retries)
        return (f"# retries: {sum(n for _, n in self.retries)}, each logged "
                f"above: {each}")

    def slowest(self):
        """The ten slowest, as comment lines."""
        print(f"# the {SLOWEST} slowest (+: beside the guests):")
        for secs, name in sorted(self.times, reverse=True)[:SLOWEST]:
            mark = "+" if name in self.beside else " "
            used = f" (CPU {self.cpu[name]:.0f} s)" if name in self.cpu \
                else ""
            print(f"# {secs:8.1f} s {mark}{name}{used}")

    def closing(self, slowest=True):
        """The ten slowest (if slowest), the plan line and the counts;
        the exit code."""
        if slowest:
            self.slowest()
            print(self.retry_line())
        print(f"1..{self.n}")
        print(f"{self.passed} passed, {self.failed} failed, "
              f"{self.skipped} skipped", flush=True)
        return 1 if self.failed else 0


class _TapResult(unittest.TextTestResult):
    """Feed each unittest result into the tally as it finishes, timed
    from the previous one."""

    tally = None
    last = None

    def _took(self):
        """Wall and CPU seconds since the previous result, as report()'s
        keywords."""
        now = (time.monotonic(), cpu.used())
        last, type(self).last = type(self).last or now, now
        return {"secs": now[0] - last[0], "cpu_s": now[1] - last[1]}

    def addSuccess(self, test):
        super().addSuccess(test)
        self.tally.report(True, f"host: {test.id()}", **self._took())

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.tally.report(False, f"host: {test.id()}",
                          detail=self._exc_info_to_string(err, test),
                          **self._took())

    def addError(self, test, err):
        super().addError(test, err)
        self.tally.report(False, f"host: {test.id()}",
                          detail=self._exc_info_to_string(err, test),
                          **self._took())

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.tally.report(True, f"host: {test.id()}", skip_reason=reason,
                          **self._took())


LANES = ("beside", "timed", "alone")


def lane_of(test):
    """Where make check runs a host test, as its class, else its module,
    says:

      beside  BESIDE_GUESTS: it times nothing and runs no sampler, so it
              runs in the idle lane beside the guests, which changes
              none of its results;
      alone   ALONE: it compares measurements taken apart in time, which
              any other load moves, so it runs once both lanes are done;
      timed   the rest: they time something or run a sampler natively,
              in the guests' group once the guests are done, while the
              idle lane may still run.
    """
    cls = type(test)
    module = sys.modules.get(cls.__module__)

    def marked(name):
        return bool(getattr(cls, name, getattr(module, name, False)))

    if marked("BESIDE_GUESTS"):
        return "beside"
    return "alone" if marked("ALONE") else "timed"


def _flat(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _flat(test)
        else:
            yield test


def claimed_groups(tests, take):
    """tests, one group per class, longest first (its CHECK_S: about the
    seconds it takes in make check, 0 if unsaid), of the classes that
    take(their name) lets this lane run: each claimed as it is reached,
    once the one before has run, so that the other lane may take the
    rest meanwhile."""
    by_class = {}
    for test in tests:
        by_class.setdefault(type(test), []).append(test)
    for c in sorted(by_class, key=lambda c: -getattr(c, "CHECK_S", 0)):
        if take(f"host-{c.__module__}.{c.__qualname__}"):
            yield by_class[c]


def run_host_tests(tally, lane, take=None):
    """Every tests/host/test_*.py test whose lane_of() is lane, through
    unittest.  With take, class by class (claimed_groups): two lanes
    whose take() share one set of claims each run the classes the other
    has not begun."""
    if lane not in LANES:
        raise ValueError(f"run_host_tests: no lane {lane!r}")
    found = unittest.defaultTestLoader.discover(
        os.path.join(TOP, "tests", "host"), top_level_dir=TOP)
    tests = [t for t in _flat(found) if lane_of(t) == lane]
    groups = claimed_groups(tests, take) if take else [tests]
    # a class of this run's own: a host test that runs host tests (the
    # harness's) must not take the results of the run around it
    result = type("_RunResult", (_TapResult,), {"tally": tally})
    with open(os.devnull, "w") as devnull:
        for group in groups:
            result.last = (time.monotonic(), cpu.used())
            unittest.TextTestRunner(stream=devnull, resultclass=result,
                                    verbosity=0).run(
                                        unittest.TestSuite(group))


RESULT = re.compile(r"^(not )?ok \d+ (.*?)"
                    r"(?: # SKIP (.*)| # ([\d.]+) s(?:, CPU ([\d.]+) s)?)?$")
RETRIED = re.compile(r"^# retried: (.*): (\d+)$")
PLAN = re.compile(r"^1\.\.(\d+)$")
COUNTS = re.compile(r"^\d+ passed, \d+ failed, \d+ skipped$")


def replay(tally, lines):
    """Number another tally's TAP output (lines) into this one, marked as
    run beside the guests, its comments as they were; (results, the
    number its plan line announced, or None)."""
    got, plan = 0, None
    for line in lines:
        m = RESULT.match(line)
        if m:
            got += 1
            tally.beside.add(m.group(2))
            secs = float(m.group(4)) if m.group(4) else None
            cpu_s = float(m.group(5)) if m.group(5) else None
            tally.report(not m.group(1), m.group(2), skip_reason=m.group(3),
                         secs=secs, cpu_s=cpu_s)
        elif RETRIED.match(line):
            m = RETRIED.match(line)
            tally.retried(m.group(1), int(m.group(2)))
        elif PLAN.match(line):
            plan = int(PLAN.match(line).group(1))
        elif not COUNTS.match(line):
            print(line if line.startswith("#") else f"# {line}")
    return got, plan
