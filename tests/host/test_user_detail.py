# SPDX-License-Identifier: GPL-2.0
"""The BPF classifier names what ran inside the user sampler's windows,
as jitmod does for its own: work items, timer_list and hrtimer callbacks.

A helper pinned to the sampled CPU waits on a UDP socket with a receive
timeout (schedule_timeout(): a timer_list, process_timeout, expiring in
the TIMER softirq) and sleeps with nanosleep (an hrtimer, hrtimer_wakeup,
expiring in the local_timer interrupt), while the test writes
/proc/sys/vm/stat_refresh, which runs refresh_vm_stats as a work item on
every CPU's kworker, and, from CPU 0, enables and disables a perf event
bound to the sampled CPU, which runs remote_function there by IPI
(smp_call_function_single).  Each must come out under its window's
source; the IPI with the CPU that asked.
"""

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from jitpy import abi
from jitpy.formats import report as jrjson
from tests.host import jrcli, test_user

CPU = 1
# the sampler runs RUN_S at least, and on until WRITES writes of REFRESH
# are done inside it, however long the host's load makes one take; at
# most LIMIT_S
RUN_S = 3
WRITES = 3
LIMIT_S = 60
REFRESH = "/proc/sys/vm/stat_refresh"

HELPER = (
    "import os, socket, struct, time\n"
    "open('/proc/self/comm', 'w').write('jrdetail')\n"
    f"os.sched_setaffinity(0, {{{CPU}}})\n"
    "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
    "s.bind(('127.0.0.1', 0))\n"
    "s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,\n"
    "             struct.pack('ll', 0, 3000))\n"
    "while True:\n"
    "    try:\n"
    "        s.recv(1)\n"
    "    except OSError:\n"
    "        pass\n"
    "    time.sleep(0.002)\n")


# perf_event_open(2) of a software event on CPU, from CPU 0: each enable
# and disable runs remote_function on CPU by IPI
PERF = (
    "import ctypes, fcntl, os, struct, sys, time\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "os.sched_setaffinity(0, {0})\n"
    "attr = bytearray(128)\n"
    "struct.pack_into('IIQ', attr, 0, 1, 128, 0)\n"
    "struct.pack_into('Q', attr, 40, 1)\n"
    "buf = (ctypes.c_char * 128).from_buffer(attr)\n"
    f"fd = libc.syscall(298, buf, -1, {CPU}, -1, 0)\n"
    "if fd < 0:\n"
    "    sys.exit(f'perf_event_open: errno {ctypes.get_errno()}')\n"
    "for _ in range(int(sys.argv[1])):\n"
    "    fcntl.ioctl(fd, 0x2400)\n"
    "    fcntl.ioctl(fd, 0x2401)\n"
    "    time.sleep(0.01)\n")
PERF_N = 50


def unusable():
    """test_user's reasons to skip (no jitread, no CPU 1, no root), or
    that the work item's trigger is not ours to write."""
    if test_user.usable():
        return test_user.usable()
    if not os.access(REFRESH, os.W_OK):
        return f"cannot write {REFRESH}"
    return None


def refresh_until(stop, took):
    """Write REFRESH every 0.3 s until stop is set: each write runs
    refresh_vm_stats as a work item on every CPU, and returns when every
    CPU has run it.  took gets each write's seconds, for a failure to
    say whether the work items ran at all."""
    while not stop.is_set():
        t0 = time.monotonic()
        with open(REFRESH, "w") as f:
            f.write("1")
        took.append(round(time.monotonic() - t0, 3))
        stop.wait(0.3)


def btf_has(tp):
    """Whether the kernel's BTF has tracepoint tp's type, as the loader
    checks; None when the BTF cannot be read here."""
    try:
        with open("/sys/kernel/btf/vmlinux", "rb") as f:
            return f"btf_trace_{tp}".encode() + b"\0" in f.read()
    except OSError:
        return None


@unittest.skipIf(unusable(), unusable())
class UserDetail(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        out = os.path.join(cls.tmp.name, "u.json")
        ready = os.path.join(cls.tmp.name, "ready")
        helper = subprocess.Popen([sys.executable, "-c", HELPER])
        try:
            jr = subprocess.Popen(
                [jrcli.JITREAD, "user", "-c", str(CPU), "-d", f"{LIMIT_S}s",
                 "--no-pipeline", "-q", "--json", out, "--ready-file",
                 ready], stderr=subprocess.PIPE, text=True)
            end = time.monotonic() + 30
            while not os.path.exists(ready) and jr.poll() is None and \
                    time.monotonic() < end:
                time.sleep(0.05)
            # the work items come from the sampler's start to its end,
            # which waits for the perf helper and for WRITES writes
            start = time.monotonic()
            stop = threading.Event()
            cls.writes = []
            writer = threading.Thread(target=refresh_until,
                                      args=(stop, cls.writes))
            writer.start()
            try:
                cls.perf = subprocess.run([sys.executable, "-c", PERF,
                                           str(PERF_N)], capture_output=True,
                                          text=True)
                while jr.poll() is None and (
                        len(cls.writes) < WRITES or
                        time.monotonic() - start < RUN_S):
                    time.sleep(0.05)
                if jr.poll() is None:
                    jr.send_signal(signal.SIGINT)
                _, cls.err = jr.communicate()
            finally:
                stop.set()
                writer.join()
            cls.rc = jr.returncode
        finally:
            helper.kill()
            helper.wait()
        cls.data = jrjson.load(out) if cls.rc == 0 else None

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.rc, 0, self.err)
        self.cpu = self.data["cpus"][0]

    def rows(self, pred):
        """{detail name: count} over the sources whose name passes pred."""
        got = {}
        for s in self.cpu["sources"]:
            if pred(s["source"]):
                for r in s["detail"]:
                    got[r["name"]] = got.get(r["name"], 0) + r["count"]
        return got

    def test_details_named_are_the_kernels(self):
        want = [k for k in abi.DETAILS
                if all(btf_has(tp) for kind, tp in abi.DETAIL_TPS
                       if kind == k)]
        bpf = self.data["sampler"]["bpf"]
        self.assertEqual(bpf["details"], ",".join(want))
        self.assertEqual(self.data["system"]["details"], ",".join(want))

    def test_timer_callback_in_timer_softirq(self):
        got = self.rows(lambda s: s == "softirq:TIMER")
        self.assertGreaterEqual(got.get("timer:process_timeout", 0), 5, got)

    def test_hrtimer_callback_in_local_timer(self):
        got = self.rows(lambda s: s == "irq:local_timer")
        self.assertGreaterEqual(got.get("hrtimer:hrtimer_wakeup", 0), 5, got)

    def test_work_item_in_its_kworker(self):
        got = self.rows(lambda s: s.startswith(f"thread:kworker/{CPU}:"))
        kworkers = [(s["source"], s["count"]) for s in self.cpu["sources"]
                    if s["source"].startswith("thread:kworker/")]
        # each write done ran the item on CPU 1 inside the window; one
        # may run while another thread holds the sampler off its CPU
        self.assertGreaterEqual(
            got.get("work:refresh_vm_stats", 0), WRITES - 1,
            f"details {got}; {len(self.writes)} writes of {REFRESH}, "
            f"each done in (s) {self.writes}; the kworkers seen "
            f"{kworkers}")
        other = self.rows(lambda s: not s.startswith("thread:kworker/"))
        self.assertNotIn("work:refresh_vm_stats", other)

    def test_ipi_with_its_sender(self):
        if not btf_has("csd_queue_cpu"):
            self.skipTest("this kernel has no csd tracepoints")
        self.assertEqual(self.perf.returncode, 0, self.perf.stderr)
        got = self.rows(lambda s: s == "irq:call_function_single")
        rf = {k: n for k, n in got.items()
              if k.startswith("ipi:remote_function")}
        self.assertGreaterEqual(sum(rf.values()), PERF_N, got)
        # each enable and each disable is one IPI: PERF_N is half of them
        sent = sum(n for k, n in rf.items() if k.endswith(" from CPU 0"))
        self.assertGreaterEqual(sent, PERF_N, rf)
        other = self.rows(lambda s: s not in ("irq:call_function_single",
                                              "irq:call_function"))
        self.assertFalse([k for k in other if k.startswith("ipi:")], other)

    def test_callbacks_share_no_more_than_the_window(self):
        for s in self.cpu["sources"]:
            cb = [r for r in s["detail"] if not r["name"].startswith("tick:")]
            self.assertLessEqual(sum(r["total_ns"] for r in cb),
                                 s["total_ns"] + len(cb), s)


if __name__ == "__main__":
    unittest.main()
