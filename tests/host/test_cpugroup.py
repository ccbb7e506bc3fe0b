# SPDX-License-Identifier: GPL-2.0
"""make check's CPU groups (jitpy/cpugroup.py): on this machine's own
cgroup tree, the guests' leaf lets SCHED_FIFO run, the idle leaf yields
its CPU to it and kill reaches other sessions; on a made-up tree, what
is written and what is said when nothing can be."""

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


def under_a_run():
    """The run leaf this process is in, where make check put it."""
    for line in my_group().splitlines():
        rel = line.split(":", 2)[2]
        if "/" + cpugroup.PREFIX in rel:
            return rel
    return None


@unittest.skipIf(os.geteuid() != 0, "cgroups need root")
class OnThisMachine(unittest.TestCase):
    # make check runs these once nothing else runs: the shares two of a
    # run's leaves get on one CPU move with whatever else wants it (a
    # smoke boot beside them gives the idle leaf several times its share)
    ALONE = True

    def setUp(self):
        if cpugroup.where() is None:
            self.skipTest("no CPU controller to write here")
        self.run_name = f"test-{os.getpid()}"

    def test_fifo_runs_in_the_guests_leaf(self):
        """Under make check, in the leaf this test already runs in; alone,
        in a run of its own, which leaves nothing behind."""
        here = under_a_run()
        path = cpugroup.run_dir(self.run_name, "guests")

        def fifo():
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))

        def body():
            if here is not None:
                if not here.endswith("/guests"):
                    return "make check left the host tests in " + here
                fifo()
                return None
            said = cpugroup.join(self.run_name, "guests")
            if "in " + path not in said or "real-time time)" not in said:
                return said
            if f"/{cpugroup.PREFIX}{self.run_name}/guests\n" not in \
                    my_group():
                return "not moved: " + my_group()
            fifo()
            cpugroup.leave(self.run_name, "guests")
            if cpugroup.PREFIX + self.run_name in my_group() or \
                    os.path.exists(os.path.dirname(path)):
                return "still there after leave"
            return None
        self.assertEqual(in_child(body), (0, ""))

    def test_kill_reaches_other_sessions(self):
        """What the lane started in a session of its own (as the runner
        starts QEMU) dies with the lane's leaf."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                cpugroup.join(self.run_name, "lane", idle=True)
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
            cpugroup.kill(self.run_name, "lane")
            end = time.monotonic() + 5
            while time.monotonic() < end and self.alive(away):
                time.sleep(0.05)
            self.assertFalse(self.alive(away))
        finally:
            if self.alive(away):
                os.kill(away, 9)
            cpugroup.leave(self.run_name, "lane")

    @staticmethod
    def alive(pid):
        """pid still runs (a zombie, whose parent is gone, does not)."""
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def test_idle_leaf_yields_to_the_guests(self):
        """Two spinners pinned to one CPU, one in each leaf of a run,
        started together: the idle one gets a small share of what the
        guests' one gets: under a thirtieth (about 1 in 130 here; a group
        of the default weight gets half)."""
        cpu = min(os.sched_getaffinity(0))
        r, w = os.pipe()
        go_r, go_w = os.pipe()
        kids = []
        for leaf, idle in (("lane", True), ("guests", False)):
            pid = os.fork()
            if pid == 0:
                os.close(r)
                os.close(go_w)
                try:
                    said = cpugroup.join(self.run_name, leaf, idle=idle)
                    os.sched_setaffinity(0, {cpu})
                    os.write(w, f"ready {said}\n".encode())
                    os.read(go_r, 1)
                    got = spin_cpu_s(SPIN_S)
                    os.write(w, f"{leaf} {got}\n".encode())
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
        for leaf in ("lane", "guests"):
            cpugroup.leave(self.run_name, leaf)
        self.assertFalse(os.path.exists(cpugroup.run_dir(self.run_name)))
        idle, heavy = float(got["lane"]), float(got["guests"])
        self.assertGreater(heavy, 30 * idle, (got, ready))


class MadeUpTree(unittest.TestCase):
    """A v1 tree of plain files: what join() writes where."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.base = self.tmp.name
        self.top = os.path.join(self.base, cpugroup.PREFIX + "r")
        for d in (self.base, self.top, os.path.join(self.top, "guests")):
            os.makedirs(d, exist_ok=True)
            self.put(d, "cpu.shares", 1024)
            self.put(d, "cpu.rt_runtime_us", 0)
        self.put(self.base, "cpu.rt_runtime_us", 950000)

    def tearDown(self):
        self.tmp.cleanup()

    @staticmethod
    def put(d, knob, value):
        with open(os.path.join(d, knob), "w") as f:
            f.write(f"{value}\n")

    def read(self, sub, knob):
        with open(os.path.join(self.top, sub, knob)) as f:
            return f.read().strip()

    def test_what_each_group_gets(self):
        with mock.patch.object(cpugroup, "V1_CPU", self.base):
            said = cpugroup.join("r", "guests")
            cpugroup.join("r", "lane", idle=True)
        self.assertIn("the run's real-time time", said)
        self.assertEqual((self.read("", "cpu.shares"),
                          self.read("", "cpu.rt_runtime_us"),
                          self.read("guests", "cpu.shares"),
                          self.read("guests", "cpu.idle"),
                          self.read("guests", "cpu.rt_runtime_us"),
                          self.read("guests", "cgroup.procs")),
                         ("102400", "950000", "1024", "0", "950000",
                          str(os.getpid())))
        self.assertEqual(self.read("lane", "cpu.idle"), "1")
        self.assertFalse(os.path.exists(os.path.join(self.top, "lane",
                                                     "cpu.rt_runtime_us")))

    def test_a_share_is_a_weight_without_real_time(self):
        with mock.patch.object(cpugroup, "V1_CPU", self.base):
            cpugroup.join("r", "guests")
            said = cpugroup.join("r", "smoke", share=1 / 8)
        self.assertIn("weight 128, no real-time time", said)
        self.assertEqual((self.read("smoke", "cpu.shares"),
                          self.read("smoke", "cpu.idle"),
                          self.read("guests", "cpu.rt_runtime_us")),
                         ("128", "0", "950000"))
        self.assertFalse(os.path.exists(os.path.join(self.top, "smoke",
                                                     "cpu.rt_runtime_us")))

    def test_v2_leaves_hand_down_no_controller(self):
        """A v2 leaf that enabled a controller for children could hold
        no process; only the run's group does."""
        for d in (self.top, os.path.join(self.top, "guests")):
            self.put(d, "cgroup.subtree_control", "")
        with mock.patch.object(cpugroup, "where",
                               lambda: (2, self.base)), \
                mock.patch.object(cpugroup, "_current", lambda v: "/"):
            cpugroup.join("r", "guests")
            cpugroup.join("r", "smoke", share=1 / 8)
        self.assertEqual((self.read("", "cgroup.subtree_control"),
                          self.read("guests", "cgroup.subtree_control"),
                          self.read("smoke", "cpu.weight")),
                         ("+cpu", "", "12"))
        self.assertFalse(os.path.exists(os.path.join(
            self.top, "smoke", "cgroup.subtree_control")))

    def test_least_weight_where_there_is_no_idle(self):
        os.makedirs(os.path.join(self.top, "lane", "cpu.idle"))
        with mock.patch.object(cpugroup, "V1_CPU", self.base):
            said = cpugroup.join("r", "lane", idle=True)
        self.assertIn("idle", said)
        self.assertEqual(self.read("lane", "cpu.shares"), "2")

    def test_no_real_time_left_is_said(self):
        os.unlink(os.path.join(self.top, "cpu.rt_runtime_us"))
        os.makedirs(os.path.join(self.top, "cpu.rt_runtime_us"))
        with mock.patch.object(cpugroup, "V1_CPU", self.base):
            said = cpugroup.join("r", "guests")
        self.assertIn("SCHED_FIFO is refused", said)

    def test_nothing_to_write_is_said(self):
        with mock.patch.object(cpugroup, "V1_CPU", self.base + "/none"), \
                mock.patch.object(cpugroup, "V2_ROOT", self.base + "/none"):
            said = cpugroup.join("g", "guests")
        self.assertIn("no CPU controller", said)
        self.assertFalse(os.path.exists(os.path.join(
            self.base, cpugroup.PREFIX + "g")))


if __name__ == "__main__":
    unittest.main()
