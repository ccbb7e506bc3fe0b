# SPDX-License-Identifier: GPL-2.0
"""make check's TAP tally, and the host unit tests run into it.

Each result is one numbered TAP line with its wall time ('# 1.2 s'); a
host test's time runs from the previous result, so that its class's
set-up counts.  The run ends with the ten slowest and 'N passed, N
failed, N skipped'.
"""

import os
import time
import unittest

import jitpy

TOP = jitpy.TOP
SLOWEST = 10


class Tally:
    """Numbered TAP output, each test's wall time and the closing
    counts."""

    def __init__(self):
        self.n = self.passed = self.failed = self.skipped = 0
        self.times = []

    def report(self, ok, name, skip_reason=None, detail=None, secs=None):
        self.n += 1
        took = ""
        if secs is not None:
            self.times.append((secs, name))
            took = f" # {secs:.1f} s"
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

    def slowest(self):
        """The ten slowest, as comment lines."""
        print(f"# the {SLOWEST} slowest:")
        for secs, name in sorted(self.times, reverse=True)[:SLOWEST]:
            print(f"# {secs:8.1f} s  {name}")


class _TapResult(unittest.TextTestResult):
    """Feed each unittest result into the tally as it finishes, timed
    from the previous one."""

    tally = None
    last = None

    def _secs(self):
        now = time.monotonic()
        secs, _TapResult.last = now - (_TapResult.last or now), now
        return secs

    def addSuccess(self, test):
        super().addSuccess(test)
        self.tally.report(True, f"host: {test.id()}", secs=self._secs())

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.tally.report(False, f"host: {test.id()}",
                          detail=self._exc_info_to_string(err, test),
                          secs=self._secs())

    def addError(self, test, err):
        super().addError(test, err)
        self.tally.report(False, f"host: {test.id()}",
                          detail=self._exc_info_to_string(err, test),
                          secs=self._secs())

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.tally.report(True, f"host: {test.id()}", skip_reason=reason,
                          secs=self._secs())


def run_host_tests(tally):
    """Every tests/host/test_*.py, through unittest."""
    suite = unittest.defaultTestLoader.discover(
        os.path.join(TOP, "tests", "host"), top_level_dir=TOP)
    _TapResult.tally = tally
    _TapResult.last = time.monotonic()
    with open(os.devnull, "w") as devnull:
        unittest.TextTestRunner(stream=devnull, resultclass=_TapResult,
                                verbosity=0).run(suite)
