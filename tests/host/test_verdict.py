# SPDX-License-Identifier: GPL-2.0
"""--fail-if on crafted recordings (jitread report): each metric, operator
and scope, the exit code 4 with one line per failing CPU, and bad
conditions refused in one line."""

import os
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

VERDICT = 4


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class FailIf(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.rec = os.path.join(cls.tmp.name, "r.rec")
        # CPU 1: gaps of 10..60 us, two IRQs of 6 us, a summary at
        # 99.992 %; CPU 2: gaps of 1..1000 us, no summary
        recs = [jrrec.gap(1, us * 1000) for us in (10, 20, 30, 40, 50, 60)]
        recs += [jrrec.irq(1, 6000, "local_timer")] * 2
        recs += [jrrec.summary(1, 10 ** 9, 80000, 60000)]
        recs += [jrrec.gap(2, us * 1000) for us in range(1, 1001)]
        # CPU 3: sources alone, in 2 s: 4 local timers, a reschedule IPI,
        # two kworkers (3 events of 20 us, one of 40 us)
        recs += [jrrec.irq(3, 2000, "local_timer")] * 4
        recs += [jrrec.irq(3, 1000, "reschedule", vector=253)]
        recs += [jrrec.thread(3, 20000, "kworker/3:1", 50)] * 3
        recs += [jrrec.thread(3, 40000, "kworker/u8:2", 60)]
        recs += [jrrec.summary(3, 2 * 10 ** 9, 110000, 40000)]
        jrrec.write(cls.rec, recs)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def judge(self, *conds, extra=()):
        args = ["report", self.rec, "-q", *extra]
        for c in conds:
            args += ["--fail-if", c]
        rc, out, err = jrcli.jitread(*args)
        self.assertEqual(out, "")
        return rc, err.strip().splitlines()

    def holds(self, cond, *where):
        """cond fails the run, with a line for each of where."""
        rc, lines = self.judge(cond)
        self.assertEqual(rc, VERDICT, lines)
        self.assertEqual(len(lines), len(where), lines)
        for line, w in zip(lines, where):
            self.assertIn(f"fail-if '{cond}': {w}", line)

    def passes(self, cond):
        self.assertEqual(self.judge(cond), (0, []), cond)

    def test_max_per_cpu(self):
        self.holds("max>50us", "CPU 1: gap max 60.000 us",
                   "CPU 2: gap max 1000")
        self.holds("max>100us", "CPU 2")
        self.passes("max>1ms")
        self.holds("max>500", "CPU 2")  # bare: us, as -T
        self.passes("max>1000")

    def test_operators_at_the_edge(self):
        self.holds("cpu=1,max>=60us", "CPU 1")
        self.passes("cpu=1,max>60us")
        self.holds("cpu=1,min<=10us", "CPU 1")
        self.passes("cpu=1,min<10us")

    def test_scopes(self):
        self.holds("cpu=all,count>1005", "all CPUs: gap count 1006")
        self.passes("cpu=all,count>1006")
        self.passes("cpu=1,count>6")
        self.holds("cpu=7,max>1us", "CPU 7 is not in the report")
        rc, lines = self.judge("cpu=2,max>1us", extra=("-c", "1"))
        self.assertEqual(rc, VERDICT)
        self.assertIn("CPU 2 is not in the report", lines[0])
        rc, lines = self.judge("cpu=all,max>1ms", extra=("-c", "5"))
        self.assertEqual(rc, VERDICT)
        self.assertIn("no CPU is in the report", lines[0])

    def test_classes(self):
        self.holds("class=irq,max>5us", "CPU 1: irq max 6")
        self.passes("class=irq,max>7us")
        self.passes("class=nmi,count>0")
        self.holds("class=irq,count>=2", "CPU 1: irq count 2",
                   "CPU 3: irq count 5")

    def test_percentiles_and_mean(self):
        # CPU 2's p50 is about 500 us, its mean 500.5 us
        self.holds("cpu=2,p50>400us", "CPU 2: gap p50 50")
        self.passes("cpu=2,p50>600us")
        self.holds("cpu=2,p99.9>990us", "CPU 2: gap p99.9 ")
        self.holds("cpu=2,mean>500us", "CPU 2: gap mean 500.5")
        self.passes("cpu=2,mean>501us")

    def test_avail_and_noise(self):
        # CPU 1: 80 us of noise in 1 s; CPU 2 has no summary to judge
        self.holds("cpu=1,avail<99.999%", "CPU 1: avail 99.9920%")
        self.passes("cpu=1,avail<99.99%")
        self.passes("cpu=1,avail<99.99")
        self.holds("cpu=1,noise>=80us", "CPU 1: noise 80.000 us")
        self.holds("avail<50%", "CPU 2: no period summary")

    def test_rates(self):
        self.holds("cpu=1,class=irq,rate>1", "CPU 1: irq rate 2.000/s")
        self.passes("cpu=1,class=irq,rate>2")
        self.holds("cpu=3,source=irq:local_timer,rate>1",
                   "CPU 3: source irq:local_timer (1 matched) rate 2.000/s")
        self.holds("cpu=3,source=irq:local_timer,rate>=2/s", "CPU 3")
        self.passes("cpu=3,source=irq:local_timer,rate>2")
        self.holds("cpu=2,source=irq:*,rate>1",
                   "CPU 2: no period summary to judge")

    def test_rates_summed_over_cpus(self):
        cond = "cpu=all,source=irq:local_timer,rate>3.5"
        rc, lines = self.judge(cond, extra=("-c", "1,3"))
        self.assertEqual(rc, VERDICT, lines)
        self.assertIn("all CPUs: source irq:local_timer (2 matched) rate "
                      "4.000/s", lines[0])
        rc, lines = self.judge("cpu=all,source=irq:local_timer,rate>4",
                               extra=("-c", "1,3"))
        self.assertEqual((rc, lines), (0, []))

    def test_sources_by_glob(self):
        self.holds("class=irq,source=irq:reschedule,count>0",
                   "CPU 3: source irq:reschedule (1 matched) count 1")
        self.holds("source=thread:kworker*,count>3",
                   "CPU 3: source thread:kworker* (2 matched) count 4")
        self.passes("source=thread:kworker*,count>4")
        self.holds("cpu=3,source=thread:kworker*,max>=40us",
                   "CPU 3: source thread:kworker* (2 matched) max 40.000 us")
        self.holds("cpu=3,source=thread:kworker*,mean>=25us",
                   "CPU 3: source thread:kworker* (2 matched) mean 25.000 us")
        self.passes("cpu=3,source=thread:kworker*,mean>25us")
        self.holds("cpu=3,source=thread:kworker/3*,noise>=60us",
                   "CPU 3: source thread:kworker/3* (1 matched) noise "
                   "60.000 us")
        self.passes("cpu=3,source=thread:kworker*,min<20us")
        # class= narrows the sources: no irq is named thread:*
        self.passes("class=irq,source=thread:*,count>0")
        self.passes("source=irq:nosuch,count>0")

    def test_several_conditions_and_outputs_kept(self):
        out = os.path.join(self.tmp.name, "v.json")
        rc, lines = self.judge("cpu=1,max>50us", "cpu=2,count>10",
                               "cpu=1,max>1ms", extra=("--json", out))
        self.assertEqual(rc, VERDICT)
        self.assertEqual(len(lines), 2, lines)
        self.assertTrue(os.path.getsize(out) > 0, "the report is written")

    def test_bad_conditions(self):
        for cond in ("max>>5us", "max=5us", "p0>1us", "p101>1us",
                     "avail<101%", "bogus>1", "class=foo,max>1",
                     "class=irq,avail<99%", "cpu=x,max>1", "max>5parsecs",
                     "count>1.5", "mx>1", ">1", "side=user,max>1",
                     "source=,count>0", "source=irq:*,p99>1us",
                     "source=irq:*,avail<99%", "rate>1us", "rate>-1",
                     "rate>1/min", "source=" + "x" * 64 + ",count>0"):
            jrcli.refused(self, ["report", self.rec, "--fail-if", cond], 2,
                          "--fail-if")

    def test_a_failed_run_keeps_its_code(self):
        rc, _, err = jrcli.jitread("report", "/nonexistent.rec",
                                   "--fail-if", "max>1us")
        self.assertEqual(rc, 1, err)


if __name__ == "__main__":
    unittest.main()
