# SPDX-License-Identifier: GPL-2.0
"""jitread user never measures itself, on a machine whose every CPU is
busy: by default its own threads keep off the sampled CPU, and whatever
time they still take there (-H naming it) is self, never a source."""

import os
import subprocess
import tempfile
import time
import unittest

from jitpy.formats import report as jrjson
from tests.host import jrcli

CPU = 1


def usable():
    return jrcli.native_root("BPF needs root")


def busy_everywhere():
    """A nice 19 shell spinning per CPU, so that a thread free to move
    finds every CPU as busy as the sampled one."""
    return [subprocess.Popen(["nice", "-n", "19", "sh", "-c",
                              "while :; do :; done"])
            for _ in range(os.cpu_count())]


def own_sources(cpu, pid):
    """The sources that name a thread of process pid (its main thread
    has tid pid; the samplers are named jr-...)."""
    return [s["source"] for s in cpu["sources"]
            if s["source"].endswith(f"[{pid}]") or
            s["source"].startswith(("thread:jitread[", "thread:jr-"))]


def cpu_set(text):
    """The CPUs of a list such as 0,2-3."""
    got = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        got.update(range(int(lo), int(hi or lo) + 1))
    return got


def threads_allowed(pid):
    """{comm: Cpus_allowed_list} of process pid's threads that are not
    samplers (jr-samp/N)."""
    got = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status",
                      encoding="ascii") as f:
                st = dict(ln.split(":\t", 1) for ln in f if ":\t" in ln)
        except FileNotFoundError:
            continue
        if not st["Name"].startswith("jr-"):
            got[f"{st['Name'].strip()}[{tid}]"] = \
                st["Cpus_allowed_list"].strip()
    return got


@unittest.skipIf(usable(), usable())
class NeverItself(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def run_user(self, *extra):
        """jitread user on CPU for 3 s with every CPU busy; its CPU's
        report and jitread's pid."""
        out = os.path.join(self.tmp.name, "u.json")
        hogs = busy_everywhere()
        try:
            p = subprocess.Popen(
                [jrcli.JITREAD, "user", "-c", str(CPU), "-d", "3s",
                 "--no-pipeline", "-q", "--json", out, *extra],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1)
            self.allowed = threads_allowed(p.pid)
            _, err = p.communicate(timeout=60)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        self.assertEqual(p.returncode, 0, err)
        return jrjson.load(out)["cpus"][0], p.pid

    def test_default_house_keeps_it_off(self):
        """Without -H, jitread's reader stays on the other CPUs: none of
        its time lands on the sampled CPU."""
        cpu, pid = self.run_user()
        self.assertTrue(self.allowed)
        for cpus in self.allowed.values():
            self.assertNotIn(CPU, cpu_set(cpus), self.allowed)
        self.assertEqual(own_sources(cpu, pid), [])
        self.assertEqual(cpu["summary"]["self_ns"], 0, cpu["summary"])

    def test_house_on_the_sampled_cpu_is_self(self):
        """-H naming the sampled CPU puts the reader there: its time is
        self, out of the noise, and no source names it."""
        cpu, pid = self.run_user("-H", str(CPU))
        self.assertEqual(own_sources(cpu, pid), [])
        self.assertGreater(cpu["summary"]["self_ns"], 0, cpu["summary"])
        self.assertLessEqual(cpu["summary"]["noise_ns"] +
                             cpu["summary"]["self_ns"],
                             cpu["summary"]["runtime_ns"], cpu["summary"])


def main():
    unittest.main()


if __name__ == "__main__":
    main()
