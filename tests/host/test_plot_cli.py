# SPDX-License-Identifier: GPL-2.0
"""python3 -m jitpy.plot without matplotlib says so in one line, naming
the package; the timeline plot, in us, marks where a CPU's timeline was
cut and says how many gaps it left out."""

import subprocess
import sys
import unittest

from tests.host import jrcli

# make check runs these at nice 19 beside the guests: they draw from
# data in memory and time nothing
BESIDE_GUESTS = True

# the module run as python3 -m would, with matplotlib made unimportable
NO_MPL = ("import runpy, sys\n"
          "sys.modules['matplotlib'] = None\n"
          "sys.argv = ['jitpy.plot', 'report.json']\n"
          "runpy.run_module('jitpy.plot', run_name='__main__')\n")


def timeline_report(dropped):
    """A report whose CPU 1 kept three gaps, the last at 2.5 s."""
    gaps = [[1000000000, 20000, "irq"], [2000000000, 30000, "thread"],
            [2500000000, 40000, "hw:unknown"]]
    return {"side": "kernel", "all_cpus": {},
            "cpus": [{"cpu": 1, "timeline": {"dropped": dropped,
                                             "gaps": gaps}}]}


class WithoutMatplotlib(unittest.TestCase):
    def test_one_line_naming_the_package(self):
        p = subprocess.run([sys.executable, "-c", NO_MPL], cwd=jrcli.TOP,
                           capture_output=True, text=True, check=False,
                           timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stdout, "")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("python3-matplotlib", lines[0])


class TimelineCut(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            from jitpy.plot import jitplot
        except ImportError as e:
            raise unittest.SkipTest(f"matplotlib missing: {e}") from e
        cls.jitplot = jitplot

    def test_a_cut_timeline_says_where(self):
        fig = self.jitplot.plot_timeline(timeline_report(dropped=7))
        ax = fig.axes[0]
        self.assertEqual(ax.get_title(loc="left"),
                         "the first 3 gaps, to 2.500 s; 7 later gaps not "
                         "drawn")
        xs = [list(ln.get_xdata()) for ln in ax.lines]
        self.assertEqual(xs, [[2.5, 2.5]])
        ys = sorted(float(p[1]) for c in ax.collections
                    for p in c.get_offsets())
        self.assertEqual(ys, [20.0, 30.0, 40.0])  # in us
        self.assertTrue(ax.get_ylabel().endswith("(us)"), ax.get_ylabel())

    def test_a_whole_timeline_says_nothing(self):
        fig = self.jitplot.plot_timeline(timeline_report(dropped=0))
        ax = fig.axes[0]
        self.assertEqual(ax.get_title(loc="left"), "")
        self.assertEqual(len(ax.lines), 0)


if __name__ == "__main__":
    unittest.main()
