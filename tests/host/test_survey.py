# SPDX-License-Identifier: GPL-2.0
"""jitread survey under Debian's OpenMPI, natively with the user sampler:
four ranks on CPUs 0 and 1, the fleet's histograms the sum of the ranks',
a FIFO spinner on CPU 1 making its ranks the worst with the spinner their
top source; a rank killed, or stopped, mid-run is named by rank 0, which
writes what it has without hanging; the fixed-work-quantum mode's BSP
slowdown; bad input refused."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from jitpy.formats import recording as jrrec
from jitpy.formats import survey as jrsurvey
from tests.host import jrcli
from tests.host.test_common_c import build_and_run

PLUGIN = os.path.join(os.path.dirname(jrcli.JITREAD), "jitread-mpi.so")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
# spins 12 ms of every 20 ms at SCHED_FIFO 50 on CPU 1, named jrspin
SPINNER = """
import os, time
os.sched_setaffinity(0, {1})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
with open("/proc/self/comm", "w") as f:
    f.write("jrspin")
while True:
    end = time.monotonic() + 0.012
    while time.monotonic() < end:
        pass
    time.sleep(0.008)
"""


def usable():
    if not os.access(jrcli.JITREAD, os.X_OK):
        return "user/jitread not built (make user)"
    if not shutil.which("mpirun"):
        return "mpirun missing (make deps installs openmpi-bin)"
    if not os.path.exists(PLUGIN):
        return "user/jitread-mpi.so not built (make deps, then make user)"
    if os.cpu_count() < 2 or os.geteuid() != 0:
        return "needs CPUs 0 and 1, and root (BPF, SCHED_FIFO)"
    return None


def survey(n, *args, mpi=(), timeout=180):
    """mpirun -n n jitread survey args; (exit code, stdout, stderr)."""
    p = subprocess.run([*MPIRUN, *mpi, "-n", str(n), jrcli.JITREAD,
                        "survey", *args], capture_output=True, text=True,
                       check=False, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def rank_pid(rank):
    """The pid of jitread survey's rank, from its environment."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"survey" not in f.read():
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            return int(pid)
    return None


@unittest.skipIf(usable(), usable())
class SurveyGaps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.json = os.path.join(cls.tmp.name, "survey.json")
        spin = subprocess.Popen([sys.executable, "-c", SPINNER])
        try:
            time.sleep(0.5)
            cls.rc, cls.out, cls.err = survey(
                4, "--rank-cpus", "0-1", "-d", "5s", "--json", cls.json)
        finally:
            spin.kill()
            spin.wait()
        with open(cls.json) as f:
            cls.d = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_rank_reported(self):
        self.assertEqual(self.rc, 0, self.err)
        self.assertEqual(self.d["survey_version"], 1)
        self.assertEqual([(r["rank"], r["ok"], r["cpu"])
                          for r in self.d["ranks"]],
                         [(0, True, 0), (1, True, 1), (2, True, 0),
                          (3, True, 1)])
        self.assertIn("# jitread survey: 4 ranks, 4 reported", self.out)

    def test_text_is_in_us(self):
        """The text report's durations are in us, its JSON's in ns."""
        self.assertIn("# per rank (us)", self.out)
        rows = {int(f[0]): f for f in map(str.split, self.out.splitlines())
                if f and f[0].isdigit() and len(f) > 7}
        for r in self.d["ranks"]:
            self.assertEqual(rows[r["rank"]][6], f"{r['max_ns'] / 1e3:.3f}",
                             r["rank"])
        rc, out, err = survey(1, "-d", "1s", "-u", "ns")
        self.assertEqual(rc, 0, err)
        self.assertIn("# per rank (ns)", out)

    def test_merged_counts_are_the_sum(self):
        gaps = sum(r["gaps"] for r in self.d["ranks"])
        fleet = self.d["fleet"]
        self.assertGreater(gaps, 100)
        self.assertEqual(fleet["gap"]["hist"]["count"], gaps)
        for name, c in fleet.items():
            self.assertEqual(c["hist"]["count"], c["sum_of_ranks"], name)
            self.assertEqual(sum(n for _, n in c["hist"]["slots"]),
                             c["sum_of_ranks"], name)

    def test_plots(self):
        """python3 -m jitpy.plot draws the survey: the heat map holds each
        rank's gap time, the percentile plot a line per rank."""
        import matplotlib
        matplotlib.use("Agg")
        from jitpy.plot import jitplot, survey as splot
        out = os.path.join(self.tmp.name, "plots")
        p = subprocess.run([sys.executable, "-m", "jitpy.plot", self.json,
                            "-o", out, "--format", "png"],
                           capture_output=True, text=True, check=False,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(os.listdir(out)),
                         ["heatmap.png", "ranks.png"])
        data = jrsurvey.load(self.json)
        fig = splot.plot_heatmap(data)
        rows = fig.axes[0].images[0].get_array()
        for i, r in enumerate(data["ranks"]):
            want = sum(d for _, d in r["timeline"])
            got = sum(v for v in rows[i] if v >= 1 / jitplot.US)
            self.assertAlmostEqual(got, want / 1e3, places=6,
                                   msg=r["rank"])
        lines = splot.plot_ranks(data).axes[0].get_lines()
        self.assertEqual(len(lines), 4)
        xs, ys = jitplot.percentile_points(data["ranks"][0]["gap"])
        self.assertEqual(list(lines[0].get_ydata()), jitplot.us(ys))

    def test_spinner_ranks_are_worst(self):
        self.assertEqual(sorted(self.d["worst_ranks"][:2]), [1, 3])
        for r in self.d["ranks"]:
            if r["cpu"] == 1:
                self.assertEqual(r["top_sources"][0], "thread:jrspin", r)
            else:
                self.assertNotIn("thread:jrspin", r["top_sources"], r)


@unittest.skipIf(usable(), usable())
class SurveyLostRank(unittest.TestCase):
    def lose_rank(self, sig, launcher):
        """Rank 2 of 3 gets sig a second into a 4 s run; rank 0 must say
        so and write the other two, and the other ranks must end (not
        wait in MPI_Finalize for the lost one)."""
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            p = subprocess.Popen(
                [*MPIRUN, *launcher, "-n", "3", jrcli.JITREAD,
                 "survey", "--rank-cpus", "0-1", "-d", "4s", "--timeout",
                 "3s", "--json", out], stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
            pid = None
            for _ in range(100):
                pid = rank_pid(2)
                if pid:
                    break
                time.sleep(0.1)
            self.assertIsNotNone(pid, "rank 2 never started")
            time.sleep(1)
            os.kill(pid, sig)
            try:
                _, err = p.communicate(timeout=90)
            finally:
                if p.poll() is None:
                    p.kill()
                if sig == signal.SIGSTOP:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            # mpirun's own status depends on the launcher's options:
            # --enable-recovery keeps the job, and its status, alive
            self.assertIn("rank 2 sent no report within 3 s", err)
            with open(out) as f:
                ranks = json.load(f)["ranks"]
        self.assertEqual([r["ok"] for r in ranks], [True, True, False])
        self.assertIn("no report", ranks[2]["why"])

    def test_killed_rank(self):
        """OpenMPI ends the job when a rank dies, unless told not to."""
        self.lose_rank(signal.SIGKILL, ["--enable-recovery"])

    def test_stopped_rank(self):
        """A stopped rank is alive: the job would wait for it, with
        --enable-recovery; without it, ending rank 0 ends the job."""
        self.lose_rank(signal.SIGSTOP, [])

    def test_stopped_rank0(self):
        """Every send has a deadline: with rank 0 stopped mid-run, rank 1
        gives up sending its report (larger than OpenMPI's eager limit,
        so the transfer waits for the receiver) and ends by itself."""
        p = subprocess.Popen(
            [*MPIRUN, "--enable-recovery", "-n", "2", jrcli.JITREAD,
             "survey", "--rank-cpus", "0-1", "-d", "3s", "--timeout", "2s"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pids = {}
        try:
            for _ in range(100):
                pids = {r: rank_pid(r) for r in (0, 1)}
                if all(pids.values()):
                    break
                time.sleep(0.1)
            self.assertTrue(all(pids.values()), f"ranks never started: {pids}")
            time.sleep(1.5)
            os.kill(pids[0], signal.SIGSTOP)
            # 1.5 s of sampling left, then 4 s to send and 4 s for the
            # verdict
            for _ in range(300):
                if not os.path.exists(f"/proc/{pids[1]}") or \
                        self.zombie(pids[1]):
                    break
                time.sleep(0.1)
            ended = not os.path.exists(f"/proc/{pids[1]}") or \
                self.zombie(pids[1])
        finally:
            for pid in pids.values():
                try:
                    if pid:
                        os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                _, err = p.communicate(timeout=60)
            finally:
                if p.poll() is None:
                    p.kill()
                    _, err = p.communicate()
        self.assertTrue(ended, "rank 1 still waits to send after 30 s:\n"
                        + err)
        self.assertIn("rank 1: its report was not taken by rank 0 within "
                      "4 s", err)

    @staticmethod
    def zombie(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True


@unittest.skipIf(usable(), usable())
class SurveyFwq(unittest.TestCase):
    def test_bsp_slowdown(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s.json")
            rc, txt, err = survey(2, "--mode", "fwq", "--rank-cpus", "0-1",
                                  "-d", "2s", "--quantum", "200us",
                                  "--barrier-every", "50", "--json", out)
            self.assertEqual(rc, 0, err)
            with open(out) as f:
                s = json.load(f)
        bsp = s["bsp"]
        quanta = [r["quanta"] for r in s["ranks"]]
        self.assertEqual(len(set(quanta)), 1, quanta)
        self.assertEqual(bsp["windows"], quanta[0] // 50)
        self.assertGreaterEqual(bsp["p50"], 1.0)
        self.assertGreaterEqual(bsp["max"], bsp["p99"])
        self.assertGreaterEqual(bsp["p99"], bsp["p50"])
        self.assertIn("# BSP slowdown", txt)
        for r in s["ranks"]:
            # the shortest quantum: the calibration, under what noise
            # there was, is at most the asked-for length
            self.assertLessEqual(r["quantum_ns"], 200000 * 1.5, r)


class SurveyFile(unittest.TestCase):
    """jitpy.formats.survey refuses what is not a survey it knows, with
    one line naming the file."""

    def test_load_refuses(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            good = {"survey_version": 1, "ranks": [], "fleet": {}}
            for bad, want in ((dict(good, survey_version=2),
                               "survey_version 2 is not supported"),
                              ({"ranks": []}, "not a jitread survey"),
                              ([1], "not a jitread survey"),
                              ({"survey_version": 1, "ranks": []},
                               "survey lacks 'fleet'")):
                with open(path, "w") as f:
                    json.dump(bad, f)
                with self.assertRaisesRegex(jrsurvey.SurveyError,
                                            f"^{path}: {want}"):
                    jrsurvey.load(path)
            with open(path, "w") as f:
                f.write("{")
            with self.assertRaises(jrsurvey.SurveyError):
                jrsurvey.load(path)
            with open(path, "w") as f:
                json.dump(good, f)
            self.assertEqual(jrsurvey.load(path), good)


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class SurveyClocks(unittest.TestCase):
    """Rank 0's merge (tests/host/c/survey_test.c): a rank takes the clock
    of its host's rank that answered the clock rounds; a rank whose host
    has none is named, and its gaps are left out of the noise that comes
    together rather than placed at offset 0."""

    def test_unreached_rank_named(self):
        with tempfile.TemporaryDirectory() as d:
            rec, rep = os.path.join(d, "r.rec"), os.path.join(d, "r.json")
            jrrec.write(rec, [jrrec.gap(1, 5000 + 1000 * i,
                                        ts=1000000 * (i + 1))
                              for i in range(50)] +
                        [jrrec.summary(1, 10**9, 300000, 54000)])
            rc, _, err = jrcli.jitread("report", rec, "-q", "--json", rep)
            self.assertEqual(rc, 0, err)
            with open(rep) as f:
                report = json.load(f)
            args = ["--text"]
            # rank 0 on host a; 1 and 2 on b, only 2 answered; 3 on c,
            # which never answered
            for rank, (host, rtt) in enumerate((("a", 0), ("b", -1),
                                                ("b", 5000), ("c", -1))):
                path = os.path.join(d, f"{rank}.json")
                with open(path, "w") as f:
                    json.dump(jrsurvey.rank_report(report, rank, host), f)
                args.append(f"{path}@{rtt}")
            rc, out = build_and_run("survey_test", libs=["-lm", "-ljansson"],
                                    args=args)
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[:4], ["ok"] * 4)
        named = [ln for ln in out.splitlines()
                 if ln.startswith("# clocks not compared")]
        self.assertEqual(len(named), 1, out)
        self.assertTrue(named[0].endswith(": rank 3"), named[0])


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class SurveyMemory(unittest.TestCase):
    """Rank 0 merges each report as it comes and keeps under a hundred
    bytes of it, and its host's name: merging a report with the longest
    timeline a report keeps (20,000 gaps) as 50 and as 1050 ranks, each on
    a host of its own, its peak resident size grows by under 0.25 KiB per
    rank (keeping each report would be about 500 KiB a rank; a rank's
    names and figures kept in memory whole, as they once were, 0.58 KiB)."""
    RANKS = (50, 1050)

    def test_bounded_per_rank(self):
        with tempfile.TemporaryDirectory() as d:
            rec, rep = os.path.join(d, "r.rec"), os.path.join(d, "r.json")
            gaps = [jrrec.gap(1, 2000 + i % 5000, ts=10000 * (i + 1))
                    for i in range(20000)]
            jrrec.write(rec, gaps + [jrrec.summary(1, 10**9, 10**8, 7000)])
            rc, _, err = jrcli.jitread("report", rec, "-q", "--json", rep)
            self.assertEqual(rc, 0, err)
            with open(rep) as f:
                report = json.load(f)
            tl = report["cpus"][0]["timeline"]["gaps"]
            self.assertEqual(len(tl), 20000)
            path = os.path.join(d, "rank.json")
            with open(path, "w") as f:
                json.dump(jrsurvey.rank_report(report, 0, "host-000000"), f)
            rss = []
            for n in self.RANKS:
                rc, out = build_and_run("survey_test",
                                        libs=["-lm", "-ljansson"],
                                        args=["--ranks", str(n), path])
                self.assertEqual(rc, 0, out)
                rss.append(int(out.split("maxrss_kb ")[1]))
        per_rank = (rss[1] - rss[0]) / (self.RANKS[1] - self.RANKS[0])
        print(f"\nsurvey merge: peak RSS {rss[0]} KiB at {self.RANKS[0]} "
              f"ranks, {rss[1]} KiB at {self.RANKS[1]}: {per_rank:.2f} KiB "
              "a rank",
              file=sys.stderr)
        self.assertLess(per_rank, 0.25, rss)


class SurveyInput(unittest.TestCase):
    def test_bad_options(self):
        for args, text in ((["--mode", "burst"], "for --mode"),
                           (["--barrier-every", "0"], "for --barrier-every"),
                           (["--quantum", "2s"], "for --quantum"),
                           (["--cpus-per-rank", "3-1"], "bad CPU list"),
                           (["--listen", ":1"], "not an option of"),
                           # a rank's CPU comes from --rank-cpus
                           (["-c", "1"], "not an option of")):
            jrcli.refused(self, ["survey", *args], 2, text)

    @unittest.skipIf(usable(), usable())
    def test_plugin_missing(self):
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, "jitread")
            shutil.copy(jrcli.JITREAD, exe)
            p = subprocess.run([exe, "survey", "-d", "1s"],
                               capture_output=True, text=True, timeout=60,
                               check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("jitread-mpi.so: No such file", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
