# SPDX-License-Identifier: GPL-2.0
"""jitread serve as a network service, natively with the user sampler on
CPU 1: idle and slow clients, however many, delay a scrape by less than a
second; one address holds at most 8 connections; and when accept fails
for want of descriptors the server backs off instead of spinning, and
serves again once they are free."""

import os
import resource
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from jitpy.fleet.prom import get, serving_url, wait_for
from tests.host import jrcli

CPU = 1
PER_PEER = 8
SCRAPE_S = 1.0
NOFILE = 120  # serve's descriptor limit in the EMFILE test


def usable():
    return jrcli.native_root("BPF needs root")


def connect(port, source):
    """A connection to the server from source (an address on lo)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def closed_by_server(s):
    """The server has closed s (or reset it)."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


def thread_cpu_s(pid, comm):
    """CPU time of pid's thread named comm, s."""
    task = f"/proc/{pid}/task"
    for tid in os.listdir(task):
        with open(f"{task}/{tid}/comm") as f:
            if f.read().strip() != comm:
                continue
        with open(f"{task}/{tid}/stat") as f:
            st = f.read().rsplit(")", 1)[1].split()
        return (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
    raise AssertionError(f"no thread {comm} in {pid}")


@unittest.skipIf(usable(), usable())
class ServeLoad(unittest.TestCase):
    def start(self, nofile=None):
        """jitread serve on a free port: (process, port)."""
        def limit():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        ready = os.path.join(tmp.name, "ready")
        p = subprocess.Popen([jrcli.JITREAD, "serve", "--sampler", "user",
                              "-c", str(CPU), "-d", "60s", "--listen",
                              "127.0.0.1:0", "--ready-file", ready],
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=limit)
        self.addCleanup(self.stop, p)
        url = serving_url(p)
        self.assertTrue(url, "no serving line")
        wait_for(lambda: os.path.exists(ready), 30, "serve ready")
        return p, int(url.rsplit(":", 1)[1].split("/")[0])

    @staticmethod
    def stop(p):
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        try:
            return p.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return ""

    def scrape_time(self, port):
        t0 = time.monotonic()
        status, _, body = get(f"http://127.0.0.1:{port}/metrics",
                              timeout=10)
        took = time.monotonic() - t0
        self.assertEqual(status, 200)
        self.assertIn("jitread_sampled_seconds_total", body)
        return took

    def test_idle_and_slow_clients_do_not_delay_a_scrape(self):
        p, port = self.start()
        held = []
        try:
            # 200 idle connections from 25 addresses, then 40 that send
            # the start of a request and nothing more
            for i in range(200):
                held.append(connect(port, f"127.0.1.{i % 25 + 1}"))
            for i in range(40):
                s = connect(port, f"127.0.2.{i + 1}")
                s.sendall(b"GET /metr")
                held.append(s)
            time.sleep(0.5)
            took = [self.scrape_time(port) for _ in range(5)]
            self.assertLess(max(took), SCRAPE_S, took)
        finally:
            for s in held:
                s.close()
        err = self.stop(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertRegex(err, r"served [1-9]\d* answer\(s\), refused \d+, "
                              r"dropped [1-9]\d* connection\(s\)")

    def test_one_address_holds_at_most_eight(self):
        _, port = self.start()
        held = [connect(port, "127.0.3.1") for _ in range(20)]
        try:
            time.sleep(0.5)
            gone = [closed_by_server(s) for s in held]
            # the oldest gave way to the newest
            self.assertEqual(gone, [True] * (20 - PER_PEER) +
                             [False] * PER_PEER)
            self.assertLess(self.scrape_time(port), SCRAPE_S)
        finally:
            for s in held:
                s.close()

    def test_out_of_descriptors_backs_off(self):
        p, port = self.start(nofile=NOFILE)
        spare = NOFILE - len(os.listdir(f"/proc/{p.pid}/fd"))
        if spare < 4:
            self.skipTest(f"serve uses {NOFILE - spare} descriptors")
        held = []
        try:
            # one connection per address, so that no limit of the
            # server's refuses them: past its spare descriptors, only
            # accept's EMFILE can
            for i in range(spare + 30):
                held.append(connect(port, f"127.0.4.{i + 1}"))
            t0 = thread_cpu_s(p.pid, "jitread-http")
            time.sleep(2)
            spent = thread_cpu_s(p.pid, "jitread-http") - t0
            self.assertLess(spent, 0.5, "the server spun on accept")
        finally:
            for s in held:
                s.close()
        wait_for(lambda: self.try_scrape(port), 10,
                 "a scrape once the clients left")
        err = self.stop(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertRegex(err, r"accept backed off [1-9]\d* time\(s\)")

    def try_scrape(self, port):
        try:
            return get(f"http://127.0.0.1:{port}/metrics",
                       timeout=2)[0] == 200
        except OSError:
            return False


if __name__ == "__main__":
    unittest.main()
