# SPDX-License-Identifier: GPL-2.0
"""Files from elsewhere are hostile.  A corpus of crafted files, each a
good one with one number past what jitread writes, is replayed through
the consumers: jitread advise and diff (JSON reports), advise --audit
(audits) and rank 0's survey merge (a rank's report).  Each must be
refused with one line naming the field, exit 1, before any consumer
works on it; the good files pass.
"""

import copy
import json
import os
import re
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from jitpy.formats import survey as jrsurvey
from tests.host import jrcli
from tests.host.test_common_c import build_and_run

# make check runs these at nice 19 beside the guests: they feed
# made-up files and time nothing
BESIDE_GUESTS = True

MAX_CPUS = 4096
TL_MAX = 20000
MAX_DETAIL = 16
# sources a CPU's report holds: 2 x 4096 named, and CLASS:other[*] a class
SOURCES_ALL = 2 * 4096 + 8


def cpu0(d):
    return d["cpus"][0]


def many_cpus(d):
    d["cpus"] = [dict(copy.deepcopy(cpu0(d)), cpu=i)
                 for i in range(MAX_CPUS + 1)]


def long_timeline(d):
    cpu0(d)["timeline"]["gaps"] = [[i, 5000, "hw:unknown"]
                                   for i in range(TL_MAX + 1)]


def many_details(d):
    cpu0(d)["sources"][0]["detail"] = [
        {"name": f"work:f{i}", "count": 1, "total_ns": 1}
        for i in range(MAX_DETAIL + 2)]


def many_sources(d):
    """One past what a CPU's report holds: 8192 named and one a class."""
    one = cpu0(d)["sources"][0]
    cpu0(d)["sources"] = [dict(one, source=f"irq:{i}")
                          for i in range(SOURCES_ALL + 1)]


def many_slots(d):
    gap = cpu0(d)["classes"]["gap"]
    gap["slots"] = [[v, 1] for v in range(1, 200001)]
    gap["count"] = 200000


def descending_cpus(d):
    d["cpus"] = [dict(copy.deepcopy(cpu0(d)), cpu=2),
                 dict(copy.deepcopy(cpu0(d)), cpu=1)]


def setter(path, value):
    def mutate(d):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return mutate


# (name, mutation of a good report, what the refusal names)
REPORTS = (
    ("cpu-beyond-4096", setter(("cpus", 0, "cpu"), MAX_CPUS), "cpu"),
    ("cpu-negative", setter(("cpus", 0, "cpu"), -1), "cpu"),
    ("cpus-more-than-4096", many_cpus, "cpus"),
    ("cpus-descending", descending_cpus, "cpus"),
    ("timeline-past-20000", long_timeline, "timeline"),
    ("detail-rows-past-17", many_details, "detail"),
    ("sources-past-8200", many_sources, "sources"),
    ("slots-past-any-histogram", many_slots, "slots"),
    ("slots-negative-count", setter(("cpus", 0, "classes", "gap", "slots"),
                                    [[5000, -1]]), "slots"),
    ("precision-9", setter(("precision",), 9), "precision"),
    ("source-count-negative", setter(("cpus", 0, "sources", 0, "count"),
                                     -3), "count"),
    ("file-version-3", setter(("file_version",), 3), "file_version"),
)


def audit_irqs_past_count(a):
    cpu0(a)["nr_irqs"] = 1
    cpu0(a)["irqs"] = [{"irq": 1, "name": "a", "count": 1},
                       {"irq": 2, "name": "b", "count": 1}]


AUDITS = (
    ("audit-cpu-beyond-4096", setter(("cpus", 0, "cpu"), MAX_CPUS), "cpu"),
    ("audit-cpus-more-than-4096", many_cpus, "cpus"),
    ("audit-cpus-descending", descending_cpus, "cpu"),
    ("audit-nr-irqs-negative", setter(("cpus", 0, "nr_irqs"), -1),
     "nr_irqs"),
    ("audit-nr-tasks-huge", setter(("cpus", 0, "nr_tasks"), 1 << 40),
     "nr_tasks"),
    ("audit-irqs-past-nr-irqs", audit_irqs_past_count, "irqs"),
    ("audit-irq-negative", setter(("cpus", 0, "irqs"),
                                  [{"irq": -5, "name": "x", "count": 1}]),
     "irq"),
    ("audit-sibling-busy-500", setter(("cpus", 0, "sibling_busy_pct"), 500),
     "sibling_busy_pct"),
    ("audit-version-2", setter(("audit_version",), 2), "audit_version"),
)

SURVEYS = (
    ("survey-cpu-beyond-4096", setter(("survey", "cpu"), MAX_CPUS), "cpu"),
    ("survey-cpu-negative", setter(("survey", "cpu"), -1), "cpu"),
    ("survey-windows-not-durations", setter(("survey", "windows_ns"),
                                            [1, "x"]), "windows_ns"),
    ("survey-windows-negative", setter(("survey", "windows_ns"), [-1]),
     "windows_ns"),
    ("survey-t0-negative", setter(("survey", "t0_ns"), -7), "t0_ns"),
    ("survey-quanta-text", setter(("survey", "quanta"), "many"), "quanta"),
)


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class Hostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        rec = cls.path("good.rec")
        jrrec.write(rec, [jrrec.gap(1, 5000, ts=1000),
                          jrrec.irq(1, 3000, "eth0", 30, ts=2000),
                          jrrec.gap(1, 7000, ts=3000000),
                          jrrec.summary(1, 10**9, 12000, 7000)])
        cls.good = cls.path("good.json")
        rc, _, err = jrcli.jitread("report", rec, "-q", "--json", cls.good)
        assert rc == 0, err
        cls.audit = cls.path("audit.json")
        rc, out, err = jrcli.jitread("audit", "-c", "1", "-q", "--json",
                                     cls.audit)
        assert rc == 0, err

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.tmp.name, name)

    def crafted(self, base, name, mutate):
        with open(base) as f:
            d = json.load(f)
        mutate(d)
        path = self.path(f"{name}.json")
        with open(path, "w") as f:
            json.dump(d, f)
        return path

    def refused(self, args, want, name):
        rc, out, err = jrcli.jitread(*args)
        self.assertEqual(rc, 1, f"{name}: {args}: {err}")
        self.assertEqual(len(err.strip().splitlines()), 1, f"{name}: {err}")
        self.assertIn(want, err, name)
        self.assertEqual(out, "", name)

    def test_good_files_pass(self):
        rc, _, err = jrcli.jitread("advise", self.good, "--audit",
                                   self.audit)
        self.assertEqual(rc, 0, err)
        rc, _, err = jrcli.jitread("diff", self.good, self.good)
        self.assertEqual(rc, 0, err)

    def test_reports(self):
        for name, mutate, want in REPORTS:
            with self.subTest(name):
                bad = self.crafted(self.good, name, mutate)
                self.refused(("advise", bad, "--audit", self.audit), want,
                             name)
                self.refused(("diff", self.good, bad), want, name)

    def test_audits(self):
        for name, mutate, want in AUDITS:
            with self.subTest(name):
                bad = self.crafted(self.audit, name, mutate)
                self.refused(("advise", self.good, "--audit", bad), want,
                             name)

    def test_survey_merge(self):
        files, wants = [], []

        def as_rank(d):
            d.update(jrsurvey.rank_report(d, windows_ns=(5, 6)))
        for name, mutate, want in SURVEYS:
            def survey(d, mutate=mutate):
                as_rank(d)
                mutate(d)
            files.append(self.crafted(self.good, name, survey))
            wants.append(want)
        files.append(self.crafted(self.good, "survey-good", as_rank))
        rc, out = build_and_run("survey_test", libs=["-lm", "-ljansson"],
                                args=files)
        self.assertEqual(rc, 0, out)
        lines = out.splitlines()
        self.assertEqual(len(lines), len(files), out)
        for (name, _, _), want, line in zip(SURVEYS, wants, lines):
            self.assertTrue(line.startswith("refused: "), f"{name}: {line}")
            self.assertIn(want, line, name)
        self.assertEqual(lines[-1], "ok")

    def test_survey_names_from_ranks_shown_safely(self):
        """A rank's host, its sources and its backend come from another
        node, where any user can name a thread: the fleet's text shows
        their control characters escaped, for a rank taken, a rank
        refused and a source common to the outliers, and its JSON stays
        JSON."""
        esc = "\x1b]0;pwn\x07\x1b[2J"
        files = []
        for i in range(7):
            def rank(d, i=i):
                c = cpu0(d)
                # a spread for the outliers' MAD; rank 6 is the outlier
                c["summary"]["noise_ns"] = int(
                    c["summary"]["noise_ns"] * (1 + 0.05 * i) *
                    (30 if i == 6 else 1))
                for src in c["sources"]:
                    src["source"] += esc
                d.update(jrsurvey.rank_report(
                    d, rank=i, host="node" + esc,
                    windows_ns=[-1] if i == 5 else ()))
                d["survey"]["backend"] = 'user",' + esc
            files.append(self.crafted(self.good, f"esc-{i}", rank))
        rc, out = build_and_run("survey_test", libs=["-lm", "-ljansson"],
                                args=["--text", *files])
        self.assertEqual(rc, 0, out)
        text = out.split("# jitread survey", 1)[1]
        self.assertIn("\n5    node\\x1b]0;pwn\\x07\\x1b[2J  -   missing:",
                      text)
        self.assertIn("# common to the outliers: irq:30 eth0\\x1b]0;pwn",
                      text)
        self.assertEqual(re.findall(r"[\x00-\x09\x0b-\x1f\x7f]", text), [])
        rc, out = build_and_run("survey_test", libs=["-lm", "-ljansson"],
                                args=["--json", *files])
        self.assertEqual(rc, 0, out)
        fleet = json.loads(out.split("\n", len(files))[-1])
        # cut to jitread's field, and still a JSON string
        self.assertTrue(fleet["ranks"][0]["backend"].startswith('user",'))

    def corpus(self, name, cases, base, wrap=None):
        """The good file and every crafted one of cases, in a directory."""
        d = self.path(name)
        os.makedirs(d, exist_ok=True)
        for case, mutate, _ in (("good", lambda x: None, ""),) + cases:
            def craft(x, mutate=mutate):
                if wrap:
                    wrap(x)
                mutate(x)
            os.replace(self.crafted(base, f"{name}-{case}", craft),
                       os.path.join(d, f"{case}.json"))
        return d

    def test_fuzz_targets_replay_the_corpus(self):
        """make fuzz's advise and survey targets, under ASan and UBSan,
        take every crafted file through the consumers without a fault."""
        def as_rank(x):
            x.update(jrsurvey.rank_report(x, windows_ns=(5, 6)))
        jrcli.fuzz_run(self, "fuzz_advise",
                       self.corpus("fz-advise", REPORTS, self.good))
        jrcli.fuzz_run(self, "fuzz_survey",
                       self.corpus("fz-survey", REPORTS + SURVEYS,
                                   self.good, as_rank))


if __name__ == "__main__":
    unittest.main()
