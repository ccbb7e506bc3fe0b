# SPDX-License-Identifier: GPL-2.0
"""dist/jitread.rules.yml: promtool accepts it, and its unit tests
(tests/host/prom/jitread.rules.test.yml) pass, and fail when a limit
moves.  test_serve.py loads the same rules into a real Prometheus
scraping a real serve."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.host import jrcli

# make check runs these at nice 19 beside the guests: promtool on two
# small files, nothing timed
BESIDE_GUESTS = True

RULES = os.path.join(jrcli.TOP, "dist", "jitread.rules.yml")
UNIT = os.path.join(jrcli.TOP, "tests", "host", "prom",
                    "jitread.rules.test.yml")


def promtool(*args, cwd=None):
    p = subprocess.run(["promtool", *args], capture_output=True, text=True,
                       check=False, timeout=120, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


def unit_with(rules_text):
    """promtool test rules on the unit tests, against rules_text."""
    with tempfile.TemporaryDirectory() as d:
        # the unit file names ../../../dist/jitread.rules.yml
        deep = os.path.join(d, "tests", "host", "prom")
        os.makedirs(deep)
        os.mkdir(os.path.join(d, "dist"))
        with open(os.path.join(d, "dist", "jitread.rules.yml"), "w") as f:
            f.write(rules_text)
        shutil.copy(UNIT, deep)
        rc, out = promtool("test", "rules", os.path.basename(UNIT), cwd=deep)
        # a missing rule file is only a warning to promtool
        return (rc or "WARNING" in out), out


@unittest.skipUnless(shutil.which("promtool"),
                     "promtool missing (make deps)")
class Rules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(RULES) as f:
            cls.text = f.read()

    def test_promtool_checks_them(self):
        rc, out = promtool("check", "rules", RULES)
        self.assertEqual(rc, 0, out)
        self.assertIn("SUCCESS: 8 rules found", out)

    def test_their_unit_tests_pass(self):
        rc, out = unit_with(self.text)
        self.assertEqual(rc, 0, out)
        self.assertIn("SUCCESS", out)

    def test_the_unit_tests_can_fail(self):
        """Each alert's condition moved, and the unit tests see it."""
        moved = {"< 0.9999": "< 0.9997", "[5m]) > 0": "[5m]) > 5",
                 "> 120": "> 600", "== 0": "== 2"}
        for old, new in moved.items():
            with self.subTest(old=old):
                self.assertEqual(self.text.count(old), 1, old)
                rc, out = unit_with(self.text.replace(old, new))
                self.assertNotEqual(rc, 0, out)
        # and a recording rule's expression
        rc, out = unit_with(re.sub(r"topk by \(instance, cpu\) \(5,",
                                   "topk by (instance, cpu) (4,", self.text))
        self.assertNotEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
