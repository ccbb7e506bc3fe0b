# SPDX-License-Identifier: GPL-2.0
"""jitread serve as a network service, natively with the user sampler on
CPU 1: idle and slow clients, however many, delay a scrape by less than a
second; one address holds at most 8 connections; and the server runs in
a process of its own as nobody, without capabilities, under a seccomp
filter, and dies with serve.  (Its back-off when accept fails is tested
on the loop itself, tests/host/c/http_test.c: the server process's own
descriptor limit leaves room for every connection it keeps.)"""

import os
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


def server_of(pid):
    """The pid of serve's server process (a child named jitread-http)."""
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        for child in f.read().split():
            with open(f"/proc/{child}/comm") as c:
                if c.read().strip() == "jitread-http":
                    return int(child)
    raise AssertionError(f"jitread serve {pid} has no server process")


def status(pid):
    """/proc/PID/status as a dict of its fields."""
    with open(f"/proc/{pid}/status") as f:
        return dict(ln.split(":", 1) for ln in f.read().splitlines()
                    if ":" in ln)


@unittest.skipIf(usable(), usable())
class ServeLoad(unittest.TestCase):
    def start(self):
        """jitread serve on a free port: (process, port)."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        ready = os.path.join(tmp.name, "ready")
        p = subprocess.Popen([jrcli.JITREAD, "serve", "--sampler", "user",
                              "-c", str(CPU), "-d", "60s", "--listen",
                              "127.0.0.1:0", "--ready-file", ready],
                             stderr=subprocess.PIPE, text=True)
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

    def test_parser_runs_unprivileged(self):
        """The process that reads requests is nobody, with no
        capabilities, no new privileges, a seccomp filter, and only its
        sockets and the standard streams open."""
        p, port = self.start()
        child = server_of(p.pid)
        st = {k: v.split() for k, v in status(child).items()}
        self.assertEqual(st["Uid"], ["65534"] * 4)
        self.assertEqual(st["Gid"], ["65534"] * 4)
        self.assertEqual(st["Groups"], [])
        for caps in ("CapPrm", "CapEff", "CapInh", "CapAmb"):
            self.assertEqual(int(st[caps][0], 16), 0, caps)
        self.assertEqual(st["NoNewPrivs"], ["1"])
        self.assertEqual(st["Seccomp"], ["2"])
        self.assertEqual(sorted(int(fd) for fd in
                                os.listdir(f"/proc/{child}/fd")),
                         [0, 1, 2, 3, 4])
        self.assertLess(self.scrape_time(port), SCRAPE_S)

    def test_server_dies_with_serve(self):
        """A SIGKILLed serve takes its server process with it."""
        p, _ = self.start()
        child = server_of(p.pid)
        p.kill()
        p.wait()
        wait_for(lambda: not os.path.exists(f"/proc/{child}") or
                 status(child)["State"].split()[0] == "Z", 10,
                 "the server process ending")


if __name__ == "__main__":
    unittest.main()
