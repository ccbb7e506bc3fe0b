# SPDX-License-Identifier: GPL-2.0
"""--hlog: jitread's HdrHistogram interval log, from a crafted recording
through jitread report.  The intervals, tags and counts are checked with
jitpy.formats.hlog, and the whole log is read back with the real
HdrHistogram reader from PyPI (make deps puts it in build/pyvenv): every
line decodes into jitread's own slots and counts, with the same counts
array length (the same value range), max and percentiles."""

import json
import os
import subprocess
import tempfile
import unittest

from jitpy.formats import hlog
from jitpy.formats import recording as jrrec
from tests.host import jrcli

VENV_PY = os.path.join(jrcli.TOP, "build", "pyvenv", "bin", "python")
S = 10 ** 9

# run by the venv's Python: each line as HdrHistogram's reader sees it
READ_BACK = r"""
import json, sys
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

ref = HdrHistogram(1, 2 ** 40 - 1, 3)
reader = HistogramLogReader(sys.argv[1], ref)
out = []
while True:
    h = reader.get_next_interval_histogram()
    if h is None:
        break
    slots = {i: h.get_count_at_index(i) for i in range(h.counts_len)
             if h.get_count_at_index(i)}
    out.append({"tag": h.get_tag(), "start_ms": h.get_start_time_stamp(),
                "count": h.get_total_count(), "max": h.get_max_value(),
                "min": h.get_min_value(),
                "p50": h.get_value_at_percentile(50),
                "p99": h.get_value_at_percentile(99),
                "slots": {str(i): n for i, n in slots.items()},
                "counts_len": h.counts_len})
print(json.dumps(out))
"""


def stamped_summary(cpu, ts):
    return jrrec.rec(jrrec.SUMMARY, cpu, (S, 0, 0, 1000, 35, 0, 0), ts=ts)


class Hlog(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.rec = os.path.join(cls.tmp.name, "r.rec")
        t0 = 1000 * S + 250_000_000  # the first interval is [1000 s, 1001 s)
        # CPU 1: 10..60 us in the first second, 5 gaps in the second, only
        # a summary in the third, nothing in the fourth, 2 gaps in the
        # fifth; CPU 2: 1..1000 us in the third second
        recs = [jrrec.gap(1, us * 1000, ts=t0 + us) for us in
                (10, 20, 30, 40, 50, 60)]
        recs += [jrrec.gap(1, 7000, ts=t0 + S + i) for i in range(5)]
        recs += [stamped_summary(1, t0 + 2 * S)]
        recs += [jrrec.gap(2, us * 1000, ts=t0 + 2 * S + us)
                 for us in range(1, 1001)]
        recs += [jrrec.gap(1, 3_000_000, ts=t0 + 4 * S),
                 jrrec.gap(1, 5000, ts=t0 + 4 * S + 1)]
        jrrec.write(cls.rec, recs)
        cls.log = os.path.join(cls.tmp.name, "gaps.hlog")
        cls.json = os.path.join(cls.tmp.name, "r.json")
        cls.rc, _, cls.err = jrcli.jitread("report", cls.rec, "-q", "--hlog",
                                           cls.log, "--json", cls.json)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def lines(self):
        self.assertEqual(self.rc, 0, self.err)
        return hlog.read(self.log)

    def test_intervals_per_cpu(self):
        comments, ivs = self.lines()
        self.assertIn("#[Histogram log format version 1.3]", comments)
        got = [(iv.tag, iv.start, iv.length, iv.total) for iv in ivs]
        self.assertEqual(sorted(got), sorted([
            ("cpu1", 0.0, 1.0, 6), ("cpu1", 1.0, 1.0, 5),
            ("cpu1", 2.0, 1.0, 0), ("cpu1", 4.0, 1.0, 2),
            ("cpu2", 2.0, 1.0, 1000)]))
        by = {(iv.tag, iv.start): iv for iv in ivs}
        self.assertAlmostEqual(by["cpu1", 4.0].max_ms, 3.0, delta=0.002)
        self.assertEqual(by["cpu1", 2.0].max_ms, 0.0)
        slots = by["cpu1", 1.0].counts
        self.assertEqual({hlog.value_at(i, 3): n for i, n in slots.items()},
                         {7000: 5})
        for iv in ivs:
            self.assertEqual((iv.digits, iv.lowest, iv.highest),
                             (3, 1, 2 ** 40 - 1))

    def test_counts_are_the_reports(self):
        _, ivs = self.lines()
        with open(self.json) as f:
            cpus = {c["cpu"]: c for c in json.load(f)["cpus"]}
        for cpu in (1, 2):
            total = sum(iv.total for iv in ivs if iv.tag == f"cpu{cpu}")
            self.assertEqual(total, cpus[cpu]["classes"]["gap"]["count"])

    def test_interval_option(self):
        log = os.path.join(self.tmp.name, "half.hlog")
        rc, _, err = jrcli.jitread("report", self.rec, "-q", "--hlog", log,
                                   "--hlog-interval", "500ms")
        self.assertEqual(rc, 0, err)
        _, ivs = hlog.read(log)
        starts = sorted(iv.start for iv in ivs if iv.tag == "cpu1")
        self.assertEqual(starts, [0.0, 1.0, 2.0, 4.0])
        self.assertTrue(all(iv.length == 0.5 for iv in ivs))

    def test_refused(self):
        jrcli.refused(self, ["report", self.rec, "--hlog-interval", "500us"],
                      2, "--hlog-interval")
        jrcli.refused(self, ["report", self.rec, "--hlog",
                             "/nonexistent/x.hlog"], 1, "/nonexistent")
        jrcli.refused(self, ["user", "-c", "1", "--hlog", "x"], 2, "--hlog")

    @unittest.skipUnless(os.access(VENV_PY, os.X_OK),
                         "no build/pyvenv: make deps installs PyPI's "
                         "hdrhistogram there")
    def test_hdrhistogram_reads_it_back(self):
        _, ivs = self.lines()
        p = subprocess.run([VENV_PY, "-c", READ_BACK, self.log],
                           capture_output=True, text=True, timeout=60,
                           check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        theirs = json.loads(p.stdout)
        self.assertEqual(len(theirs), len(ivs))
        for iv, t in zip(ivs, theirs):
            where = f"{iv.tag}@{iv.start}"
            self.assertEqual({int(i): n for i, n in t["slots"].items()},
                             iv.counts, where)
            self.assertEqual(t["counts_len"], 31744, where)
            self.assertEqual((t["tag"], t["count"]), (iv.tag, iv.total),
                             where)
            self.assertAlmostEqual(t["max"] / 1e6, iv.max_ms, delta=1e-6)
        cpu2 = [t for t in theirs if t["tag"] == "cpu2"][0]
        # 1..1000 us: p50 500 us and p99 990 us, to HdrHistogram's 3 digits
        self.assertAlmostEqual(cpu2["p50"], 500_000, delta=500)
        self.assertAlmostEqual(cpu2["p99"], 990_000, delta=1000)
        self.assertAlmostEqual(cpu2["min"], 1000, delta=1)


if __name__ == "__main__":
    unittest.main()
