# SPDX-License-Identifier: GPL-2.0
"""The per-CPU pictures of a comparison (jitpy/plot/percpu.py), read back
from their figures: each class's percentiles per CPU and side, the
stacked bars of time per second by class and by source, and the heat map
of gap time per CPU; and python3 -m jitpy.plot writes them."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from tests.host import jrcli

# make check runs these at nice 19 beside the guests: they draw from
# data in memory and time nothing
BESIDE_GUESTS = True
S = 10 ** 9


def hist(*values):
    """A report's histogram of values (ns), one slot each."""
    return {"count": len(values), "slots": [[v, 1] for v in sorted(values)]}


def cpu(n, runtime, sources, gaps, classes):
    return {"cpu": n, "summary": {"runtime_ns": runtime},
            "classes": classes,
            "sources": [{"source": s, "class": c, "total_ns": t}
                        for s, c, t in sources],
            "timeline": {"dropped": 0, "gaps": gaps}}


def compare_report():
    """CPUs 1 and 2 on both sides.  The kernel side ran 2 s a CPU, the
    user side 1 s."""
    k1 = cpu(1, 2 * S, [("irq:local_timer", "irq", 4000000),
                        ("hw:unknown", "hw:unknown", 2000000)],
             [[0, 10000, "irq"], [S, 30000, "hw:unknown"]],
             {"gap": hist(10000, 30000), "irq": hist(9000, 9500)})
    k2 = cpu(2, 2 * S, [("thread:kworker/2:1[9]", "thread", 6000000)],
             [[S // 2, 50000, "thread"]], {"gap": hist(50000)})
    u1 = cpu(1, S, [("irq:local_timer", "irq", 1000000),
                    ("thread:a[1]", "thread", 500000),
                    ("thread:b[2]", "thread", 400000),
                    ("thread:c[3]", "thread", 300000),
                    ("thread:d[4]", "thread", 200000),
                    ("thread:e[5]", "thread", 100000)],
             [[2 * S, 70000, "thread"]], {"gap": hist(70000, 80000, 90000)})
    u2 = cpu(2, 0, [], [], {"gap": hist()})
    return {"side": "kernel", "hostname": "box", "all_cpus": {},
            "cpus": [k1, k2], "user": {"cpus": [u1, u2], "all_cpus": {}}}


class PerCpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            from jitpy.plot import jitplot, percpu
        except ImportError as e:
            raise unittest.SkipTest(f"matplotlib missing: {e}") from e
        cls.jitplot, cls.percpu = jitplot, percpu

    def test_class_percentiles_per_cpu_and_side(self):
        fig = self.percpu.plot_classes(compare_report())
        self.assertEqual([ax.get_title() for ax in fig.axes],
                         ["CPU 1: percentiles per class",
                          "CPU 2: percentiles per class"])
        lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
        self.assertEqual(sorted(lines), ["kernel gap (2)", "kernel irq (2)",
                                         "user gap (3)"])
        self.assertEqual(list(lines["kernel irq (2)"].get_ydata()),
                         [9.0, 9.5])   # us
        self.assertEqual(lines["kernel gap (2)"].get_linestyle(), "-")
        self.assertEqual(lines["user gap (3)"].get_linestyle(), "--")
        self.assertEqual(lines["kernel irq (2)"].get_color(),
                         self.jitplot.COLOURS["irq"])
        self.assertTrue(fig.axes[0].get_ylabel().endswith("(us)"))

    def test_stacked_bars_per_second(self):
        fig = self.percpu.plot_cpus(compare_report())
        left, right = fig.axes
        ticks = [t.get_text() for t in left.get_xticklabels()]
        self.assertEqual(ticks, ["CPU 1\nkernel", "CPU 1\nuser",
                                 "CPU 2\nkernel", "CPU 2\nuser"])

        def stacks(ax):
            out = {}
            for c in ax.containers:
                out[c.get_label()] = [(round(r.get_y(), 6),
                                       round(r.get_height(), 6))
                                      for r in c.patches]
            return out

        cls = stacks(left)
        # us per second of runtime: 4 ms over 2 s is 2000 us/s
        self.assertEqual(cls["irq"], [(0, 2000), (0, 1000), (0, 0),
                                      (0, 0)])
        self.assertEqual(cls["thread"], [(2000, 0), (1000, 1500),
                                         (0, 3000), (0, 0)])
        self.assertEqual(cls["hw:unknown"], [(2000, 1000), (2500, 0),
                                             (3000, 0), (0, 0)])
        self.assertNotIn("nmi", cls)
        src = stacks(right)
        # the top five by time per second; thread:e is "other"
        self.assertEqual(sorted(src), sorted(
            ["irq:local_timer", "thread:kworker/2:1[9]", "hw:unknown",
             "thread:a[1]", "thread:b[2]", "other"]))
        self.assertEqual(src["other"][1], (1900, 600))
        self.assertTrue(left.get_ylabel().startswith("noise (us"))

    def test_heatmap_a_row_per_cpu_and_side(self):
        labels, width, rows = self.percpu.heat(compare_report())
        self.assertEqual(labels, ["CPU 1 kernel", "CPU 1 user",
                                  "CPU 2 kernel"])
        self.assertEqual([sum(r) for r in rows], [40000, 70000, 50000])
        self.assertEqual(rows[0][0], 10000)
        self.assertEqual(rows[1][-1], 70000)
        fig = self.percpu.plot_heatmap(compare_report())
        cells = fig.axes[0].images[0].get_array()
        self.assertAlmostEqual(float(cells[2].max()), 50.0)   # us
        self.assertIn("box", fig.axes[0].get_title())

    @unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK), "make user")
    def test_the_cli_writes_them(self):
        """From a report jitread wrote, of a recording of two CPUs."""
        from jitpy.formats import recording as jrrec
        recs = [jrrec.gap(c, v) for c in (1, 2)
                for v in range(1000, 50000, 700)]
        recs += [jrrec.irq(1, 4000, "local_timer"),
                 jrrec.summary(1, S, 2 * 10 ** 6, 49000),
                 jrrec.summary(2, S, 2 * 10 ** 6, 49000)]
        with tempfile.TemporaryDirectory() as d:
            rec, path = os.path.join(d, "r.rec"), os.path.join(d, "r.json")
            jrrec.write(rec, recs)
            rc, _, err = jrcli.jitread("report", rec, "-q", "--json", path)
            self.assertEqual(rc, 0, err)
            p = subprocess.run([sys.executable, "-m", "jitpy.plot", path,
                                "-o", d, "--format", "png"], cwd=jrcli.TOP,
                               capture_output=True, text=True, check=False,
                               timeout=120)
            names = sorted(os.listdir(d))
            with open(path) as f:
                data = json.load(f)
        self.assertEqual(p.returncode, 0, p.stderr)
        for want in ("classes.png", "cpus.png", "heatmap.png"):
            self.assertIn(want, names)
        labels, _, rows = self.percpu.heat(data)
        self.assertEqual(labels, ["CPU 1 kernel", "CPU 2 kernel"])
        self.assertEqual(sum(rows[0]), sum(range(1000, 50000, 700)))


if __name__ == "__main__":
    unittest.main()
