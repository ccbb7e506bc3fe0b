# SPDX-License-Identifier: GPL-2.0
"""make demo, as the README gives it: the rt kernel in QEMU, jitmod on
CPUs 1-3, then jitread compare on them.  It must print the floors side
by side and why they differ, for each of the three CPUs: a table whose
classes add up to each side's noise, and a sentence per CPU.

The recipe runs as make has it; its prerequisites (modules-all, user)
are taken as built (make -o), as make check builds them first."""

import os
import re
import subprocess
import unittest

from jitpy.vm import runner as jitvm
from tests.host import jrcli

# make check runs this at nice 19 beside the guests: it checks what the
# report holds, never how long anything took
BESIDE_GUESTS = True

CPUS = (1, 2, 3)
ROW = re.compile(r"^(\d+) +(class|source) +(\S+) +([-\d.]+) +([-\d.]+) +"
                 r"([-+\d.]+)$")
NOISE = re.compile(r"^CPU (\d+): the user thread lost ([\d.]+) us/s "
                   r"(more|less) than jitmod's kthread \(([\d.]+) against "
                   r"([\d.]+)\); the largest difference of a class is ")


def why_not():
    if os.geteuid() != 0:
        return "needs root (QEMU's root is the host's, read-only)"
    try:
        _, rel = jitvm.resolve_kernel("rt")
    except jitvm.MissingError as e:
        return str(e)
    ko = os.path.join(jrcli.TOP, "build", "modules", rel, "module",
                      "jitmod.ko")
    if not os.path.exists(ko):
        return f"{ko} missing (make modules-all)"
    if not os.access(jrcli.JITREAD, os.X_OK):
        return "make user"
    return None


@unittest.skipIf(why_not(), why_not())
class Demo(unittest.TestCase):
    def test_demo_explains_the_difference(self):
        p = subprocess.run(["make", "-s", "-C", jrcli.TOP, "-o",
                            "modules-all", "-o", "user", "demo",
                            "DEMO_ARGS=2 10000"], capture_output=True,
                           text=True, check=False, timeout=1200)
        out = p.stdout
        self.assertEqual(p.returncode, 0, p.stderr[-2000:] + out[-2000:])
        for want in ("kernel side: jitmod", "# noise floors",
                     "# why they differ"):
            self.assertIn(want, out)
        why = out[out.index("# why they differ"):]
        rows = [m.groups() for m in map(ROW.match, why.splitlines()) if m]
        said = {int(m[1]): m for m in map(NOISE.match, why.splitlines())
                if m}
        self.assertEqual(sorted(said), list(CPUS), why)
        for cpu in CPUS:
            mine = [r for r in rows if int(r[0]) == cpu]
            m = said[cpu]
            user, kernel = float(m[4]), float(m[5])
            self.assertAlmostEqual(float(m[2]), abs(user - kernel), places=2)
            self.assertEqual(m[3] == "more", user > kernel, m[0])
            for side, noise in ((3, kernel), (4, user)):
                classes = sum(float(r[side]) for r in mine
                              if r[1] == "class")
                self.assertLess(abs(classes - noise), 0.01 * noise + 1,
                                (cpu, side, mine))
            for r in mine:
                self.assertAlmostEqual(float(r[5]),
                                       float(r[4]) - float(r[3]), places=2)
        print(f"\ndemo: {len(rows)} rows of why; " +
              "; ".join(said[c][0][:60] for c in CPUS))


def main():
    unittest.main()


if __name__ == "__main__":
    main()
