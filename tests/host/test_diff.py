# SPDX-License-Identifier: GPL-2.0
"""jitread diff on JSON reports of crafted recordings: a source removed is
"better" and shown gone, the same rate over another duration is
"unchanged", a change within the sampling noise or below --min-change is
"unchanged", percentiles that rise because small gaps went away do not
make it "worse", thresholds set the lowest level judged, and bad reports
are refused in one line.  Then jitpy.plot's overlay of N runs."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

# make check runs these at nice 19 beside the guests: they compare
# reports made up here and time nothing
BESIDE_GUESTS = True

VERDICT = 4
S = 10 ** 9


def noise(cpu, runtime_s, groups, lost=0):
    """Records of one CPU: groups of (count, gap ns, class, source) where
    source is "irq:NAME", "thread:COMM" or None; one summary."""
    recs, total, top = [], 0, 0
    for count, ns, cls, src in groups:
        for _ in range(count):
            recs.append(jrrec.gap(cpu, ns, cls=cls))
            if src and src.startswith("irq:"):
                recs.append(jrrec.irq(cpu, ns - 500, src[4:]))
            elif src:
                recs.append(jrrec.thread(cpu, ns - 500, src[7:], 4242))
        total += count * ns
        top = max(top, ns if count else 0)
    if lost:
        recs.append(jrrec.rec(jrrec.LOST, cpu, (lost,)))
    return recs + [jrrec.summary(cpu, runtime_s * S, total, top)]


TICK = (1000, 6000, "irq", "irq:local_timer")      # 100/s over 10 s
VIRTIO = (2000, 25000, "irq", "irq:virtio0-input")  # 200/s over 10 s


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class Diff(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.n = 0

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *cpus, params=None):
        """A JSON report of jitread report over the records of cpus."""
        self.n += 1
        rec = os.path.join(self.tmp.name, f"{self.n}.rec")
        out = os.path.join(self.tmp.name, f"{self.n}.json")
        kw = {"params": params} if params else {}
        jrrec.write(rec, [r for recs in cpus for r in recs], **kw)
        rc, _, err = jrcli.jitread("report", rec, "-q", "--json", out)
        self.assertEqual(rc, 0, err)
        return out

    def diff(self, a, b, *extra, code=0):
        """jitread diff's JSON (on stdout) and its exit code."""
        rc, out, err = jrcli.jitread("diff", a, b, "--json", "-", *extra)
        self.assertEqual(rc, code, err)
        return json.loads(out)

    @staticmethod
    def source(cpu, name):
        return next(s for s in cpu["sources"] if s["source"] == name)

    @staticmethod
    def measure(cpu, level_ns):
        return next(m for m in cpu["measures"] if m["level_ns"] == level_ns)

    def test_source_removed_is_better_and_gone(self):
        a = self.report(noise(1, 10, [TICK, VIRTIO]))
        b = self.report(noise(1, 10, [TICK]))
        d = self.diff(a, b)
        self.assertEqual(d["verdict"], "better")
        cpu = d["cpus"][0]
        self.assertEqual((cpu["cpu"], cpu["verdict"]), (1, "better"))
        virtio = self.source(cpu, "irq:virtio0-input")
        self.assertEqual(virtio["count"], [2000, 0])
        self.assertEqual(virtio["verdict"], "better")
        self.assertAlmostEqual(virtio["per_s"][0], 200.0)
        self.assertEqual(cpu["sources"][0]["source"], "irq:virtio0-input")
        self.assertEqual(self.source(cpu, "irq:local_timer")["verdict"],
                         "unchanged")
        self.assertEqual(self.measure(cpu, 0)["verdict"], "better")
        self.assertEqual(self.measure(cpu, 10000)["value"], [200.0, 0.0])
        self.assertEqual(self.measure(cpu, 1000)["verdict"], "better")
        # the text says the same, and names the source gone
        rc, out, _ = jrcli.jitread("diff", a, b)
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"irq:virtio0-input .* gone\n")
        self.assertTrue(out.endswith("verdict: better\n"), out)

    def test_source_added_is_worse_and_fails_on_request(self):
        a = self.report(noise(1, 10, [TICK]))
        b = self.report(noise(1, 10, [TICK, VIRTIO]))
        self.assertEqual(self.diff(a, b)["verdict"], "worse")
        rc, out, err = jrcli.jitread("diff", a, b, "-q", "--fail-worse")
        self.assertEqual((rc, out), (VERDICT, ""))
        self.assertEqual(err.strip(), "jitread: diff: worse")
        rc, _, _ = jrcli.jitread("diff", b, a, "-q", "--fail-worse")
        self.assertEqual(rc, 0)

    def test_rates_are_per_second_of_runtime(self):
        a = self.report(noise(1, 10, [TICK, VIRTIO]))
        b = self.report(noise(1, 20, [(2000, 6000, "irq", "irq:local_timer"),
                                      (4000, 25000, "irq",
                                       "irq:virtio0-input")]))
        d = self.diff(a, b)
        self.assertEqual(d["verdict"], "unchanged")
        self.assertEqual(self.source(d["cpus"][0], "irq:virtio0-input")
                         ["per_s"], [200.0, 200.0])

    def test_change_within_sampling_noise_is_unchanged(self):
        # 100/s against 103/s over 10 s is 0.7 standard errors
        a = self.report(noise(1, 10, [TICK]))
        b = self.report(noise(1, 10, [(1030, 6000, "irq",
                                       "irq:local_timer")]))
        d = self.diff(a, b, "--min-change", "0")
        self.assertEqual(d["verdict"], "unchanged")
        m = self.measure(d["cpus"][0], 5000)
        self.assertLess(abs(m["z"]), 1.0)
        self.assertGreater(abs(m["z"]), 0.5)

    @staticmethod
    def timed(cpu, per_s, ns=6000):
        """Gaps of ns at per_s[k] evenly in second k, and a summary."""
        recs = []
        for k, n in enumerate(per_s):
            recs += [jrrec.gap(cpu, ns, cls="irq",
                               ts=k * S + i * S // n + 1) for i in range(n)]
        runtime = len(per_s) * S
        return recs + [jrrec.summary(cpu, runtime, ns * len(recs), ns)]

    def test_bursts_widen_the_error(self):
        # 15 % more gaps: 3.2 standard errors if they came independently
        steady = self.report(self.timed(1, [100] * 10))
        more = self.report(self.timed(1, [115] * 10))
        d = self.diff(steady, more)
        m = self.measure(d["cpus"][0], 5000)
        self.assertEqual(m["dispersion"], [1, 1])
        self.assertEqual((d["verdict"], m["verdict"]), ("worse", "worse"))
        self.assertAlmostEqual(m["z"], 3.23, places=2)
        # the same totals in bursts of 20 and 180 a second: the runs' own
        # seconds vary by more than the change
        bursty = self.report(self.timed(1, [20, 180] * 5))
        more = self.report(self.timed(1, [23, 207] * 5))
        d = self.diff(bursty, more)
        m = self.measure(d["cpus"][0], 5000)
        self.assertGreater(min(m["dispersion"]), 50)
        self.assertLess(abs(m["z"]), 1)
        self.assertEqual(d["verdict"], "unchanged")

    def test_a_dispersion_from_few_seconds_asks_for_more(self):
        # evenly: Poisson, the critical z is 3
        d = self.diff(self.report(self.timed(1, [100] * 10)),
                      self.report(self.timed(1, [115] * 10)))
        self.assertEqual(self.measure(d["cpus"][0], 5000)["critical_z"], 3)
        # a little bursty (90/110 a second): z still above 3, but the
        # dispersion comes from 9 seconds, so Student's t with 8 degrees
        # of freedom (4.3) is what it must reach
        d = self.diff(self.report(self.timed(1, [90, 110] * 5)),
                      self.report(self.timed(1, [104, 126] * 5)))
        m = self.measure(d["cpus"][0], 5000)
        self.assertGreater(m["z"], 3)
        self.assertGreater(m["critical_z"], 4.1)
        self.assertLess(m["critical_z"], 4.5)
        self.assertEqual((m["verdict"], d["verdict"]),
                         ("unchanged", "unchanged"))

    def test_min_change(self):
        # 2 % more gaps: 4.5 standard errors, below the default 10 %
        a = self.report(noise(1, 10, [(100000, 6000, "irq", None)]))
        b = self.report(noise(1, 10, [(102000, 6000, "irq", None)]))
        d = self.diff(a, b)
        self.assertEqual(d["verdict"], "unchanged")
        self.assertGreater(self.measure(d["cpus"][0], 5000)["z"], 4)
        self.assertEqual(self.diff(a, b, "--min-change", "1%")["verdict"],
                         "worse")

    def test_percentiles_rising_is_not_worse(self):
        # the ticks go, the rarer long gaps stay: p50 rises, yet better
        a = self.report(noise(1, 10, [(5000, 6000, "irq", None),
                                      (100, 80000, "thread", None)]))
        b = self.report(noise(1, 10, [(100, 80000, "thread", None)]))
        d = self.diff(a, b)
        cpu = d["cpus"][0]
        p50 = cpu["classes"]["gap"]["percentiles_ns"]["50"]
        self.assertLess(p50[0], 7000)
        self.assertGreater(p50[1], 79000)
        self.assertEqual(d["verdict"], "better")
        self.assertEqual(self.measure(cpu, 50000)["verdict"], "unchanged")

    def test_thresholds_set_the_lowest_level(self):
        # B cannot see A's 6 us ticks: only what both saw is compared
        a = self.report(noise(1, 10, [TICK, VIRTIO]),
                        params="threshold_ns=1000 cpus=1-3")
        b = self.report(noise(1, 10, [VIRTIO]),
                        params="threshold_ns=8000 cpus=1-3")
        d = self.diff(a, b)
        self.assertEqual(d["rule"]["floor_ns"], 8000)
        self.assertEqual(d["rule"]["noise_from"], "gaps")
        cpu = d["cpus"][0]
        self.assertEqual([m["level_ns"] for m in cpu["measures"]],
                         [0, 8000, 10000, 20000])
        self.assertEqual(cpu["verdict"], "unchanged")
        self.assertEqual(self.measure(cpu, 0)["z"], 0)
        d = self.diff(a, self.report(noise(1, 10, [VIRTIO])))
        self.assertEqual(d["rule"]["noise_from"], "summary")
        self.assertEqual(d["verdict"], "better")

    def test_cpus_in_one_report_and_the_cpu_filter(self):
        a = self.report(noise(1, 10, [TICK]), noise(2, 10, [TICK]))
        b = self.report(noise(1, 10, [TICK]), noise(3, 10, [VIRTIO]))
        d = self.diff(a, b)
        self.assertEqual((d["only_a"], d["only_b"]), ([2], [3]))
        self.assertEqual([c["cpu"] for c in d["cpus"]], [1])
        rc, out, _ = jrcli.jitread("diff", a, b)
        self.assertIn("CPUs only in A, not compared: 2\n", out)
        d = self.diff(a, b, "-c", "2")
        self.assertEqual((d["cpus"], d["verdict"]), ([], "not judged"))

    def test_lost_events_are_not_judged(self):
        a = self.report(noise(1, 10, [TICK, VIRTIO]))
        b = self.report(noise(1, 10, [TICK], lost=5))
        cpu = self.diff(a, b)["cpus"][0]
        self.assertEqual((cpu["verdict"], cpu["why"]),
                         ("not judged", "events were lost"))

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_bad_reports_are_refused(self):
        good = self.report(noise(1, 10, [TICK]))
        with open(good) as f:
            doc = json.load(f)
        cut = dict(doc)
        cut["cpus"] = [dict(doc["cpus"][0])]
        cut["cpus"][0]["classes"] = dict(cut["cpus"][0]["classes"])
        gap = dict(cut["cpus"][0]["classes"]["gap"], count=7)
        cut["cpus"][0]["classes"]["gap"] = gap
        user = dict(doc, side="user")
        cases = [
            (self.write("t.json", "{\"file_version\": 2,"), "not JSON"),
            (self.write("l.json", "[1, 2]"), "not a jitread report"),
            (self.write("v.json", json.dumps(dict(doc, file_version=9))),
             "file_version 9"),
            (self.write("s.json", json.dumps(cut)),
             "slots: do not add up to count"),
            (self.tmp.name, "not a regular file"),
            (os.path.join(self.tmp.name, "none.json"), "No such file"),
        ]
        for path, text in cases:
            jrcli.refused(self, ["diff", good, path, "-q"], 1, text)
        jrcli.refused(self, ["diff", self.write("u.json", json.dumps(user)),
                             good, "-q"], 1, "is a report of side user")
        jrcli.refused(self, ["diff", good], 2, "needs two JSON reports")
        jrcli.refused(self, ["diff", good, good, "--min-change", "x"], 2,
                      "bad value 'x' for --min-change")
        jrcli.refused(self, ["diff", good, good, "-T", "5"], 2,
                      "not an option of 'jitread diff'")

    def test_fuzz_target_builds_and_reads_a_report(self):
        """make fuzz's second target links and runs a real report."""
        seeds = os.path.join(self.tmp.name, "seeds")
        os.mkdir(seeds)
        os.rename(self.report(noise(1, 10, [TICK, VIRTIO])),
                  os.path.join(seeds, "a.json"))
        jrcli.fuzz_run(self, "fuzz_rdoc", seeds)


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class Overlay(unittest.TestCase):
    """python3 -m jitpy.plot A.json B.json C.json: one line per run."""

    def test_overlay_plots_each_run(self):
        from jitpy.plot import jitplot
        d = Diff()
        d.setUp()
        self.addCleanup(d.tearDown)
        paths = [d.report(noise(1, 10, [TICK, VIRTIO]), noise(2, 10, [TICK])),
                 d.report(noise(1, 10, [TICK]), noise(2, 10, [TICK])),
                 d.report(noise(1, 20, [TICK]), noise(2, 20, []))]
        runs = []
        for label, path in zip(("base", "irq moved", "longer"), paths):
            with open(path) as f:
                runs.append((label, json.load(f)))
        fig = jitplot.plot_overlay(runs)
        left, right = fig.axes
        self.assertEqual((left.get_ylabel(), right.get_xlabel()),
                         ("gap (us)", "gap (us)"))
        self.assertEqual([ln.get_label() for ln in left.lines],
                         ["base (4000 gaps)", "irq moved (2000 gaps)",
                          "longer (1000 gaps)"])
        # per second of both CPUs' runtime (20 s): above the ticks' slot,
        # base has the 2000 virtio gaps; irq moved has nothing above it
        self.assertEqual(list(right.lines[0].get_ydata()), [100.0])
        self.assertEqual([ln.get_label() for ln in right.lines],
                         ["base", "irq moved", "longer"])
        self.assertEqual(len(right.lines[1].get_ydata()), 0)
        fig = jitplot.plot_overlay(runs, cpu=2)
        self.assertEqual([ln.get_label() for ln in fig.axes[0].lines],
                         ["base (1000 gaps)", "irq moved (1000 gaps)"])
        out = os.path.join(d.tmp.name, "plots")
        p = subprocess.run([sys.executable, "-m", "jitpy.plot", *paths,
                            "--labels", "a,b,c", "-o", out, "--format",
                            "png"], capture_output=True, text=True,
                           cwd=jrcli.TOP, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), [os.path.join(out, "overlay.png")])
        self.assertGreater(os.path.getsize(os.path.join(out, "overlay.png")),
                           1000)
        p = subprocess.run([sys.executable, "-m", "jitpy.plot", *paths,
                            "--labels", "a,b", "-o", out],
                           capture_output=True, text=True, cwd=jrcli.TOP,
                           check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("2 labels for 3 reports", p.stderr)


def main():
    unittest.main()


if __name__ == "__main__":
    main()
