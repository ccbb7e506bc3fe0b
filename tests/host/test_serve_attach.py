# SPDX-License-Identifier: GPL-2.0
"""jitread serve --attach natively: a spinner on CPU 1 shares it with a
rival shell, and serve serves what attach measures of the spinner while
it runs.  Real Prometheus servers scrape it in the text format and in
protobuf; promtool accepts it; counters only grow; the last refresh is
the report; the run ends with the process; bad options are refused."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from jitpy.fleet.prom import Prometheus, free_port, get, samples, wait_for
from tests.host import jrcli
from tests.host.test_attach import hog, spinner, stop
from tests.host.test_serve import promtool_check

CPU = 1


def usable():
    return jrcli.native_root("BPF needs root")


def total(s, name, *labels):
    """The sum of family name's samples that carry every label given."""
    return sum(v for k, v in s.items()
               if k.startswith(name + "{") and all(x in k for x in labels))


@unittest.skipIf(usable(), usable())
@unittest.skipUnless(shutil.which("prometheus") and shutil.which("promtool"),
                     "prometheus missing (make deps)")
class ServeAttached(unittest.TestCase):
    """One run of jitread serve --attach on a spinner beside a nice-0
    shell on CPU 1, scraped, then stopped with SIGINT."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        cls.json = os.path.join(d, "serve.json")
        cls.textdir = os.path.join(d, "textfile")
        os.mkdir(cls.textdir)
        cls.port = free_port()
        cls.url = f"http://127.0.0.1:{cls.port}/metrics"
        cls.target = spinner(CPU)
        cls.rival = hog(CPU, nice=0)
        cls.prom = cls.native = cls.serve = None
        try:
            time.sleep(0.3)
            cls.serve = subprocess.Popen(
                [jrcli.JITREAD, "serve", "--attach", str(cls.target.pid),
                 "-c", str(CPU), "--listen", f"127.0.0.1:{cls.port}",
                 "--refresh", "500ms", "--textfile", cls.textdir, "-q",
                 "--json", cls.json], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
            run = f'jitread_thread_run_seconds_total{{tid="{cls.target.pid}"'
            wait_for(lambda: run in get(cls.url)[2], 30,
                     "the spinner's first refresh")
            cls.prom = Prometheus(d, f"127.0.0.1:{cls.port}")
            cls.native = Prometheus(d, f"127.0.0.1:{cls.port}", native=True)
            cls.first = get(cls.url)[2]
            time.sleep(3)
            cls.second = get(cls.url)[2]
            time.sleep(3)
            cls.t1 = time.time()
        finally:
            # the spinners die whatever became of serve: left behind,
            # they would starve every later test on their CPU
            try:
                if cls.serve:
                    cls.serve.send_signal(signal.SIGINT)
                    cls.out, cls.err = cls.serve.communicate(timeout=60)
            finally:
                stop(cls.target, cls.rival)
        with open(cls.json, encoding="utf-8") as f:
            cls.report = json.load(f)
        with open(os.path.join(cls.textdir, "jitread.prom"),
                  encoding="utf-8") as f:
            cls.last = samples(f.read())

    @classmethod
    def tearDownClass(cls):
        for p in (cls.prom, cls.native):
            if p:
                p.stop()
        cls.tmp.cleanup()

    def test_ends_cleanly_on_sigint(self):
        self.assertEqual(self.serve.returncode, 0, self.err)
        self.assertEqual(self.err, "")
        self.assertEqual(self.report["side"], "attach")

    def test_promtool_accepts_it(self):
        self.assertEqual(promtool_check(self.second), (0, ""))
        self.assertIn('backend="attach"', self.second)

    def test_counters_only_grow(self):
        a, b = samples(self.first), samples(self.second)
        grew = 0
        for key, v in a.items():
            if "ratio" in key or "build_info" in key or \
                    key.startswith("jitread_source_"):
                continue
            self.assertIn(key, b)
            self.assertGreaterEqual(b[key], v, key)
            grew += b[key] > v
        self.assertGreater(grew, 10)

    def test_the_last_refresh_is_the_report(self):
        """The textfile of the last refresh holds the report's figures:
        summaries add up to the run's, and each thread's account is the
        report's."""
        s, cpu = self.last, f'cpu="{CPU}"'
        (c,) = [c for c in self.report["cpus"] if c["cpu"] == CPU]
        summ = c["summary"]
        self.assertAlmostEqual(
            s[f'jitread_sampled_seconds_total{{{cpu}}}'],
            summ["runtime_ns"] / 1e9, delta=1e-8)
        self.assertGreater(s[f'jitread_periods_total{{{cpu}}}'], 8)
        self.assertAlmostEqual(total(s, "jitread_noise_seconds_total", cpu),
                               summ["noise_ns"] / 1e9, delta=1e-6)
        (th,) = self.report["attach"]["threads"]
        tid = f'tid="{th["tid"]}"'
        self.assertAlmostEqual(total(s, "jitread_thread_run_seconds_total",
                                     tid), th["run_ns"] / 1e9, delta=1e-8)
        self.assertAlmostEqual(total(s, "jitread_thread_wait_seconds_total",
                                     tid), th["waits"]["total_ns"] / 1e9,
                               delta=1e-8)
        self.assertEqual(total(s, "jitread_thread_waits_total", tid),
                         th["waits"]["count"])
        for k, v in th["classes"].items():
            self.assertAlmostEqual(
                total(s, "jitread_thread_noise_seconds_total", tid,
                      f'class="{k}"'), v["total_ns"] / 1e9, delta=1e-8)

    def test_what_took_the_cpu(self):
        """The spinner waited while the rival ran: thread noise, the
        rival its source, and the wait is a share of the time."""
        s, cpu = self.last, f'cpu="{CPU}"'
        thread = s[f'jitread_noise_seconds_total{{{cpu},class="thread"}}']
        self.assertGreater(thread, 0.5)
        self.assertGreater(s[f'jitread_gaps_total{{{cpu},class="thread"}}'],
                           20)
        self.assertGreater(total(s, "jitread_source_noise_seconds_total",
                                 cpu, 'class="thread"', 'source="sh"'),
                           0.5 * thread)
        ratio = s[f'jitread_available_ratio{{{cpu}}}']
        self.assertTrue(0.2 < ratio < 0.9, ratio)
        self.assertNotIn("jitread_gap_duration_seconds_bucket", self.second)

    def test_prometheus_reads_both_formats(self):
        """PromQL gives the spinner's waits from the text format and from
        protobuf alike."""
        q = f'jitread_thread_wait_seconds_total{{tid="{self.target.pid}"}}'
        for p in (self.prom, self.native):
            res = p.query(q, self.t1)
            self.assertEqual(len(res), 1, res)
            self.assertGreater(float(res[0]["value"][1]), 0.5)


@unittest.skipIf(usable(), usable())
class ServeAttachEnds(unittest.TestCase):
    def test_ends_with_the_process(self):
        """serve --attach ends when its process exits, with the report."""
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.Popen(["/usr/bin/python3", "-c",
                                  "import time\nt = time.time() + 3\n"
                                  "while time.time() < t: pass\n"])
            self.addCleanup(stop, p)
            out = os.path.join(d, "r.json")
            r = subprocess.run([jrcli.JITREAD, "serve", "--attach",
                                str(p.pid), "--listen", "none",
                                "--textfile", d, "--json", out],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"attach: process {p.pid}", r.stdout)
            with open(out, encoding="utf-8") as f:
                doc = json.load(f)
            self.assertLess(doc["attach"]["duration_ns"], 10e9)
            (th,) = doc["attach"]["threads"]
            self.assertGreater(th["run_ns"], 0.5e9)


class ServeAttachRefused(unittest.TestCase):
    def test_no_sampler_options(self):
        for args, name in ((["--sampler", "user"], "--sampler"),
                           (["-r", "10ms"], "-r/--runtime"),
                           (["--period", "1s"], "-p/--period"),
                           (["-T", "5"], "-T/--threshold")):
            jrcli.refused(self, ["serve", "--attach", "1", *args], 2,
                          f"--attach runs no sampler: {name} does not go")
        jrcli.refused(self, ["serve", "--attach", "x"], 2,
                      "bad value 'x' for --attach")

    @unittest.skipIf(usable(), usable())
    def test_no_such_process(self):
        jrcli.refused(self, ["serve", "--attach", str(1 << 29)], 2,
                      f"no process {1 << 29}")


def main():
    unittest.main()


if __name__ == "__main__":
    main()
