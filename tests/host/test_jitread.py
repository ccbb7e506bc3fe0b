# SPDX-License-Identifier: GPL-2.0
"""jitread on crafted recordings: histogram math against a numpy oracle,
merging, attribution, every output format, replay errors, CLI errors."""

import csv
import json
import math
import os
import random
import re
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

from jitpy.formats import recording as jrrec
from jitpy.formats import report as jrjson
from tests.host import jrcli

PCTS = (50, 90, 99, 99.9, 99.99, 99.999, 99.9999)


def exact_pct(sorted_vals, p):
    """HdrHistogram's rank: the ceil(p/100 * n)-th value."""
    n = len(sorted_vals)
    k = max(1, math.ceil(p / 100.0 * n))
    return int(sorted_vals[min(k, n) - 1])


def slot_bounds(v, precision=3):
    """The [lowest, highest] values sharing v's slot."""
    m = math.ceil(math.log2(2 * 10 ** precision))
    b = max(0, (int(v) | ((1 << m) - 1)).bit_length() - m)
    lo = (int(v) >> b) << b
    return lo, lo + (1 << b) - 1


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class JitreadReplay(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.rec = os.path.join(self.dir, "r.rec")

    def tearDown(self):
        self.tmp.cleanup()

    def replay_json(self, records, *extra):
        jrrec.write(self.rec, records)
        out = os.path.join(self.dir, "r.json")
        rc, _, err = jrcli.jitread("--replay", self.rec, "-q", "--json", out,
                                   *extra)
        self.assertEqual(rc, 0, err)
        with open(out) as f:
            return json.load(f)

    def check_hist(self, h, vals, precision=3):
        vals = np.sort(np.asarray(vals, dtype=np.int64))
        self.assertEqual(h["count"], len(vals))
        self.assertEqual(h["min_ns"], int(vals[0]))
        self.assertEqual(h["max_ns"], int(vals[-1]))
        self.assertAlmostEqual(h["mean_ns"], float(vals.mean()), delta=0.01)
        for p in PCTS:
            want = exact_pct(vals, p)
            got = h["percentiles_ns"][f"{p:g}"]
            lo, hi = slot_bounds(want, precision)
            self.assertTrue(lo <= got <= min(hi, vals[-1]),
                            f"p{p}: got {got}, exact {want}, slot {lo}-{hi}")

    def test_percentiles_match_numpy(self):
        rng = np.random.default_rng(7)
        for precision in (2, 3):
            vals = rng.lognormal(9, 1.5, 20000).astype(np.int64) + 1000
            d = self.replay_json([jrrec.gap(1, int(v)) for v in vals],
                                 "--precision", str(precision))
            cpu = d["cpus"][0]
            self.assertEqual(cpu["cpu"], 1)
            self.check_hist(cpu["classes"]["gap"], vals, precision)
            self.check_hist(cpu["classes"]["hw:unknown"], vals, precision)

    def test_small_and_huge_values(self):
        vals = [1, 2, 3, 2047, 2048, 2049, 10 ** 9, 10 ** 12]
        d = self.replay_json([jrrec.gap(0, v) for v in vals])
        self.check_hist(d["cpus"][0]["classes"]["gap"], vals)

    def test_merge_across_cpus(self):
        rng = random.Random(3)
        per = {c: [rng.randint(1000, 5000000) for _ in range(3000)]
               for c in (1, 2, 3)}
        recs = [jrrec.gap(c, v) for c, vs in per.items() for v in vs]
        rng.shuffle(recs)
        d = self.replay_json(recs)
        allv = sum(per.values(), [])
        self.check_hist(d["all_cpus"]["gap"], allv)
        for cpu in d["cpus"]:
            self.check_hist(cpu["classes"]["gap"], per[cpu["cpu"]])

    def test_attribution_table(self):
        recs = [jrrec.irq(2, 100, "local_timer"),
                jrrec.irq(2, 300, "local_timer"),
                jrrec.irq(2, 5000, "virtio0-input", irq_no=24, vector=-1),
                jrrec.thread(2, 7000, "kworker/2:1", 123),
                jrrec.thread(2, 9000, "kworker/2:1", 123),
                jrrec.rec(jrrec.SOFTIRQ, 2, (50,), cls=1),
                jrrec.rec(jrrec.NMI, 2, (40,), name="perf_event_nmi_handler"),
                jrrec.gap(2, 20000, "hw:smi"),
                jrrec.gap(2, 30000, "hw:steal"),
                jrrec.summary(2, 10 ** 9, 80000, 30000)]
        d = self.replay_json(recs)
        src = {s["source"]: s for s in d["cpus"][0]["sources"]}
        self.assertEqual(
            [s["source"] for s in d["cpus"][0]["sources"]],
            ["hw:steal", "hw:smi", "thread:kworker/2:1[123]",
             "irq:24 virtio0-input", "irq:local_timer", "softirq:TIMER",
             "nmi:perf_event_nmi_handler"])
        lt = src["irq:local_timer"]
        self.assertEqual((lt["count"], lt["total_ns"], lt["min_ns"],
                          lt["max_ns"], lt["avg_ns"]), (2, 400, 100, 300, 200))
        self.assertEqual(src["thread:kworker/2:1[123]"]["class"], "thread")
        s = d["cpus"][0]["summary"]
        self.assertEqual((s["periods"], s["noise_ns"], s["max_single_ns"]),
                         (1, 80000, 30000))
        self.assertAlmostEqual(s["avail_pct"], 99.992, places=6)

    def test_many_sources(self):
        recs = [jrrec.thread(1, 1000 + i, "worker", i) for i in range(500)]
        recs += [jrrec.thread(1, 5, "worker", 7)]
        d = self.replay_json(recs)
        src = d["cpus"][0]["sources"]
        self.assertEqual(len(src), 500)
        self.assertEqual(src[0]["source"], "thread:worker[499]")
        w7 = [s for s in src if s["source"] == "thread:worker[7]"][0]
        self.assertEqual((w7["count"], w7["min_ns"]), (2, 5))

    def test_thread_sources_are_bounded(self):
        """Many short tasks: past 4096 sources a CPU files new pids under
        thread:comm[*], counts what it folded, and loses no event."""
        n = 6000
        recs = [jrrec.thread(1, 1000, "short", 10 + i) for i in range(n)]
        recs += [jrrec.thread(1, 2000, "short", 10)]  # an early pid again
        d = self.replay_json(recs)
        cpu = d["cpus"][0]
        by = {s["source"]: s for s in cpu["sources"]}
        self.assertEqual(len(by), 4096 + 1)
        self.assertEqual(by["thread:short[10]"]["count"], 2)
        self.assertEqual(by["thread:short[*]"]["count"], n - 4096)
        self.assertEqual(cpu["sources_folded"], n - 4096)
        self.assertEqual(sum(s["count"] for s in by.values()), n + 1)
        jrrec.write(self.rec, recs)
        rc, out, _ = jrcli.jitread("report", self.rec)
        self.assertEqual(rc, 0)
        self.assertIn(f"{n - 4096} events past 4096 sources", out)

    def test_all_sources_are_bounded(self):
        """Many comms (and so many thread:comm[*]): past 8192 sources a
        CPU files any new one under CLASS:other[*], so a report holds at
        most 8192 + one a class, and loses no event."""
        n = 9000
        recs = [jrrec.thread(1, 1000, f"c{i}", 10 + i) for i in range(n)]
        recs += [jrrec.irq(1, 500, f"dev{i}", 100 + i) for i in range(50)]
        d = self.replay_json(recs)
        cpu = d["cpus"][0]
        by = {s["source"]: s for s in cpu["sources"]}
        self.assertEqual(len(by), 8192 + 2)
        self.assertEqual(by["thread:other[*]"]["count"], n - 8192)
        self.assertEqual(by["irq:other[*]"]["count"], 50)
        self.assertEqual(cpu["sources_folded"], n - 4096 + 50)
        self.assertEqual(sum(s["count"] for s in by.values()), n + 50)

    def test_lost_events_reported_everywhere(self):
        recs = [jrrec.gap(1, 5000), jrrec.rec(jrrec.LOST, 1, (17,))]
        d = self.replay_json(recs)
        self.assertEqual(d["cpus"][0]["summary"]["lost_events"], 17)
        jrrec.write(self.rec, recs)
        rc, out, _ = jrcli.jitread("--replay", self.rec)
        self.assertEqual(rc, 0)
        self.assertIn("lost 17", out)

    def test_json_reader_refuses_unknown_versions(self):
        self.replay_json([jrrec.gap(1, 5000)])
        path = os.path.join(self.dir, "r.json")
        self.assertEqual(jrjson.load(path)["cpus"][0]["cpu"], 1)
        with open(path) as f:
            data = json.load(f)
        for bad, want in ((dict(data, file_version=3), "file_version 3"),
                          ({"cpus": []}, "no file_version")):
            with open(path, "w") as f:
                json.dump(bad, f)
            with self.assertRaisesRegex(jrjson.ReportError, want):
                jrjson.load(path)
        with open(path, "w") as f:
            f.write("{truncated")
        with self.assertRaises(jrjson.ReportError):
            jrjson.load(path)

    def test_record_line(self):
        """record_counts() reads jitread record's last line (the guest
        test record_lost.py reads it from the real command)."""
        out = ("jitread: removed 1 stale instance(s)\n"
               "jitread: 4512 events in /tmp/a b.rec, 37 lost by the ring "
               "buffers\n")
        self.assertEqual(jrjson.record_counts(out), (4512, 37))
        self.assertIsNone(jrjson.record_counts("jitread: 4512 events in "
                                               "/tmp/a.rec\n"))

    def test_json_system_block_and_version(self):
        d = self.replay_json([jrrec.gap(1, 5000)])
        self.assertEqual(d["file_version"], 2)
        self.assertEqual((d["mode"], d["side"]), ("kernel", "kernel"))
        for k in ("kernel", "cmdline", "cpu_model", "tsc_khz",
                  "module_params", "jitread_argv"):
            self.assertIn(k, d["system"])
        self.assertEqual(d["system"]["kernel"], "6.1.0-test")
        self.assertEqual(d["system"]["tsc_khz"], 2000000)

    def test_text_report_tables(self):
        jrrec.write(self.rec, [jrrec.gap(1, 1500), jrrec.gap(1, 2500),
                               jrrec.gap(1, 10 ** 7),
                               jrrec.irq(1, 900, "local_timer")])
        rc, out, _ = jrcli.jitread("--replay", self.rec, "--bucket-size",
                                   "1000", "--entries", "4")
        self.assertEqual(rc, 0)
        self.assertIn("times in ns", out)
        self.assertRegex(out, r"mean +min +50% +90% +99% +99\.9% +99\.99% "
                              r"+99\.999% +99\.9999% +max +count")
        # rtla-style buckets: 1500 in [1000,2000), 2500 in [2000,3000)
        self.assertRegex(out, r"\n1000 +1\n2000 +1\nover: +1\ncount: +3\n")
        self.assertIn("irq:local_timer", out)
        rc, out_us, _ = jrcli.jitread("--replay", self.rec, "-u", "us",
                                      "--no-header")
        self.assertNotIn("# jitread report", out_us)
        self.assertIn("10000.000", out_us)

    def test_avail_without_a_summary_is_a_dash(self):
        """No period summary yet (a run shorter than one period) gives
        "-" in the summary's %avail, not a 0% that reads as all noise."""
        rows = {}
        for cpu_recs in ([jrrec.gap(1, 5000)],
                         [jrrec.gap(1, 5000),
                          jrrec.summary(1, 10 ** 9, 80000, 30000)]):
            jrrec.write(self.rec, cpu_recs)
            rc, out, err = jrcli.jitread("--replay", self.rec)
            self.assertEqual(rc, 0, err)
            summary = out[out.index("# per-CPU summary"):].splitlines()
            rows[len(cpu_recs)] = summary[2].split()
        self.assertEqual(rows[1][:5], ["1", "0", "0", "0", "-"])
        self.assertEqual(rows[2][:5],
                         ["1", "1", "1000000000", "80000", "99.9920%"])

    def test_csv_matches_json(self):
        recs = [jrrec.gap(1, v) for v in range(1000, 50000, 7)]
        d = self.replay_json(recs, "--csv", os.path.join(self.dir, "csv"))
        with open(os.path.join(self.dir, "csv", "percentiles.csv")) as f:
            rows = {(r["cpu"], r["class"]): r for r in csv.DictReader(f)}
        g = rows[("1", "gap")]
        jg = d["cpus"][0]["classes"]["gap"]
        self.assertEqual(int(g["count"]), jg["count"])
        self.assertEqual(int(g["p99.9_ns"]), jg["percentiles_ns"]["99.9"])
        self.assertEqual(int(g["max_ns"]), jg["max_ns"])
        for name in ("sources.csv", "summary.csv"):
            self.assertTrue(os.path.getsize(
                os.path.join(self.dir, "csv", name)) > 0)

    def test_hgrm_against_raw_values(self):
        rng = np.random.default_rng(11)
        vals = np.sort(rng.integers(1000, 3_000_000, 5000))
        self.replay_json([jrrec.gap(3, int(v)) for v in vals], "--hgrm",
                         os.path.join(self.dir, "h"))
        path = os.path.join(self.dir, "h", "cpu3-gap.hgrm")
        rows, footer = [], []
        with open(path) as f:
            for line in f:
                if line.startswith("#["):
                    footer.append(line)
                elif line.strip() and not line.lstrip().startswith("Value"):
                    rows.append(line.split())
        self.assertTrue(rows)
        for value, pct, total, _inv in rows:
            at_or_below = int(np.searchsorted(vals, float(value), "right"))
            self.assertEqual(int(total), at_or_below, value)
            self.assertAlmostEqual(float(pct), at_or_below / len(vals), 9)
        self.assertEqual(float(rows[-1][0]), float(vals[-1]))
        self.assertIn(f"Total count    = {len(vals):12d}", footer[1])

    def test_summary_self_time_and_anomalies(self):
        """jitmod's own time and its anomaly counts are summed per CPU and
        shown in JSON, CSV and the text summary, with the kinds named."""
        recs = [jrrec.summary(1, 10 ** 9, 80000, 30000, self_ns=700,
                              anomalies=2, anomaly_mask=1),
                jrrec.summary(1, 10 ** 9, 0, 0, self_ns=300, anomalies=1,
                              anomaly_mask=2),
                jrrec.summary(2, 10 ** 9, 0, 0, self_ns=5)]
        d = self.replay_json(recs, "--csv", os.path.join(self.dir, "csv"))
        got = {c["cpu"]: (c["summary"]["self_ns"], c["summary"]["anomalies"],
                          c["summary"]["anomaly_kinds"]) for c in d["cpus"]}
        self.assertEqual(got, {1: (1000, 3, "window,tsc_back"),
                               2: (5, 0, "")})
        with open(os.path.join(self.dir, "csv", "summary.csv")) as f:
            rows = {r["cpu"]: r for r in csv.DictReader(f)}
        self.assertEqual((rows["1"]["self_ns"], rows["1"]["anomalies"]),
                         ("1000", "3"))
        rc, out, err = jrcli.jitread("--replay", self.rec)
        self.assertEqual(rc, 0, err)
        summary = out[out.index("# per-CPU summary"):].splitlines()
        self.assertEqual(summary[2].split()[-2:], ["1000", "3"])
        self.assertIn("# CPU 1: jitmod counted 3 measurement anomalies "
                      "(window,tsc_back)", out)
        self.assertNotIn("# CPU 2: jitmod counted", out)

    def test_replay_reads_version_1(self):
        """A recording made before self_ns and anomalies (five values a
        record) still replays, with the fields after them in place."""
        v1 = jrrec.REC_V1
        recs = [jrrec.rec(jrrec.THREAD, 1, (7000,), ident=42,
                          name="kworker/1:1", fmt=v1),
                jrrec.rec(jrrec.SUMMARY, 1, (10 ** 9, 7000, 7000, 10, 35),
                          fmt=v1)]
        jrrec.write(self.rec, recs, version=1)
        rc, out, err = jrcli.jitread("--replay", self.rec, "-q", "--json",
                                     "-")
        self.assertEqual(rc, 0, err)
        cpu = json.loads(out)["cpus"][0]
        self.assertEqual(cpu["sources"][0]["source"],
                         "thread:kworker/1:1[42]")
        self.assertEqual((cpu["summary"]["resolution_ps"],
                          cpu["summary"]["self_ns"]), (35, 0))


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class JitreadErrors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.rec = os.path.join(self.tmp.name, "r.rec")

    def tearDown(self):
        self.tmp.cleanup()

    def expect(self, args, code, text):
        jrcli.refused(self, args, code, text)

    def test_cli_errors(self):
        self.expect(["--bogus"], 2, "unknown option '--bogus'")
        self.expect(["-d", "5x"], 2, "bad value '5x' for -d")
        self.expect(["-d", "0s"], 2, "bad value '0s' for -d")
        self.expect(["-c", "1-x"], 2, "bad CPU list '1-x'")
        self.expect(["-c", ""], 2, "bad CPU list")
        self.expect(["-T", "0"], 2, "for -T")
        self.expect(["--precision", "9"], 2, "for --precision")
        self.expect(["-u", "s"], 2, "for -u")
        self.expect(["--on-threshold", "reboot"], 2, "bad --on-threshold")
        self.expect(["--json"], 2, "needs a value")
        self.expect(["extra"], 2, "unknown command 'extra'")
        self.expect(["hist", "extra"], 2, "unexpected argument 'extra'")
        self.expect(["--replay", "x", "--top"], 2,
                    "'--top' is not an option of 'jitread report'")

    def test_rtla_spellings(self):
        """rtla's option names and action forms are taken as jitread's:
        they parse (the run then fails only for want of jitmod, exit 1),
        and bad ones are refused with the form to use (exit 2)."""
        good = ["-r", "100ms", "-p", "1s", "--house-keeping", "0",
                "--trace-buffer-size", "1024", "-t", "-tx.txt",
                "--trace=y.txt", "--on-threshold", "trace,file=z.txt",
                "--on-threshold", "shell,command=true", "--on-threshold",
                "signal,num=2,pid=parent", "--on-threshold", "continue",
                "--on-end", "shell,command=true", "--on-end",
                "signal,num=10,pid=12345", "-d", "1s", "-q"]
        rc, out, err = jrcli.jitread("hist", *good)
        self.assertEqual(rc, 1, err)
        self.assertIn("jitmod", err)
        self.expect(["hist", "-r", "2s", "-p", "1s"], 2,
                    "--runtime is longer than --period")
        self.expect(["hist", "--trace-buffer-size", "1"], 2,
                    "--trace-buffer-size")
        self.expect(["hist", "--house-keeping", "x"], 2, "")
        self.expect(["hist", "--on-threshold", "signal,num=2"], 2,
                    "signal,num=SIG,pid=PID|parent")
        self.expect(["hist", "--on-threshold", "signal,num=99,pid=parent"],
                    2, "signal=SIG,PID")
        self.expect(["hist", "--on-threshold", "shell,command="], 2,
                    "bad --on-threshold")
        self.expect(["hist", "--on-end", "continue"], 2, "bad --on-end")

    def test_help(self):
        rc, out, _ = jrcli.jitread("--help")
        self.assertEqual(rc, 0)
        for cmd in jrcli.COMMANDS:
            self.assertIn(f"\n  {cmd} ", out)
        self.assertIn("--replay FILE", out)
        rc, out, _ = jrcli.jitread("report", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("usage: jitread report FILE", out)
        self.assertIn("--bucket-size TIME", out)
        self.assertNotIn("--threshold", out, "report sets nothing")

    def test_replay_missing_file(self):
        self.expect(["--replay", "/nonexistent/x"], 1, "No such file")

    def test_replay_truncated_and_garbage(self):
        good = [jrrec.gap(1, 5000 + i) for i in range(10)]
        jrrec.write(self.rec, good)
        with open(self.rec, "rb") as f:
            data = f.read()
        cases = {
            "truncated: record 10": data + good[0][:50],
            "truncated header": data[:500],
            "bad magic": b"X" + data[1:],
            "garbage at record 3": data[:1024 + 3 * jrrec.REC.size] +
            b"\xff" * jrrec.REC.size,
            "summary irqs_off 2 not 0 or 1": data[:1024 + 3 * jrrec.REC.size]
            + jrrec.rec(jrrec.SUMMARY, 1, (900, 10, 5), cls=2),
        }
        for want, blob in cases.items():
            with open(self.rec, "wb") as f:
                f.write(blob)
            self.expect(["--replay", self.rec], 1, want)

    def test_fuzz_findings_stay_fixed(self):
        regress = os.path.join(jrcli.TOP, "user", "fuzz", "regress")
        out = os.path.join(self.tmp.name, "f.json")
        for name in sorted(os.listdir(regress)):
            path = os.path.join(regress, name)
            rc, _, err = jrcli.jitread("--replay", path, "-q", "--json", out)
            self.assertIn(rc, (0, 1), f"{name}: exit {rc}: {err}")
            if rc:
                self.assertIn(path, err)
            else:
                jrjson.load(out)
        rc, _, err = jrcli.jitread("--replay", path, "-q", "--json",
                                   os.devnull)
        self.assertIn(rc, (0, 1), f"--json /dev/null: {err}")
        self.assertNotIn("refused", err)

    def test_fuzz_target_builds_and_replays(self):
        """make fuzz's target links against today's core and runs every
        past finding and the seed corpus once (make fuzz fuzzes on)."""
        jrcli.fuzz_run(self, "fuzz_replay", os.path.join(
            jrcli.TOP, "user", "fuzz", "regress"))

    def test_replay_unknown_version_refused(self):
        jrrec.write(self.rec, [jrrec.gap(1, 5000)], version=4)
        self.expect(["--replay", self.rec], 1, "version 4")

    def test_live_needs_root(self):
        if os.geteuid() != 0:
            self.expect(["-d", "1s"], 1, "must run as root")
            return
        # nobody cannot reach a checkout inside a 0700 directory (as
        # root's home is), so it runs a copy from a directory it can read
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o755)
            exe = os.path.join(d, "jitread")
            shutil.copy(jrcli.JITREAD, exe)
            os.chmod(exe, 0o755)
            pid = os.fork()
            if pid == 0:
                code = 2
                try:
                    os.setgid(65534)
                    os.setuid(65534)
                    p = subprocess.run([exe, "-d", "1s"], text=True,
                                       capture_output=True, timeout=60,
                                       check=False)
                    code = 0 if (p.returncode == 1 and
                                 "must run as root" in p.stderr) else 1
                finally:
                    os._exit(code)
            _, st = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(st), 0,
                         "as nobody: 1 is the wrong answer, 2 an error")

    def test_live_without_module(self):
        if os.path.exists("/sys/module/jitmod"):
            self.skipTest("jitmod is loaded here")
        if os.geteuid() != 0:
            self.skipTest("needs root to get past the root check")
        # an installed system's way first, then a build tree's
        self.expect(["-d", "1s"], 1, "jitmod is not loaded; load it "
                    "first, e.g.: modprobe jitmod cpus=1-3 (in a build "
                    "tree: insmod module/jitmod.ko cpus=1-3)")


class JitreadDocs(unittest.TestCase):
    """jitread(1) and a page per subcommand, each with the options that
    subcommand takes and an example of its output."""

    DOCS = os.path.join(jrcli.TOP, "Documentation")
    DOC = os.path.join(DOCS, "jitread.rst")

    def page(self, cmd):
        with open(os.path.join(self.DOCS, f"jitread-{cmd}.rst")) as f:
            return f.read()

    @unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                         "user/jitread not built (make user)")
    def test_each_page_names_its_options(self):
        with open(self.DOC) as f:
            main = f.read()
        seen = set()
        for cmd in jrcli.COMMANDS:
            self.assertIn(f"**jitread {cmd}**", main)
            self.assertIn(f"**jitread-{cmd}**\\(1)", main)
            usage = jrcli.jitread(cmd, "--help")[1]
            # (short form or "", long form): either names the option
            opts = {(short or "", long) for short, long in re.findall(
                r"^ +(?:(-\w), )?(--[a-z][a-z-]+)", usage, re.M)
                if long != "--help"}
            seen |= {long for _, long in opts}
            page = self.page(cmd)
            missing = [long for short, long in sorted(opts)
                       if f"**{long}**" not in page and
                       not (short and f"**{short}**" in page)]
            self.assertEqual(missing, [], f"jitread-{cmd}.rst")
        self.assertGreater(len(seen), 40)

    def test_each_page_has_its_sections(self):
        for cmd in jrcli.COMMANDS:
            page = self.page(cmd)
            heads = re.findall(r"^([A-Z][A-Z ]+)\n=+$", page, re.M)
            self.assertEqual(heads, ["SYNOPSIS", "DESCRIPTION", "OPTIONS",
                                     "EXAMPLES", "SEE ALSO"], cmd)
            examples = page.split("EXAMPLES\n========\n")[1]
            self.assertIn("::\n\n   ", examples, f"{cmd}: no output shown")
            self.assertIn(f"jitread {cmd}", examples)

    def test_man_pages_build(self):
        rst2man = shutil.which("rst2man", path="/usr/bin:" +
                               os.environ.get("PATH", ""))
        if not rst2man:
            self.skipTest("rst2man missing (make deps installs "
                          "python3-docutils)")
        pages = [("jitread", self.DOC)] + [
            (f"jitread-{c}", os.path.join(self.DOCS, f"jitread-{c}.rst"))
            for c in jrcli.COMMANDS]
        with tempfile.TemporaryDirectory() as d:
            for name, src in pages:
                out = os.path.join(d, f"{name}.1")
                p = subprocess.run([rst2man, "--exit-status=2", src, out],
                                   capture_output=True, text=True,
                                   check=False)
                self.assertEqual(p.returncode, 0, f"{name}: {p.stderr}")
                with open(out) as f:
                    text = f.read()
                self.assertRegex(text, rf'\n\.TH "?{name.upper()}"? "?1"?')
                if name == "jitread":
                    self.assertIn("EXIT STATUS", text)


if __name__ == "__main__":
    unittest.main()
