# SPDX-License-Identifier: GPL-2.0
"""jitread's subcommands, the old form as their alias, and times with
units.  What needs jitmod (hist, top, record, and the settings put back
at exit) is checked in the guest by selftests/jitmod/jitread_live.py."""

import json
import os
import re
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli


def records():
    out = [jrrec.gap(1, v) for v in range(1000, 90000, 37)]
    out += [jrrec.irq(1, 4000, "local_timer"),
            jrrec.thread(2, 7000, "kworker/2:1", 77),
            jrrec.gap(2, 123456, "thread"),
            jrrec.summary(1, 10 ** 9, 2 * 10 ** 6, 89000),
            jrrec.summary(2, 10 ** 9, 123456, 123456)]
    return out


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK), "make user")
class Commands(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.rec = os.path.join(self.tmp.name, "r.rec")
        jrrec.write(self.rec, records())

    def tearDown(self):
        self.tmp.cleanup()

    def run_ok(self, *args):
        rc, out, err = jrcli.jitread(*args)
        self.assertEqual(rc, 0, f"{args}: {err}")
        return out

    def json_of(self, *args):
        path = os.path.join(self.tmp.name, "o.json")
        self.run_ok(*args, "-q", "--json", path)
        with open(path) as f:
            d = json.load(f)
        d["system"].pop("argv", None)   # the command line itself differs
        return jrcli.body(d)

    def test_old_form_is_an_alias(self):
        new = self.run_ok("report", self.rec, "-u", "us")
        self.assertIn("CPU", new)
        self.assertEqual(self.run_ok("--replay", self.rec, "-u", "us"), new)
        self.assertEqual(self.run_ok("--hist", "--replay", self.rec, "-u",
                                     "us"), new)
        self.assertEqual(self.run_ok("report", "--replay", self.rec, "-u",
                                     "us"), new)
        self.assertEqual(self.json_of("report", self.rec, "-c", "1"),
                         self.json_of("--replay", self.rec, "-c", "1"))

    def bucket_rows(self, *args):
        lines = self.run_ok(*args, "--entries", "4").splitlines()
        i = next(n for n, ln in enumerate(lines) if ln.startswith("Index"))
        return lines[i + 1:i + 5]

    def test_bucket_size_units(self):
        want = self.bucket_rows("--replay", self.rec, "--bucket-size",
                                "20000")
        self.assertEqual(len(want), 4, want)
        self.assertTrue(want[1].startswith("20000"), want)
        for args in (["-b", "20"], ["-b", "20us"], ["--bucket-size",
                                                    "0.02ms"],
                     ["-b", "20000ns"]):
            self.assertEqual(self.bucket_rows("report", self.rec, "-u",
                                              "ns", *args), want, args)
        # the old form keeps its bare ns, and takes units too
        self.assertEqual(self.bucket_rows("--replay", self.rec, "-b",
                                          "20us"), want)
        self.assertNotEqual(self.bucket_rows("report", self.rec, "-u", "ns",
                                             "-b", "20000"), want)

    def test_tables_default_to_us(self):
        """The subcommands' tables are in us, the old form's in ns; a
        bucket of whole units is indexed in whole units, a smaller one
        to the ns."""
        ns = self.run_ok("--replay", self.rec)
        self.assertIn("# jitread report; times in ns", ns)
        self.assertEqual(self.run_ok("report", self.rec, "-u", "ns"), ns)
        us = self.run_ok("report", self.rec)
        self.assertIn("# jitread report; times in us", us)
        self.assertEqual(self.run_ok("--replay", self.rec, "-u", "us"), us)
        self.assertEqual([r.split()[0] for r in self.bucket_rows(
            "report", self.rec, "-b", "20")], ["0", "20", "40", "60"])
        # the gaps start at 1 us: buckets 2 and 3 of 4 hold some
        self.assertEqual([r.split()[0] for r in self.bucket_rows(
            "report", self.rec, "-b", "500ns")][:2], ["1.000", "1.500"])

    def expect(self, args, code, text):
        jrcli.refused(self, args, code, text)

    def test_refusals(self):
        self.expect(["bogus"], 2, "unknown command 'bogus'")
        self.expect(["report"], 2, "needs the recording")
        self.expect(["record", "-d", "1s"], 2, "needs -o FILE")
        self.expect(["user"], 2, "needs -c CPUS")
        self.expect(["report", self.rec, "-T", "5us"], 2,
                    "'-T' is not an option of 'jitread report'")
        self.expect(["top", "--csv", "d"], 2,
                    "'--csv' is not an option of 'jitread top'")
        self.expect(["record", "-o", "x", "--json", "y"], 2,
                    "'--json' is not an option of 'jitread record'")
        self.expect(["hist", "--wat"], 2, "unknown option '--wat'")
        self.expect(["report", self.rec, self.rec], 2,
                    "unexpected argument")
        # the old form keeps only the mode flags users were promised
        self.expect(["--user", "-c", "1"], 2, "unknown option '--user'")
        self.expect(["--compare"], 2, "unknown option '--compare'")

    def test_bad_times(self):
        for bad in ("1.5ns", "5 us", "us", "-1us", "2x", "1.", "0.0000000001s",
                    "99999999999999999999s"):
            self.expect(["report", self.rec, "-b", bad], 2,
                        f"bad value '{bad}' for -b")
        self.expect(["hist", "-T", "0"], 2, "for -T")
        self.expect(["hist", "-T", "2s"], 2, "for -T")
        self.expect(["hist", "-s", "1500ns"], 2, "for -s")
        self.expect(["hist", "-d", "500ms"], 2, "for -d")
        self.expect(["compare", "--phase", "0s"], 2, "for --phase")

    def test_signal_action_is_strict(self):
        for bad in ("signal=9,4294967297", "signal=9,5x", "signal=9,1",
                    "signal=99,5", "signal=9", "signal=x,5",
                    f"signal=9,{os.getpid()}x"):
            self.expect(["hist", "-d", "1s", "--on-threshold", bad], 2,
                        f"bad --on-threshold '{bad}'")

    def test_actions_are_checked(self):
        for opt in ("--on-threshold", "--on-end"):
            self.expect(["hist", opt, "signal=9,1"], 2, f"bad {opt} ")
            self.expect(["hist", opt, "exec="], 2, f"bad {opt} 'exec='")
            self.expect(["hist", *[opt, "trace"] * 9], 2,
                        f"at most 8 {opt} actions")
            self.expect(["report", self.rec, opt, "trace"], 2, opt)
        for end_only_not in ("stop", "continue"):
            self.expect(["hist", "--on-end", end_only_not], 2,
                        f"bad --on-end '{end_only_not}'")
        self.expect(["hist", "--on-threshold", "stop", "--on-threshold",
                     "continue"], 2, "stop and continue exclude each other")
        self.expect(["hist", "--on-threshold", "continue", "--on-threshold",
                     "stop"], 2, "stop and continue exclude each other")

    def test_json_on_stdout_is_json_alone(self):
        out = self.run_ok("report", self.rec, "--json", "-")
        self.assertEqual(json.loads(out)["file_version"], 2)
        self.expect(["top", "--json", "-"], 2, "give --json a file")

    def test_errors_name_the_cause(self):
        """A symbolic link is refused as one (with - offered for standard
        output), a directory is a directory, and / is not doubled."""
        self.expect(["report", self.rec, "--json", "/dev/stdout"], 1,
                    "/dev/stdout: refused: a symbolic link (for standard "
                    "output, give -)")
        link = os.path.join(self.tmp.name, "link.json")
        os.symlink(os.path.join(self.tmp.name, "there.json"), link)
        self.expect(["report", self.rec, "--json", link], 1,
                    f"{link}: refused: a symbolic link")
        self.expect(["report", self.rec, "--json", "/tmp"], 1,
                    "jitread: /tmp: Is a directory")
        self.expect(["report", self.tmp.name], 1,
                    f"{self.tmp.name}: a directory, not a recording")

    def test_each_command_has_help(self):
        for cmd in jrcli.COMMANDS:
            rc, out, err = jrcli.jitread(cmd, "--help")
            self.assertEqual((rc, err), (0, ""), cmd)
            self.assertTrue(out.startswith(f"usage: jitread {cmd} "), out)
            self.assertIn("-h, --help", out)

    def test_help_speaks_of_its_own_command(self):
        """No option's help in one command qualifies itself by another
        (such as '(user: 10s)' in hist's), and the defaults are its own."""
        # "(user, compare)", "user: 10s"; not "CPUs to compare, e.g."
        names = "|".join(jrcli.COMMANDS)
        other = re.compile(r"\(\s*(%s)\b|\b(%s):" % (names, names))
        for cmd in jrcli.COMMANDS:
            _, out, _ = jrcli.jitread(cmd, "--help")
            opts = out[out.index("\n  -"):]
            for ln in opts.splitlines():
                for m in other.finditer(ln):
                    self.assertEqual(m.group(1) or m.group(2), cmd,
                                     f"{cmd}: {ln}")
        helps = {cmd: jrcli.jitread(cmd, "--help")[1]
                 for cmd in ("hist", "user", "diff", "serve")}
        self.assertIn("(default: until ^C)", helps["hist"])
        self.assertIn("(default: 10s)", helps["user"])
        self.assertIn("CPUs to sample", helps["user"])
        self.assertIn("CPUs to compare", helps["diff"])
        self.assertIn("(default 100ms)", helps["serve"])
        self.assertNotIn("default 100ms", helps["hist"])


if __name__ == "__main__":
    unittest.main()
