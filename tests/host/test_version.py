# SPDX-License-Identifier: GPL-2.0
"""The one version, from VERSION: jitread --version, every JSON document's
envelope (as rt-tests writes one: the version, start_time and end_time in
ISO 8601 UTC, return_code, hostname), and the modules' modinfo.  The
service's build_info is checked in test_serve, DKMS in test_dkms."""

import datetime
import glob
import json
import os
import re
import socket
import subprocess
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def version():
    with open(os.path.join(jrcli.TOP, "VERSION")) as f:
        return f.read().strip()


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def when(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class Version(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.rec = os.path.join(cls.tmp.name, "r.rec")
        jrrec.write(cls.rec, [jrrec.gap(1, 5000, ts=1000),
                              jrrec.irq(1, 3000, "eth0", 30, ts=2000),
                              jrrec.summary(1, 10**9, 8000, 5000)])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_version_file(self):
        self.assertRegex(version(), r"^\d+\.\d+\.\d+([~+][0-9A-Za-z.]+)?$")

    def test_jitread_version(self):
        for flag in ("--version", "-V"):
            rc, out, err = jrcli.jitread(flag)
            self.assertEqual((rc, out, err), (0, f"jitread {version()}\n",
                                              ""))

    def envelope(self, path, rc, before, after):
        """The JSON at path carries the envelope of a run that exited rc
        between before and after."""
        with open(path) as f:
            d = json.load(f)
        self.assertEqual(d["jitread_version"], version())
        self.assertEqual(d["return_code"], rc)
        self.assertEqual(d["hostname"], socket.gethostname())
        for k in ("start_time", "end_time"):
            self.assertRegex(d[k], ISO)
        start, end = when(d["start_time"]), when(d["end_time"])
        self.assertLessEqual(before - datetime.timedelta(seconds=1), start)
        self.assertLessEqual(start, end)
        self.assertLessEqual(end, after + datetime.timedelta(seconds=1))
        return d

    def run_json(self, args, name):
        before = utcnow()
        rc, _, err = jrcli.jitread(*args, "--json", self.path(name))
        after = utcnow()
        return rc, err, before, after

    def test_every_json_document(self):
        """report (with the --fail-if verdict in return_code), diff,
        advise and audit each carry the envelope, its return_code the
        exit code."""
        rc, err, b, a = self.run_json(["report", self.rec, "-q"], "r.json")
        self.assertEqual(rc, 0, err)
        self.envelope(self.path("r.json"), 0, b, a)
        rc, err, b, a = self.run_json(["report", self.rec, "-q",
                                       "--fail-if", "max>1us"], "v.json")
        self.assertEqual(rc, 4, err)
        self.envelope(self.path("v.json"), 4, b, a)
        report = self.path("r.json")
        for name, args in (("diff", ["diff", report, report]),
                           ("advise", ["advise", report])):
            rc, err, b, a = self.run_json([*args, "-q"], f"{name}.json")
            self.assertEqual(rc, 0, err)
            self.envelope(self.path(f"{name}.json"), 0, b, a)
        rc, err, b, a = self.run_json(["audit", "-c", "0", "-q"],
                                      "audit.json")
        self.assertEqual(rc, 0, err)
        d = self.envelope(self.path("audit.json"), 0, b, a)
        self.assertEqual(d["audit_version"], 1)

    def test_modules_say_the_version(self):
        """Every jitmod.ko that make modules-all built: modinfo's version
        is VERSION."""
        kos = glob.glob(os.path.join(jrcli.TOP, "build", "modules", "*",
                                     "module", "jitmod.ko"))
        if not kos:
            self.skipTest("no module built (make modules-all)")
        for ko in kos:
            got = subprocess.run(["modinfo", "-F", "version", ko],
                                 capture_output=True, text=True,
                                 check=True).stdout.strip()
            self.assertEqual(got, version(), ko)


if __name__ == "__main__":
    unittest.main()
