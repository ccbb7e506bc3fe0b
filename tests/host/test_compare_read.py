# SPDX-License-Identifier: GPL-2.0
"""diff and advise read a comparison's "why" (compare.cpus[].why): diff
shows each class's and source's user-minus-kernel time per second in both
reports with its change and the user thread's own counts; advise turns
those counts and the time other tasks took from the user thread beyond
the kthread's into advice of their own; a bad "why" is refused in one
line.  The reports are jitread report's, with the compare member that
jitread compare writes (its real output is checked in the guest, by
selftests/jitmod/compare.py)."""

import json
import os
import unittest

from tests.host import jrcli
from tests.host.test_advise import AdviseCase, audit, mistuned

# make check runs these at nice 19 beside the guests: they read reports
# made up here and time nothing
BESIDE_GUESTS = True

COUNTS = ("minor_faults", "major_faults", "preempted", "waited",
          "migrations")


def why(rows, noise=(3000.0, 8500.0), counts=None):
    """A why: rows of (kind, name, kernel ns/s, user ns/s)."""
    return {"noise_ns_per_s": {"kernel": noise[0], "user": noise[1]},
            "rows": [{"kind": k, "name": n, "kernel_ns_per_s": a,
                      "user_ns_per_s": b, "diff_ns_per_s": b - a}
                     for k, n, a, b in rows],
            "user_only": (dict(zip(COUNTS, counts))
                          if counts is not None else None)}


BUSY = why([("class", "thread", 1000.0, 6000.0),
            ("class", "irq", 2000.0, 2500.0),
            ("source", "thread:kworker/1:1[80]", 900.0, 5000.0)],
           counts=(12, 1, 30, 2, None))
QUIET = why([("class", "thread", 1000.0, 1000.0),
             ("class", "irq", 2000.0, 1500.0)],
            noise=(3000.0, 2500.0), counts=(0, 0, 4, 0, 0))


class CompareRead(AdviseCase):
    def compared(self, name, w):
        """The report of mistuned CPU 1, as a comparison explained by w."""
        path = self.report(mistuned())
        with open(path) as f:
            d = json.load(f)
        d["mode"] = "compare"
        d["compare"] = {"rounds": 1, "phase_s": 10, "threshold_ns": 1000,
                        "cpus": [{"cpu": 1, "why": w}]}
        out = os.path.join(self.dir, name)
        with open(out, "w") as f:
            json.dump(d, f)
        return out

    def jitread(self, *args):
        rc, out, err = jrcli.jitread(*args)
        self.assertEqual(rc, 0, err)
        return out

    def test_diff_shows_the_difference_of_differences(self):
        a = self.compared("busy.json", BUSY)
        b = self.compared("quiet.json", QUIET)
        d = json.loads(self.jitread("diff", a, b, "--json", "-", "-q"))
        w = d["cpus"][0]["user_minus_kernel"]
        self.assertEqual([(r["kind"], r["name"], r["ns_per_s"])
                          for r in w["rows"]],
                         [("class", "thread", [5000.0, 0.0]),
                          ("class", "irq", [500.0, -500.0]),
                          ("source", "thread:kworker/1:1[80]",
                           [4100.0, 0.0])])
        self.assertEqual(w["user_only"],
                         [dict(zip(COUNTS, (12, 1, 30, 2, None))),
                          dict(zip(COUNTS, (0, 0, 4, 0, 0)))])
        text = self.jitread("diff", a, b, "-u", "us")
        self.assertIn("why the floors differ: user minus kernel, us/s", text)
        row = [ln.split() for ln in text.splitlines()
               if ln.split()[:2] == ["class", "thread"]]
        self.assertEqual(row, [["class", "thread", "+5.000", "+0.000",
                                "-5.000"]])
        self.assertIn("the user thread's own, A -> B: minor_faults 12 -> 0, "
                      "major_faults 1 -> 0, preempted 30 -> 4, "
                      "waited 2 -> 0, migrations - -> 0", text)

    def test_no_comparison_no_rows(self):
        a = self.report(mistuned())
        d = json.loads(self.jitread("diff", a, a, "--json", "-", "-q"))
        self.assertNotIn("user_minus_kernel", d["cpus"][0])
        self.assertNotIn("why the floors differ", self.jitread("diff", a, a))

    def test_advise_on_the_user_thread(self):
        v = self.advise(self.compared("busy.json", BUSY), audit())
        got = [(x["rule"], x["cpu"], x["count"]) for x in v["user_thread"]]
        self.assertEqual(got, [("user-faults", 1, 13), ("user-waited", 1, 2),
                               ("user-preempted", 1, 30)])
        pre = v["user_thread"][2]
        self.assertEqual(pre["excess_ns_per_s"], 5000.0)
        self.assertIn("5.000 us/s more than they took from jitmod's "
                      "kthread; most of all thread:kworker/1:1[80]",
                      pre["what"])
        self.assertIn("(1 major)", v["user_thread"][0]["what"])
        # the kernel side's advice is the same as without the comparison
        plain = self.advise(self.report(mistuned()), audit())
        self.assertEqual(v["advice"], plain["advice"])
        self.assertEqual(plain["user_thread"], [])
        text = self.jitread("advise", self.compared("busy.json", BUSY),
                            "--audit", self.write_audit())
        self.assertIn("# the user thread's own, from the comparison", text)
        self.assertIn("[user-preempted] CPU 1: other tasks preempted", text)

    def test_a_quiet_user_thread_gets_none(self):
        """Preemptions alone, with no time beyond the kthread's, and no
        faults, waits or migrations: nothing to advise."""
        v = self.advise(self.compared("q.json", QUIET), audit())
        self.assertEqual(v["user_thread"], [])

    def test_names_from_the_file_are_escaped(self):
        w = why([("class", "thread", 0.0, 9000.0),
                 ("source", "thread:\x1b[2Jevil[1]", 0.0, 9000.0)],
                counts=(0, 0, 3, 0, 0))
        rep = self.compared("e.json", w)
        for args in (("advise", rep, "--audit",
                      self.write_audit()), ("diff", rep, rep)):
            out = self.jitread(*args)
            self.assertNotIn("\x1b", out)
            self.assertIn("evil", out)

    def write_audit(self):
        path = os.path.join(self.dir, "aud.json")
        with open(path, "w") as f:
            json.dump(audit(), f)
        return path

    def test_a_bad_why_is_refused(self):
        long_name = "thread:" + "x" * 70
        cases = [
            (dict(BUSY, rows=7), "compare: rows: not an array"),
            (why([("band", "irq", 1.0, 2.0)]), "compare: kind: not class"),
            (why([("class", long_name, 1.0, 2.0)]),
             "compare: name: missing or too long"),
            (why([("class", "irq", -1.0, 2.0)]),
             "compare: kernel_ns_per_s: not a rate"),
            (why([], counts=(1, -2, 0, 0, 0)),
             "compare: major_faults: not a count or null"),
            (dict(BUSY, noise_ns_per_s=[1, 2]),
             "compare: why: not an object with noise_ns_per_s"),
        ]
        for i, (w, text) in enumerate(cases):
            bad = self.compared(f"bad{i}.json", w)
            jrcli.refused(self, ["diff", bad, bad, "-q"], 1, text)
            jrcli.refused(self, ["advise", bad, "-q"], 1, text)


def main():
    unittest.main()


if __name__ == "__main__":
    main()
