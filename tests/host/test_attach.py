# SPDX-License-Identifier: GPL-2.0
"""jitread attach, natively: it sees what the user sampler sees, on a
busy machine, and files the rest (preemption, sleep, faults, migration,
its own time) where it belongs."""

import bisect
import json
import os
import subprocess
import tempfile
import time
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

CPU = 1
# the classes a gap can owe to an event, as jr_rec.h numbers them
EVENT_TYPES = (jrrec.IRQ, jrrec.SOFTIRQ, jrrec.NMI, jrrec.THREAD)
SPIN = "import os, sys\nos.sched_setaffinity(0, {%d})\nwhile True: pass\n"
# a process whose two spinning threads name themselves with escapes
NAMED = """import ctypes, os, threading
libc = ctypes.CDLL(None)
def spin(name):
    libc.prctl(15, name, 0, 0, 0)  # PR_SET_NAME
    while True:
        pass
os.sched_setaffinity(0, {%d})
for n in (b"\\x1b[2J\\x1b[H", b"\\x1b]0;owned\\x07"):
    threading.Thread(target=spin, args=(n,), daemon=True).start()
threading.Event().wait()
"""


def usable():
    return jrcli.native_root("BPF needs root")


def hog(cpu, nice=19):
    """A shell spinning on cpu at nice: a busy machine's other task."""
    return subprocess.Popen(["nice", "-n", str(nice), "taskset", "-c",
                             str(cpu), "sh", "-c", "while :; do :; done"])


def spinner(cpu):
    """A process that spins on cpu: the application attach watches."""
    return subprocess.Popen(["/usr/bin/python3", "-c", SPIN % cpu])


def stop(*procs):
    for p in procs:
        p.kill()
        p.wait()


def thread_of(pid, comm):
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/comm", encoding="ascii") as f:
            if f.read().strip() == comm:
                return int(tid)
    raise AssertionError(f"no thread {comm} in {pid}")


@unittest.skipIf(not os.access(jrcli.JITREAD, os.X_OK), "make user")
class Refused(unittest.TestCase):
    def test_bad_targets(self):
        jrcli.refused(self, ["attach"], 2, "needs -p PID")
        jrcli.refused(self, ["attach", "-p", "x"], 2, "bad value 'x'")
        jrcli.refused(self, ["attach", "-p", "1", "--tid", "1,x"], 2,
                      "--tid '1,x'")
        jrcli.refused(self, ["attach", "-p", "1", "--fail-if", "max>5us"],
                      2, "--fail-if max>5us: attach has no gaps; name a "
                      "class, e.g. class=thread,max>5us")
        # the largest pid the kernel allows is below 2^22
        jrcli.refused(self, ["attach", "-p", str(1 << 29)], 2,
                      f"no process {1 << 29}")
        t = subprocess.Popen(["/usr/bin/python3", "-c",
                              "import threading, time\n"
                              "threading.Thread(target=time.sleep,"
                              " args=(60,)).start()\ntime.sleep(60)"])
        self.addCleanup(stop, t)
        for _ in range(100):
            tids = [int(x) for x in os.listdir(f"/proc/{t.pid}/task")]
            if len(tids) == 2:
                break
            time.sleep(0.05)
        other = max(tids)
        jrcli.refused(self, ["attach", "-p", str(other)], 2,
                      f"{other} is a thread of process {t.pid}: "
                      f"use -p {t.pid} --tid {other}")
        jrcli.refused(self, ["attach", "-p", str(t.pid), "--tid",
                             str(os.getpid())], 2,
                      f"--tid {os.getpid()}: not a thread of process")


@unittest.skipIf(usable(), usable())
class Attach(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def attach(self, pid, *extra, duration="3s"):
        """jitread attach -p pid; its JSON document."""
        out = self.path("a.json")
        p = subprocess.run([jrcli.JITREAD, "attach", "-p", str(pid), "-d",
                            duration, "-q", "--json", out, *extra],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, encoding="utf-8") as f:
            return json.load(f)

    def test_recall_of_the_samplers_gaps(self):
        """Attached to the user sampler's own thread on a busy CPU: every
        gap it files under irq, softirq, NMI or thread has its attach
        events, with the same net time in that class (10 % + 1 us)."""
        busy = hog(CPU)
        self.addCleanup(stop, busy)
        ready = self.path("ready")
        u = subprocess.Popen(
            [jrcli.JITREAD, "user", "-c", str(CPU), "-d", "14s",
             "--no-pipeline", "-q", "--record", self.path("u.rec"),
             "--ready-file", ready], stderr=subprocess.PIPE, text=True)
        self.addCleanup(u.kill)
        for _ in range(300):
            if os.path.exists(ready):
                break
            time.sleep(0.05)
        tid = thread_of(u.pid, f"jr-samp/{CPU}")
        doc = self.attach(u.pid, "--tid", str(tid), "-c", str(CPU),
                          "--record", self.path("a.rec"), duration="5s")
        _, err = u.communicate(timeout=60)
        self.assertEqual(u.returncode, 0, err)
        a = doc["attach"]
        # a gap whole inside the time attach watched, with a margin
        t0, t1 = a["start_ns"] + 50_000_000, a["end_ns"] - 50_000_000
        gaps = [r for r in jrrec.read(self.path("u.rec"))
                if r.type == jrrec.GAP and r.cls < 4 and r.cpu == CPU and
                t0 <= r.ts and r.ts + r.v[0] <= t1]
        events = sorted((r for r in jrrec.read(self.path("a.rec"))
                         if r.type in EVENT_TYPES), key=lambda r: r.ts)
        self.assertTrue(all(r.v[6] == tid for r in events))
        starts = [r.ts for r in events]
        classes = {r.cls for r in gaps}
        self.assertTrue({0, 3} <= classes, f"irq and thread gaps: {classes}")
        missed, off = [], []
        for g in gaps:
            lo = bisect.bisect_left(starts, g.ts - 2000)
            hi = bisect.bisect_right(starts, g.ts + g.v[0] + 2000)
            inside = [r for r in events[lo:hi]
                      if r.type == EVENT_TYPES[g.cls]]
            want = g.v[3 + g.cls]
            got = sum(r.v[0] for r in inside)
            if not inside:
                missed.append(g)
            elif abs(got - want) > 0.1 * want + 1000:
                off.append((g.cls, want, got))
        self.assertGreater(len(gaps), 50)
        self.assertLessEqual(len(missed), len(gaps) // 100,
                             f"{len(missed)} of {len(gaps)} gaps missed")
        self.assertLessEqual(len(off), len(gaps) // 100,
                             f"{len(gaps)} gaps; durations off: {off[:5]}")

    def test_preemption_is_charged_to_the_preempter(self):
        """A task sharing the target's CPU is a thread source; the target's
        waits are filled with the tasks and interrupts that ran meanwhile;
        its time on the CPU is its run plus its waits."""
        target = spinner(CPU)
        rival = hog(CPU, nice=0)
        self.addCleanup(stop, target, rival)
        time.sleep(0.3)
        doc = self.attach(target.pid, "--csv", self.tmp.name)
        cpu = [c for c in doc["cpus"] if c["cpu"] == CPU][0]
        rival_src = [s for s in cpu["sources"]
                     if s["source"] == f"thread:sh[{rival.pid}]"]
        self.assertEqual(len(rival_src), 1, [s["source"]
                                             for s in cpu["sources"]])
        (th,) = doc["attach"]["threads"]
        self.assertEqual(th["tid"], target.pid)
        waits = th["waits"]["total_ns"]
        self.assertGreater(waits, 0.2 * doc["attach"]["duration_ns"])
        self.assertGreater(rival_src[0]["total_ns"], 0.05 * waits)
        cls = {k: v["total_ns"] for k, v in th["classes"].items()}
        self.assertLessEqual(cls["thread"], waits * 1.01 + 1e6, th)
        self.assertGreater(sum(cls.values()), 0.95 * waits, th)
        spent = th["run_ns"] + waits
        runtime = cpu["summary"]["runtime_ns"]
        self.assertLess(abs(spent - runtime), 0.05 * runtime + 5e6,
                        (th, cpu["summary"]))
        with open(os.path.join(self.tmp.name, "sources.csv"),
                  encoding="utf-8") as f:
            self.assertIn(f"thread:sh[{rival.pid}]", f.read())

    def test_sleep_is_not_noise(self):
        """A thread that sleeps most of the time: its sleeps are counted
        apart, and no task that ran while it slept is a source."""
        p = subprocess.Popen(["/usr/bin/python3", "-c",
                              "import os, time\n"
                              f"os.sched_setaffinity(0, {{{CPU}}})\n"
                              "while True: time.sleep(0.002)\n"])
        busy = hog(CPU)
        self.addCleanup(stop, p, busy)
        time.sleep(0.3)
        doc = self.attach(p.pid)
        (th,) = doc["attach"]["threads"]
        self.assertGreater(th["sleeps"]["count"], 50, th)
        self.assertGreater(th["sleeps"]["total_ns"],
                           0.5 * doc["attach"]["duration_ns"])
        srcs = [s["source"] for c in doc["cpus"] for s in c["sources"]]
        self.assertNotIn(f"thread:sh[{busy.pid}]", srcs,
                         "the hog ran while the target slept")

    def test_new_threads_faults_and_migrations(self):
        """A thread made once attach watches is followed; one that hops
        between CPUs is counted as migrating; touching new memory
        faults."""
        ready = self.path("ready")
        code = ("import os, sys, threading, time\n"
                "def hop():\n"
                "    while True:\n"
                "        for c in (0, 1):\n"
                "            os.sched_setaffinity(0, {c})\n"
                "            b = bytearray(1 << 20)\n"
                "            for i in range(0, len(b), 4096): b[i] = 1\n"
                "            time.sleep(0.01)\n"
                "while not os.path.exists(sys.argv[1]): time.sleep(0.01)\n"
                "threading.Thread(target=hop, name='hopper').start()\n"
                "time.sleep(60)\n")
        p = subprocess.Popen(["/usr/bin/python3", "-c", code, ready])
        self.addCleanup(stop, p)
        doc = self.attach(p.pid, "--ready-file", ready, duration="4s")
        a = doc["attach"]
        hop = [t for t in a["threads"] if t["tid"] != p.pid]
        self.assertEqual(len(hop), 1, a["threads"])
        self.assertGreater(hop[0]["migrations"], 10)
        self.assertTrue(a["faults_counted"])
        self.assertGreater(hop[0]["faults"]["count"], 100)

    def test_many_threads_each_their_own(self):
        """3000 threads that nap and wake: each is a row of its own, under
        its own tid, found by a hashed lookup at every record."""
        code = ("import threading, time\n"
                "def nap():\n"
                "    while True:\n"
                "        time.sleep(0.2)\n"
                "for _ in range(3000):\n"
                "    threading.Thread(target=nap, daemon=True).start()\n"
                "time.sleep(60)\n")
        p = subprocess.Popen(["/usr/bin/python3", "-c", code])
        self.addCleanup(stop, p)
        for _ in range(600):
            if len(os.listdir(f"/proc/{p.pid}/task")) > 3000:
                break
            time.sleep(0.05)
        doc = self.attach(p.pid)
        tids = [t["tid"] for t in doc["attach"]["threads"]]
        mine = {int(t) for t in os.listdir(f"/proc/{p.pid}/task")}
        self.assertEqual(len(tids), len(set(tids)), "a tid in two rows")
        self.assertLessEqual(set(tids), mine)
        self.assertGreater(len(tids), 3000)
        self.assertEqual(doc["attach"]["tasks_full"], 0)

    def test_thread_names_are_shown_not_run(self):
        """A target's threads name themselves with a screen clear and a
        title change: attach's text report and serve --attach's closing
        table show the escapes, and hold no ESC or BEL byte."""
        target = subprocess.Popen(["/usr/bin/python3", "-c", NAMED % CPU])
        self.addCleanup(stop, target)
        for _ in range(100):
            if len(os.listdir(f"/proc/{target.pid}/task")) == 3:
                break
            time.sleep(0.05)
        for cmd in (["attach", "-p", str(target.pid)],
                    ["serve", "--attach", str(target.pid), "--listen",
                     "none", "--textfile", self.tmp.name]):
            p = subprocess.run([jrcli.JITREAD, *cmd, "-c", str(CPU), "-d",
                                "2s"], capture_output=True, timeout=120,
                               check=False)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(b"\\x1b[2J\\x1b[H", p.stdout, cmd)
            self.assertIn(b"\\x1b]0;owned\\x07", p.stdout, cmd)
            self.assertNotIn(b"\x1b", p.stdout, cmd)
            self.assertNotIn(b"\x07", p.stdout, cmd)

    def test_never_itself_and_diff_reads_it(self):
        """jitread's own threads are never a source, and the report is
        one diff and advise read."""
        target = spinner(CPU)
        self.addCleanup(stop, target)
        time.sleep(0.3)
        doc = self.attach(target.pid, "-H", str(CPU))
        srcs = [s["source"] for c in doc["cpus"] for s in c["sources"]]
        self.assertFalse([s for s in srcs if s.startswith("thread:jitread[")],
                         srcs)
        # its reader woke on the target's CPU, preempting it: self time
        cpu = [c for c in doc["cpus"] if c["cpu"] == CPU][0]
        self.assertGreater(cpu["summary"]["self_ns"], 0)
        self.assertEqual(doc["side"], "attach")
        self.assertIn("hardware noise", doc["attach"]["hw_noise"])
        path = self.path("a.json")
        rc, out, err = jrcli.jitread("diff", path, path)
        self.assertEqual(rc, 0, err)
        self.assertIn(f"CPU {CPU}: unchanged", out)
        rc, out, err = jrcli.jitread("advise", path)
        self.assertEqual(rc, 0, err)


def main():
    unittest.main()


if __name__ == "__main__":
    main()
