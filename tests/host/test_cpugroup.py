# SPDX-License-Identifier: GPL-2.0
"""make check's CPU groups (jitpy/cpugroup.py): on this machine's own
cgroup tree, the guests' group lets SCHED_FIFO run and the idle group
yields its CPU to it; on a made-up tree, what is written and what is
said when nothing can be."""

import os
import resource
import tempfile
import time
import unittest
from unittest import mock

from jitpy import cpugroup

SPIN_S = 1.0


def in_child(fn):
    """Run fn() in a child, which reports through its exit code: 0 is
    a pass, anything else the line fn wrote to the pipe."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 1
        try:
            msg = fn()
            code = 0 if msg is None else 1
        except BaseException as e:  # the child must reach os._exit
            msg = repr(e)
        os.write(w, (msg or "").encode())
        os._exit(code)
    os.close(w)
    with os.fdopen(r) as f:
        msg = f.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), msg


def my_group():
    with open("/proc/self/cgroup") as f:
        return f.read()


def spin_cpu_s(secs):
    """Spin for secs of wall time; the CPU time it got meanwhile."""
    t0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    end = time.monotonic() + secs
    while time.monotonic() < end:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime - t0


@unittest.skipIf(os.geteuid() != 0, "cgroups need root")
class OnThisMachine(unittest.TestCase):
    def setUp(self):
        if cpugroup.where() is None:
            self.skipTest("no CPU controller to write here")
        self.tag = f"test-{os.getpid()}"

    def test_guests_group_runs_fifo_and_goes_away(self):
        name = self.tag + "-g"
        path = os.path.join(cpugroup.where()[1], cpugroup.PREFIX + name)

        def body():
            said = cpugroup.join(name)
            if "in " + path not in said:
                return said
            if cpugroup.PREFIX + name not in my_group():
                return "not moved: " + my_group()
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            cpugroup.leave(name)
            if cpugroup.PREFIX + name in my_group() or os.path.exists(path):
                return "still there after leave"
            return None
        self.assertEqual(in_child(body), (0, ""))

    def test_kill_reaches_other_sessions(self):
        """What the lane started in a session of its own (as the runner
        starts QEMU) dies with the lane's group."""
        name = self.tag + "-k"
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                cpugroup.join(name, idle=True)
                if os.fork() == 0:
                    os.setsid()
                    os.write(w, f"{os.getpid()}\n".encode())
                    time.sleep(60)
            finally:
                os._exit(0)
        os.close(w)
        with os.fdopen(r) as f:
            away = int(f.readline())
        os.waitpid(pid, 0)
        try:
            self.assertEqual(os.getpgid(away), away)
            cpugroup.kill(name)
            end = time.monotonic() + 5
            while time.monotonic() < end and self.alive(away):
                time.sleep(0.05)
            self.assertFalse(self.alive(away))
        finally:
            if self.alive(away):
                os.kill(away, 9)
            cpugroup.leave(name)

    @staticmethod
    def alive(pid):
        """pid still runs (a zombie, whose parent is gone, does not)."""
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def test_idle_group_yields_to_the_guests(self):
        """Two spinners pinned to one CPU, one in each group, started
        together: the idle one gets a small share of what the guests' one
        gets: under a thirtieth (about 1 in 130 here; a plain group of the
        default weight gets 1 in 10)."""
        cpu = min(os.sched_getaffinity(0))
        r, w = os.pipe()
        go_r, go_w = os.pipe()
        kids = []
        for name, idle in ((self.tag + "-l", True), (self.tag + "-h", False)):
            pid = os.fork()
            if pid == 0:
                os.close(r)
                os.close(go_w)
                try:
                    said = cpugroup.join(name, idle=idle)
                    os.sched_setaffinity(0, {cpu})
                    os.write(w, f"ready {said}\n".encode())
                    os.read(go_r, 1)
                    got = spin_cpu_s(SPIN_S)
                    os.write(w, f"{name} {got}\n".encode())
                finally:
                    os._exit(0)
            kids.append(pid)
        os.close(w)
        os.close(go_r)
        with os.fdopen(r) as f:
            ready = [f.readline() for _ in kids]
            os.write(go_w, b"gg")
            os.close(go_w)
            got = dict(line.split() for line in f.read().splitlines())
        for pid in kids:
            os.waitpid(pid, 0)
        for name in (self.tag + "-l", self.tag + "-h"):
            cpugroup.leave(name)
        idle, heavy = float(got[self.tag + "-l"]), float(got[self.tag + "-h"])
        self.assertGreater(heavy, 30 * idle, (got, ready))


class MadeUpTree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.base = self.tmp.name
        for knob, value in (("cpu.shares", 1024),
                            ("cpu.rt_runtime_us", 950000)):
            with open(os.path.join(self.base, knob), "w") as f:
                f.write(f"{value}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, name, knob):
        with open(os.path.join(self.base, cpugroup.PREFIX + name, knob)) as f:
            return f.read().strip()

    def test_what_each_group_gets(self):
        with mock.patch.object(cpugroup, "V1_CPU", self.base):
            cpugroup.join("g")
            cpugroup.join("l", idle=True)
        self.assertEqual((self.read("g", "cpu.shares"),
                          self.read("g", "cpu.idle"),
                          self.read("g", "cpu.rt_runtime_us"),
                          self.read("g", "cgroup.procs")),
                         ("10240", "0", "950000", str(os.getpid())))
        self.assertEqual(self.read("l", "cpu.idle"), "1")

    def test_least_weight_where_there_is_no_idle(self):
        os.makedirs(os.path.join(self.base, cpugroup.PREFIX + "l",
                                 "cpu.idle"))
        with mock.patch.object(cpugroup, "V1_CPU", self.base):
            said = cpugroup.join("l", idle=True)
        self.assertIn("idle", said)
        self.assertEqual(self.read("l", "cpu.shares"), "2")

    def test_nothing_to_write_is_said(self):
        with mock.patch.object(cpugroup, "V1_CPU", self.base + "/none"), \
                mock.patch.object(cpugroup, "V2_ROOT", self.base + "/none"):
            said = cpugroup.join("g")
        self.assertIn("no CPU controller", said)
        self.assertEqual(sorted(os.listdir(self.base)),
                         ["cpu.rt_runtime_us", "cpu.shares"])


if __name__ == "__main__":
    unittest.main()
