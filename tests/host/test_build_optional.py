# SPDX-License-Identifier: GPL-2.0
"""make -C user OPTIONAL=no: a jitread of the core subcommands only.

The build runs in a copy of user/ (so the checkout's objects stay as they
are), against the checkout's generated BPF skeleton.  The core-only
jitread must list the six core subcommands and name the left-out ones,
refuse an optional one with one line and exit 2, report a recording as
the full build does, and hold none of the tune/ or fleet/ layers' code.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

# make check runs these at nice 19 beside the guests: they build
# and run the result and time nothing
BESIDE_GUESTS = True

CORE = ("hist", "top", "hwnoise", "record", "report", "user", "compare",
        "attach")
OPTIONAL = ("diff", "audit", "advise", "serve", "survey")
BPF_OUT = os.path.join(jrcli.TOP, "build", "bpf")


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True,
                          check=False, timeout=600, **kw)


@unittest.skipUnless(os.path.exists(os.path.join(BPF_OUT, "jr_ubpf.skel.h")),
                     "no BPF skeleton in build/bpf (make user)")
class CoreOnlyBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        top = cls.tmp.name
        shutil.copytree(os.path.join(jrcli.TOP, "include"),
                        os.path.join(top, "include"))
        shutil.copy(os.path.join(jrcli.TOP, "VERSION"), top)
        shutil.copytree(os.path.join(jrcli.TOP, "user"),
                        os.path.join(top, "user"),
                        ignore=shutil.ignore_patterns(
                            "*.o", "*.a", "jitread", "jitread-mpi.so",
                            ".optional", "fuzz", "jr_version_gen.h"))
        cls.user = os.path.join(top, "user")
        cls.build = run("make", "-s", "-j2", "-C", cls.user, "OPTIONAL=no",
                        f"BPF_OUT={BPF_OUT}", "all")
        cls.jitread = os.path.join(cls.user, "jitread")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.build.returncode, 0,
                         self.build.stderr[-3000:])

    def test_help_lists_core_and_names_the_rest(self):
        p = run(self.jitread, "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        listed = [ln.split()[0] for ln in p.stdout.splitlines()
                  if ln.startswith("  ") and ln.split()]
        self.assertEqual(tuple(listed), CORE)
        self.assertIn("optional, left out of this build: "
                      + ", ".join(OPTIONAL), p.stdout)

    def test_optional_subcommand_refused(self):
        for cmd in OPTIONAL:
            p = run(self.jitread, cmd, "--help")
            self.assertEqual(p.returncode, 2, f"{cmd}: {p.stderr}")
            self.assertEqual(p.stdout, "")
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
            self.assertIn(f"'{cmd}' is optional", p.stderr)
        p = run(self.jitread, "nonsense")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown command 'nonsense'", p.stderr)

    def test_report_matches_full_build(self):
        if not os.access(jrcli.JITREAD, os.X_OK):
            self.skipTest("user/jitread not built (make user)")
        rec = os.path.join(self.tmp.name, "r.rec")
        jrrec.write(rec, [jrrec.gap(1, 5000), jrrec.irq(1, 3000, "eth0", 30),
                          jrrec.summary(1, 10**9, 8000, 5000)])
        core = run(self.jitread, "report", rec)
        full = run(jrcli.JITREAD, "report", rec)
        self.assertEqual(core.returncode, 0, core.stderr)
        self.assertEqual(core.stdout, full.stdout)
        self.assertIn("eth0", core.stdout)

    def test_no_optional_layer_linked(self):
        p = run("nm", self.jitread)
        self.assertEqual(p.returncode, 0, p.stderr)
        syms = {ln.split()[-1] for ln in p.stdout.splitlines() if ln.strip()}
        for sym in ("jr_cmd_audit", "jr_audit_read", "jr_advise_run",
                    "jr_serve_open", "jr_fwq_run", "jr_cmd_survey"):
            self.assertNotIn(sym, syms)
        self.assertIn("jr_cmd_hist", syms)
        full = run("nm", jrcli.JITREAD)
        if full.returncode == 0:
            self.assertIn("jr_audit_read", full.stdout)


if __name__ == "__main__":
    unittest.main()
