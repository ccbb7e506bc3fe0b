# SPDX-License-Identifier: GPL-2.0
"""What ran inside a source's windows, and how regularly it comes.

jitmod writes a jitmod:detail when a work item or timer callback returns
inside an open window, so it comes before that window's own event on its
CPU.  These recordings check how jitread gives each detail to its window
(by pid, softirq vector and vector name), splits the window's net time
among its callbacks by their own time, drops what no window claimed,
and finds a source's rate and dominant period.
"""

import json
import os
import random
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

MS = 1000000


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class Detail(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.rec = os.path.join(self.tmp.name, "r.rec")

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, recs, params="cpus=1 details=work,timer,hrtimer,tick"):
        jrrec.write(self.rec, recs, params=params)
        out = os.path.join(self.tmp.name, "r.json")
        rc, _, err = jrcli.jitread("report", self.rec, "-q", "--json", out)
        self.assertEqual(rc, 0, err)
        with open(out) as f:
            return json.load(f)

    def sources(self, recs):
        d = self.report(recs)
        cpu = d["cpus"][0]
        return {s["source"]: s for s in cpu["sources"]}, cpu

    @staticmethod
    def detail(src):
        return {r["name"]: (r["count"], r["total_ns"])
                for r in src["detail"]}

    def test_work_goes_to_its_kworker(self):
        """A work item is claimed by the thread event of the pid that ran
        it, not by another thread that closes first."""
        recs = [jrrec.detail(1, "work", "vmstat_update", "thread",
                             wall_ns=8000, pid=50),
                jrrec.thread(1, 3000, "other", 60),
                jrrec.thread(1, 10000, "kworker/1:1", 50)]
        by, cpu = self.sources(recs)
        self.assertEqual(self.detail(by["thread:kworker/1:1[50]"]),
                         {"work:vmstat_update": (1, 10000)})
        self.assertEqual(by["thread:other[60]"]["detail"], [])
        self.assertEqual(cpu["detail_orphans"], 0)

    def test_callbacks_split_the_window_by_their_time(self):
        recs = [jrrec.detail(1, "timer", "a_fn", "softirq", wall_ns=3000),
                jrrec.detail(1, "timer", "b_fn", "softirq", wall_ns=1000),
                jrrec.softirq(1, 8000, "TIMER")]
        by, _ = self.sources(recs)
        self.assertEqual(self.detail(by["softirq:TIMER"]),
                         {"timer:a_fn": (1, 6000), "timer:b_fn": (1, 2000)})

    def test_timer_waits_for_the_timer_softirq(self):
        recs = [jrrec.detail(1, "timer", "t_fn", "softirq", wall_ns=1000),
                jrrec.softirq(1, 5000, "NET_RX"),
                jrrec.softirq(1, 7000, "TIMER")]
        by, _ = self.sources(recs)
        self.assertEqual(by["softirq:NET_RX"]["detail"], [])
        self.assertEqual(self.detail(by["softirq:TIMER"]),
                         {"timer:t_fn": (1, 7000)})

    def test_hard_hrtimer_and_the_tick(self):
        """A hard hrtimer belongs to the local_timer interrupt; another
        vector closing first makes it stale.  A tick dependency waits
        for the next local_timer and names every bit."""
        sched_rcu = (1 << 2) | (1 << 4)
        recs = [jrrec.detail(1, "hrtimer", "stale_fn", "irq", wall_ns=100),
                jrrec.irq(1, 2000, "call_function_single", vector=251),
                jrrec.detail(1, "tick", "", "irq", dep=sched_rcu),
                jrrec.irq(1, 1500, "reschedule", vector=253),
                jrrec.detail(1, "hrtimer", "tick_sched_timer", "irq",
                             wall_ns=900),
                jrrec.irq(1, 4000, "local_timer")]
        by, cpu = self.sources(recs)
        self.assertEqual(self.detail(by["irq:local_timer"]),
                         {"hrtimer:tick_sched_timer": (1, 4000),
                          "tick:SCHED+RCU": (1, 4000)})
        self.assertEqual(by["irq:call_function_single"]["detail"], [])
        self.assertEqual(cpu["detail_orphans"], 1)

    def test_ipi_goes_to_the_call_function_vectors(self):
        """An IPI's function belongs to the call_function(_single)
        interrupt, named with the CPU that asked when it was seen; the
        local_timer makes one stale.  Two functions in one interrupt
        split it by their own times."""
        recs = [jrrec.detail(1, "ipi", "stale_fn", "irq", wall_ns=100,
                             dep=0),
                jrrec.irq(1, 1000, "local_timer"),
                jrrec.detail(1, "ipi", "remote_function@generic_exec_single",
                             "irq", wall_ns=300, dep=0),
                jrrec.detail(1, "ipi", "flush_tlb_func", "irq", wall_ns=100,
                             dep=-1),
                jrrec.irq(1, 2000, "call_function_single", vector=251),
                jrrec.detail(1, "ipi", "do_sync_core", "irq", wall_ns=50,
                             dep=3),
                jrrec.irq(1, 500, "call_function", vector=252)]
        by, cpu = self.sources(recs)
        self.assertEqual(
            self.detail(by["irq:call_function_single"]),
            {"ipi:remote_function@generic_exec_single from CPU 0":
             (1, 1500), "ipi:flush_tlb_func": (1, 500)})
        self.assertEqual(self.detail(by["irq:call_function"]),
                         {"ipi:do_sync_core from CPU 3": (1, 500)})
        self.assertEqual(by["irq:local_timer"]["detail"], [])
        self.assertEqual(cpu["detail_orphans"], 1)

    def test_period_end_drops_what_no_window_claimed(self):
        recs = [jrrec.detail(1, "work", "lost_fn", "thread", pid=70),
                jrrec.summary(1, 10 * MS, 0, 0),
                jrrec.thread(1, 5000, "kworker/1:2", 70)]
        by, cpu = self.sources(recs)
        self.assertEqual(by["thread:kworker/1:2[70]"]["detail"], [])
        self.assertEqual(cpu["detail_orphans"], 1)

    def test_rows_are_bounded(self):
        """Past 16 names a source's rows fold into "other"."""
        recs = []
        for i in range(40):
            recs += [jrrec.detail(1, "timer", f"fn{i}", "softirq",
                                  wall_ns=10),
                     jrrec.softirq(1, 1000, "TIMER")]
        by, _ = self.sources(recs)
        rows = self.detail(by["softirq:TIMER"])
        self.assertEqual(len(rows), 17)
        self.assertEqual(rows["other"], (24, 24000))
        self.assertEqual(sum(c for c, _ in rows.values()), 40)

    def test_rate_and_dominant_period(self):
        """A source every 4 ms (with 2 % jitter and a few strays) has a
        period near 4 ms; its rate is per second of sampling."""
        rnd = random.Random(7)
        t, recs = 10 * MS, []
        for i in range(200):
            t += int(4 * MS * rnd.uniform(0.98, 1.02))
            if i % 20 == 0:
                t += 37 * MS
            recs.append(jrrec.thread(1, 2000, "tick_like", 99, ts=t))
        recs.append(jrrec.summary(1, 2000 * MS, 400000, 2000))
        by, _ = self.sources(recs)
        s = by["thread:tick_like[99]"]
        self.assertAlmostEqual(s["period_ns"] / (4 * MS), 1.0, delta=0.03)
        self.assertGreaterEqual(s["period_share"], 0.85)
        self.assertAlmostEqual(s["rate_hz"], 100.0, places=3)

    def test_text_names_what_ran_inside(self):
        recs = [jrrec.detail(1, "work", "vmstat_update", "thread",
                             wall_ns=8000, pid=50),
                jrrec.thread(1, 10000, "kworker/1:1", 50)]
        jrrec.write(self.rec, recs, params="cpus=1 details=work,tick")
        rc, out, err = jrcli.jitread("report", self.rec)
        self.assertEqual(rc, 0, err)
        self.assertIn("# details named: work,tick;", out)
        lines = out.splitlines()
        at = [i for i, x in enumerate(lines)
              if x.startswith("thread:kworker/1:1[50]")][0]
        self.assertTrue(lines[at + 1].startswith("  work:vmstat_update"),
                        lines[at + 1])
        self.assertIn("100.00%", lines[at + 1])

    def test_bad_detail_is_refused(self):
        jrrec.write(self.rec, [jrrec.rec(jrrec.DETAIL, 1, cls=9,
                                         ident2=jrrec.CLS["irq"])])
        rc, _, err = jrcli.jitread("report", self.rec)
        self.assertNotEqual(rc, 0)
        self.assertIn("detail kind 9", err)


if __name__ == "__main__":
    unittest.main()
