# SPDX-License-Identifier: GPL-2.0
"""jitread serve natively, with the user sampler on CPU 1 against a CPU hog
there: a real Prometheus scrapes it, and PromQL gives back the availability
and the hog as the top source; promtool accepts the exposition; counters
only grow; the textfile is written whole and readable; bad requests and
bad options are refused."""

import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

from jitpy.fleet.prom import OPENMETRICS, PROTOBUF, Prometheus, free_port, \
    get, metric_families, native_buckets, samples, wait_for
from tests.host import jrcli

CPU = 1
HOG = "import os\nos.sched_setaffinity(0, {%d})\nwhile True:\n    pass\n"
# the classic buckets' bounds, s (core/jr_prom_out.c)
LE = [1e-07, 2.5e-07, 5e-07, 1e-06, 2.5e-06, 5e-06, 1e-05, 2.5e-05, 5e-05,
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
      float("inf")]
# PromQL's availability against jitread's own, in ratio: the query's
# window starts at the first scrape and ends at the last, the report's
# covers the whole run
AVAIL_TOL = 0.03
# a native histogram of schema 3 has buckets 2^(1/8) wide; PromQL
# interpolates inside one
NATIVE_TOL = 2 ** 0.25
# the least share of the sampled time the hog must take from the sampler,
# which it shares CPU 1 with about half and half
HOG_SHARE = 0.2
RULES = os.path.join(jrcli.TOP, "dist", "jitread.rules.yml")


def usable():
    return jrcli.native_root("BPF needs root")


def raw(port, data):
    """Send data on a new connection; the status line that comes back."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        return s.makefile("rb").readline().decode().strip()


def same_refresh(url):
    """The text format and protobuf of one refresh: text, protobuf, text
    again, until both texts are the same."""
    for _ in range(10):
        a = get(url)[2]
        pb = get(url, PROTOBUF, binary=True)[2]
        if get(url)[2] == a:
            return a, pb
    raise AssertionError("no two scrapes within one refresh")


def promtool_check(text):
    p = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True, check=False,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


@unittest.skipIf(usable(), usable())
@unittest.skipUnless(shutil.which("prometheus") and shutil.which("promtool"),
                     "prometheus missing (make deps)")
class ServeScraped(unittest.TestCase):
    """One run of jitread serve beside a hog on CPU 1, scraped by a real
    Prometheus, then stopped with SIGINT."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        cls.json = os.path.join(d, "serve.json")
        cls.port = free_port()
        cls.url = f"http://127.0.0.1:{cls.port}/metrics"
        cls.hog = subprocess.Popen([sys.executable, "-c", HOG % CPU])
        cls.prom = cls.native = cls.serve = None
        try:
            cls.serve = subprocess.Popen(
                [jrcli.JITREAD, "serve", "--sampler", "user", "-c", str(CPU),
                 "--listen", f"127.0.0.1:{cls.port}", "--runtime", "200ms",
                 "--period", "400ms", "--refresh", "500ms", "-q", "--json",
                 cls.json], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True)
            wait_for(lambda: f'periods_total{{cpu="{CPU}"}}' in
                     get(cls.url)[2], 30, "jitread serve's first period")
            cls.prom = Prometheus(d, f"127.0.0.1:{cls.port}", rules=RULES)
            cls.native = Prometheus(d, f"127.0.0.1:{cls.port}", native=True)
            cls.t0 = time.time()
            cls.first = get(cls.url)[2]
            time.sleep(3)
            cls.text = get(cls.url)
            cls.om = get(cls.url, OPENMETRICS)
            cls.text2, cls.pb = same_refresh(cls.url)
            cls.bad = [raw(cls.port, b"GARBAGE\r\n\r\n"),
                       raw(cls.port, b"POST /metrics HTTP/1.1\r\n\r\n"),
                       raw(cls.port, b"GET /x HTTP/1.1\r\n\r\n"),
                       raw(cls.port, b"GET /metrics HTTP/1.1\r\nX: " +
                           b"y" * 10000 + b"\r\n\r\n")]
            cls.after_bad = get(cls.url)[0]
            time.sleep(9)
            cls.t1 = time.time()
        finally:
            # the hog dies whatever became of serve: a hog left behind
            # would starve every later test on its CPU
            try:
                if cls.serve:
                    cls.serve.send_signal(signal.SIGINT)
                    cls.out, cls.err = cls.serve.communicate(timeout=60)
            finally:
                cls.hog.kill()
                cls.hog.wait()
        with open(cls.json) as f:
            cls.report = json.load(f)

    @classmethod
    def tearDownClass(cls):
        for p in (cls.prom, cls.native):
            if p:
                p.stop()
        cls.tmp.cleanup()

    def cpu_report(self):
        return [c for c in self.report["cpus"] if c["cpu"] == CPU][0]

    def test_ends_cleanly_on_sigint(self):
        self.assertEqual(self.serve.returncode, 0, self.err)
        self.assertEqual(self.err, "")

    def test_promtool_accepts_the_text_format(self):
        status, ctype, body = self.text
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("text/plain; version=0.0.4"), ctype)
        self.assertEqual(promtool_check(body), (0, ""))
        # and the check can fail: a counter without its _total
        bad = body.replace("jitread_gaps_total", "jitread_gaps")
        self.assertNotEqual(promtool_check(bad)[0], 0)

    def test_build_info_names_the_version(self):
        """jitread_build_info carries the one version (VERSION)."""
        with open(os.path.join(jrcli.TOP, "VERSION")) as f:
            version = f.read().strip()
        self.assertIn(f'jitread_build_info{{version="{version}",',
                      self.text[2])

    def test_openmetrics_when_asked(self):
        status, ctype, body = self.om
        self.assertEqual(status, 200)
        self.assertTrue(ctype.startswith("application/openmetrics-text; "
                                         "version=1.0.0"), ctype)
        self.assertTrue(body.endswith("\n# EOF\n"))
        self.assertIn("# TYPE jitread_noise_seconds counter\n", body)
        self.assertIn("# UNIT jitread_noise_seconds seconds\n", body)

    def test_counters_only_grow(self):
        """Every series only grows while it lasts.  Only a source's series
        may be let go as the choice follows the run (jitread-serve(1)):
        its time goes to other, so each source family's sum grows too."""
        a, b = samples(self.first), samples(self.text[2])
        self.assertGreater(len(a), 100)
        grew = 0
        sources = ("jitread_source_noise_seconds_total{",
                   "jitread_source_events_total{")
        for key, v in a.items():
            if "ratio" in key or "build_info" in key:
                continue
            if key.startswith(sources) and key not in b:
                continue
            self.assertIn(key, b)
            self.assertGreaterEqual(b[key], v, key)
            grew += b[key] > v
        self.assertGreater(grew, 10)
        for family in sources:
            before = sum(v for k, v in a.items() if k.startswith(family))
            after = sum(v for k, v in b.items() if k.startswith(family))
            self.assertGreaterEqual(after, before, family)

    def test_duty_cycle(self):
        """200 ms of every 400 ms: half the wall clock is sampled."""
        s = samples(self.text[2])
        key = f'jitread_sampled_seconds_total{{cpu="{CPU}"}}'
        periods = s[f'jitread_periods_total{{cpu="{CPU}"}}']
        self.assertGreater(periods, 3)
        self.assertAlmostEqual(s[key] / periods, 0.2, delta=0.02)

    def test_classes_and_sources_reconcile(self):
        """METRICS' identities on a live scrape: the net split sums to
        the gross classes, and the sources, less their time outside any
        gap, plus unexplained and unseen, make the same total."""
        s = samples(self.text[2])

        def total(name):
            return sum(v for k, v in s.items()
                       if k.startswith(name + "{") and f'cpu="{CPU}"' in k)

        gross = total("jitread_noise_seconds_total")
        net = total("jitread_noise_net_seconds_total")
        self.assertGreater(gross, 0.01)
        # each side is exact in ns; the text prints ns
        self.assertAlmostEqual(net, gross, delta=1e-8)
        rest = sum(s[f'jitread_noise_net_seconds_total{{cpu="{CPU}",'
                     f'class="{c}"}}'] for c in ("unexplained", "unseen"))
        sources = total("jitread_source_noise_seconds_total")
        outside = total("jitread_outside_gaps_seconds_total")
        # a record in the slack of two gaps counts in both: a few us
        self.assertAlmostEqual(sources - outside + rest, gross, delta=2e-5)
        # the sources alone do not add up, which is why unexplained is there
        self.assertGreater(abs(sources - gross), 1e-4)

    def test_sums_by_cpu_are_the_totals(self):
        """In Prometheus, at one instant, a sum by (cpu) of each family
        is the total another family gives: no series of a family holds
        another's (the gaps' histogram is not also a class's), and the
        sources' series, however re-chosen, add up."""
        pairs = (("jitread_gap_duration_seconds_count", "jitread_gaps_total"),
                 ("jitread_event_duration_seconds_count",
                  "jitread_source_events_total"),
                 ("jitread_event_duration_seconds_sum",
                  "jitread_source_noise_seconds_total"),
                 ("jitread_noise_net_seconds_total",
                  "jitread_noise_seconds_total"))
        for a, b in pairs:
            q = f"sum by (cpu) ({a}) - sum by (cpu) ({b})"
            res = self.prom.query(q, self.t1)
            self.assertEqual(len(res), 1, (q, res))
            self.assertAlmostEqual(float(res[0]["value"][1]), 0,
                                   delta=1e-6, msg=q)
            total = self.prom.query(f"sum by (cpu) ({b})", self.t1)
            self.assertGreater(float(total[0]["value"][1]), 0, b)

    def test_series_bounded(self):
        """A CPU has at most 210 + 2 x --top series (jitread-serve(1))."""
        per_cpu = [k for k in samples(self.text[2]) if f'cpu="{CPU}"' in k]
        self.assertLessEqual(len(per_cpu), 210 + 2 * 10)
        self.assertGreater(len(per_cpu), 200)

    def test_bad_requests_refused(self):
        self.assertEqual([b.split(" ", 2)[1] for b in self.bad],
                         ["400", "405", "404", "400"])
        self.assertEqual(self.after_bad, 200)

    def test_promql_availability_matches_jitread(self):
        for p in (self.prom, self.native):
            with self.subTest(native=p is self.native):
                self.availability(p)

    def availability(self, p):
        q = (f'1 - sum by (cpu) (increase(jitread_noise_seconds_total'
             f'{{cpu="{CPU}"}}[1h])) / sum by (cpu) (increase('
             f'jitread_sampled_seconds_total{{cpu="{CPU}"}}[1h]))')
        res = p.query(q, self.t1)
        self.assertEqual(len(res), 1, res)
        got = float(res[0]["value"][1])
        want = self.cpu_report()["summary"]["avail_pct"] / 100
        # the hog takes a share of CPU 1 that a quiet run would not lose
        self.assertLess(want, 0.9)
        self.assertAlmostEqual(got, want, delta=AVAIL_TOL)

    def test_promql_names_the_hog(self):
        """PromQL's top thread on CPU 1 is the hog, and jitread's own
        report gives the hog a real share of the sampled time.  The top
        of all sources is not asked for: hw:unknown holds every pause
        the host of a virtual machine makes, which is the machine's and
        beyond the test's control; the hog's share is what says that
        jitread classified it."""
        q = (f'topk(1, increase(jitread_source_noise_seconds_total'
             f'{{cpu="{CPU}",class="thread"}}[1h]))')
        res = self.prom.query(q, self.t1)
        seen = self.seen()
        self.assertEqual(len(res), 1, (res, seen))
        self.assertEqual(res[0]["metric"]["source"], "python3",
                         (res, seen))
        hog = f"thread:python3[{self.hog.pid}]"
        took = sum(s["total_ns"] for s in self.cpu_report()["sources"]
                   if s["source"] == hog)
        runtime = self.report["sampler"]["runtime_ns"]
        self.assertGreater(took, HOG_SHARE * runtime, (hog, runtime, seen))

    def seen(self):
        """What both sides saw, for a failure to say: PromQL's five
        largest sources on CPU 1, jitread's, and its BPF and clock
        alignment figures."""
        q = (f'topk(5, increase(jitread_source_noise_seconds_total'
             f'{{cpu="{CPU}"}}[1h]))')
        prom = [(r["metric"]["class"], r["metric"]["source"],
                 r["value"][1]) for r in self.prom.query(q, self.t1)]
        mine = [(s["source"], s["total_ns"])
                for s in self.cpu_report()["sources"][:5]]
        sampler = self.report["sampler"]
        return {"promql": prom, "jitread": mine, "bpf": sampler["bpf"],
                "align": sampler["align"], "gaps": sampler["gaps"],
                "classified": sampler["gaps_classified"]}

    def test_rules_name_what_serve_exports(self):
        """Every jitread metric a rule in dist/ reads is in serve's
        output, with each label the rule aggregates it by."""
        have = {}
        for key in samples(self.text[2]):
            have.setdefault(key.split("{")[0], set()).update(
                re.findall(r'(\w+)="', key))
        with open(RULES) as f:
            groups = yaml.safe_load(f)["groups"]
        exprs = [r["expr"] for g in groups for r in g["rules"]]
        self.assertEqual(len(exprs), 8)
        read = set()
        for expr in exprs:
            names = re.findall(r"(?<![:\w])jitread_\w+", expr)
            by = {lb.strip() for grp in re.findall(r"by \(([^)]*)\)", expr)
                  for lb in grp.split(",")} - {"instance"}
            for name in names:
                self.assertIn(name, have, expr)
                self.assertEqual(by - have[name], set(), (name, expr))
            read.update(names)
        self.assertIn("jitread_last_refresh_timestamp_seconds", read)

    def test_rules_on_a_real_prometheus(self):
        """The rules, evaluated by Prometheus on serve's series: the
        recorded availability is jitread's, its alert is pending under
        the hog, the hog is among the top sources, and neither the
        stale nor the down alert is raised."""
        q = f'instance_cpu:jitread_available:ratio_rate5m{{cpu="{CPU}"}}'
        res = self.prom.query(q, self.t1)
        self.assertEqual(len(res), 1, res)
        want = self.cpu_report()["summary"]["avail_pct"] / 100
        self.assertAlmostEqual(float(res[0]["value"][1]), want,
                               delta=AVAIL_TOL)
        alerts = self.prom.query("ALERTS", self.t1)
        got = sorted((a["metric"]["alertname"], a["metric"].get("cpu"),
                      a["metric"]["alertstate"]) for a in alerts)
        self.assertIn(("JitreadAvailabilityLow", str(CPU), "pending"), got)
        self.assertEqual([a for a in got if a[0] in ("JitreadStale",
                                                     "JitreadDown")], [])
        q = ('instance_cpu_class_source:jitread_source_noise:rate5m_top5'
             f'{{cpu="{CPU}"}}')
        top = self.prom.query(q, self.t1)
        self.assertLessEqual(len(top), 5, top)
        self.assertIn(("thread", "python3"),
                      [(r["metric"]["class"], r["metric"]["source"])
                       for r in top], (top, self.seen()))

    def test_promql_quantile_in_jitread_bucket(self):
        q = ('histogram_quantile(0.99, sum by (le) (increase('
             f'jitread_gap_duration_seconds_bucket{{cpu="{CPU}"}}[1h])))')
        res = self.prom.query(q, self.t1)
        self.assertEqual(len(res), 1, res)
        got = float(res[0]["value"][1])
        p99 = self.cpu_report()["classes"]["gap"]["percentiles_ns"]["99"]
        i = next(i for i, le in enumerate(LE) if p99 / 1e9 <= le)
        lo = LE[i - 2] if i >= 2 else 0
        hi = LE[min(i + 1, len(LE) - 1)]
        self.assertTrue(lo <= got <= hi, (got, p99, lo, hi))

    def test_native_histogram_quantile(self):
        """Prometheus with native histograms scrapes protobuf: its p99 of
        the gaps is jitread's within the schema's bucket width."""
        q = ('histogram_quantile(0.99, sum(increase('
             f'jitread_gap_duration_seconds{{cpu="{CPU}"}}'
             '[1h])))')
        res = self.native.query(q, self.t1)
        self.assertEqual(len(res), 1, res)
        got = float(res[0]["value"][1]) * 1e9
        p99 = self.cpu_report()["classes"]["gap"]["percentiles_ns"]["99"]
        self.assertTrue(p99 / NATIVE_TOL <= got <= p99 * NATIVE_TOL,
                        (got, p99))

    def test_protobuf_is_the_text(self):
        """Every sample of the text format, with the same value, in the
        protobuf of the same refresh; each histogram's classic buckets
        the text's, its native buckets summing to its count."""
        fams = metric_families(self.pb)
        text = samples(self.text2)
        seen = hists = 0
        for name, (_, metrics) in fams.items():
            for labels, val in metrics:
                lab = ",".join(f'{k}="{v}"' for k, v in labels.items())
                if not isinstance(val, dict):
                    key = f"{name}{{{lab}}}" if lab else name
                    self.assertAlmostEqual(val, text[key], places=9)
                    seen += 1
                    continue
                self.assertEqual(val["count"], text[f"{name}_count{{{lab}}}"])
                self.assertEqual(val["schema"], 3)
                self.assertEqual(sum(native_buckets(val).values()),
                                 val["count"])
                for le, n in val["buckets"]:
                    self.assertEqual(n, text[f'{name}_bucket{{{lab},le="'
                                             f'{le:g}"}}'])
                hists += 1
        hist_keys = ("_bucket{", "_sum{", "_count{")
        self.assertEqual(seen, len([k for k in text
                                    if not any(h in k for h in hist_keys)]))
        self.assertEqual(hists, len([k for k in text if "_count{" in k]))
        self.assertGreater(hists, 0)


@unittest.skipIf(usable(), usable())
class ServeTextfile(unittest.TestCase):
    def test_textfile_whole_and_readable(self):
        """The file is whole, 0644, valid, and says when it was made:
        the last refresh falls inside the run."""
        with tempfile.TemporaryDirectory() as d:
            t0 = time.time()
            rc, out, err = jrcli.jitread(
                "serve", "--sampler", "user", "-c", str(CPU), "--listen",
                "none", "--textfile", d, "-d", "2s", "--runtime", "100ms",
                "--period", "200ms", "--refresh", "500ms", "-q")
            self.assertEqual((rc, err), (0, ""))
            self.assertEqual(os.listdir(d), ["jitread.prom"])
            path = os.path.join(d, "jitread.prom")
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o644)
            with open(path) as f:
                text = f.read()
            s = samples(text)
            self.assertGreater(s[f'jitread_periods_total{{cpu="{CPU}"}}'], 5)
            self.assertLessEqual(
                t0 + 1.5, s["jitread_last_refresh_timestamp_seconds"])
            self.assertLessEqual(
                s["jitread_last_refresh_timestamp_seconds"], time.time())
            if shutil.which("promtool"):
                self.assertEqual(promtool_check(text), (0, ""))

    def test_warmup_only_where_the_duty_sleeps(self):
        """No default warm-up when the runtime fills the period; the
        default 20 ms where it sleeps; --wake-spin as given either way."""
        for duty, want in ((("-r", "1s", "-p", "1s"), 0),
                           ((), 20_000_000),
                           (("-r", "1s", "-p", "1s", "--wake-spin", "5ms"),
                            5_000_000)):
            with tempfile.TemporaryDirectory() as d, \
                    self.subTest(duty=duty):
                path = os.path.join(d, "r.json")
                rc, _, err = jrcli.jitread(
                    "serve", "--sampler", "user", "-c", str(CPU),
                    "--listen", "none", "--textfile", d, "-d", "1500ms",
                    *duty, "-q", "--json", path)
                self.assertEqual((rc, err), (0, ""))
                with open(path) as f:
                    self.assertEqual(json.load(f)["sampler"]["warmup_ns"],
                                     want)
                with open(os.path.join(d, "jitread.prom")) as f:
                    got = samples(f.read())
                self.assertEqual(got["jitread_window_warmup_seconds"],
                                 want / 1e9)

    def test_untrusted_textfile_dir_refused(self):
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o777)
            jrcli.refused(self, ["serve", "--sampler", "user", "-c",
                                 str(CPU), "--textfile", d, "-d", "1s"],
                          1, "writable by others")
            self.assertEqual(os.listdir(d), [])


class ServeOptions(unittest.TestCase):
    @unittest.skipIf(usable(), usable())
    def test_port_in_use(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            port = s.getsockname()[1]
            jrcli.refused(self, ["serve", "--sampler", "user", "-c",
                                 str(CPU), "--listen",
                                 f"127.0.0.1:{port}"],
                          1, "Address already in use")

    def test_bad_options(self):
        for args, text in (
                (["--listen", "none"], "nothing to serve"),
                (["--top", "5000"], "bad value '5000' for --top"),
                (["--refresh", "1ms"], "bad value '1ms' for --refresh"),
                (["--runtime", "2s", "--period", "1s"],
                 "--runtime is longer than --period"),
                (["--sampler", "bpf"], "bad value 'bpf' for --sampler")):
            jrcli.refused(self, ["serve", *args], 2, text)

    @unittest.skipIf(usable(), usable())
    def test_bad_address(self):
        for addr in ("nonsense", "127.0.0.1:x", "[::1:80"):
            jrcli.refused(self, ["serve", "--sampler", "user", "-c",
                                 str(CPU), "--listen", addr], 1,
                          f"--listen '{addr}'")

    @unittest.skipIf(usable(), usable())
    def test_user_sampler_needs_cpus(self):
        jrcli.refused(self, ["serve", "--sampler", "user"], 2, "needs -c")


if __name__ == "__main__":
    unittest.main()
