# SPDX-License-Identifier: GPL-2.0
"""jitread serve as a network service, natively with the user sampler on
CPU 1: idle and slow clients, however many, delay a scrape by less than a
second; one address holds at most 8 connections; the server runs in a
process of its own, under an id no other process has, with every
capability set empty, under a seccomp filter and a memory limit, and
dies with serve; it outlives a stop and continue, and waits for serve's
first refresh however long that takes; serve starts another when it
dies, at most 5 times, and the new one serves rounds of concurrent
scrapes; serve ends on SIGTERM within seconds even when its server is
stopped; and serve takes a socket that systemd passes.  (Its
back-off when accept fails, and stalled readers, are tested on the loop
itself, tests/host/c/http_test.c and http_slow_test.c.)"""

import http.client
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

from jitpy.fleet.prom import OPENMETRICS, PROTOBUF, get, serving_url, \
    wait_for
from tests.host import jrcli

CPU = 1
PER_PEER = 8
SCRAPE_S = 1.0
# the server's and serve's deadline for each send and read between them
# (JR_SEP_EXCHANGE_MS)
EXCHANGE_S = 5
UNIT = os.path.join(jrcli.TOP, "dist", "jitread-serve.service")


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
    """The pid of serve's server process (a child named jitread-http, of
    any of serve's threads), None when it has none alive."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                children = f.read().split()
        except FileNotFoundError:
            continue
        for child in children:
            try:
                with open(f"/proc/{child}/comm") as c:
                    name = c.read().strip()
                if name == "jitread-http" and \
                        status(child)["State"].split()[0] != "Z":
                    return int(child)
            except FileNotFoundError:
                continue
    return None


def new_server(pid, old, secs=10):
    """The pid of a server process of serve other than old, once one
    runs."""
    found = []
    wait_for(lambda: found.append(server_of(pid)) or
             found[-1] not in (None, old), secs, "a new server process")
    return found[-1]


def unit_privileges():
    """setpriv's arguments for the unit's own privileges: its SecureBits,
    no new privileges, and its ambient capabilities as every set but the
    permitted one, less any that this machine's bounding set lacks (a
    container's)."""
    with open(UNIT) as f:
        text = f.read()
    caps = re.search(r"^AmbientCapabilities=(.*)$", text, re.M).group(1)
    bits = re.search(r"^SecureBits=(.*)$", text, re.M).group(1)
    bnd = int(status("self")["CapBnd"], 16)
    have = [c[4:].lower() for c in caps.split()
            if bnd >> CAP_NUMBERS[c] & 1]
    names = "-all," + ",".join("+" + c for c in have)
    return ["setpriv", "--securebits",
            ",".join("+" + b.replace("-", "_") for b in bits.split()),
            "--no-new-privs", "--inh-caps", names, "--ambient-caps", names,
            "--bounding-set", names, "--"]


# capability numbers (linux/capability.h) of those the unit names
CAP_NUMBERS = {"CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_IPC_LOCK": 14,
               "CAP_SYS_NICE": 23, "CAP_SYS_RESOURCE": 24, "CAP_SYSLOG": 34,
               "CAP_PERFMON": 38, "CAP_BPF": 39}


def status(pid):
    """/proc/PID/status as a dict of its fields."""
    with open(f"/proc/{pid}/status") as f:
        return dict(ln.split(":", 1) for ln in f.read().splitlines()
                    if ":" in ln)


@unittest.skipIf(usable(), usable())
class ServeLoad(unittest.TestCase):
    def spawn(self, *extra, prefix=()):
        """jitread serve on a free port, its command after prefix, just
        started: (process, its ready file)."""
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        ready = os.path.join(tmp.name, "ready")
        p = subprocess.Popen([*prefix, jrcli.JITREAD, "serve", "--sampler",
                              "user",
                              "-c", str(CPU), "-d", "60s", "--listen",
                              "127.0.0.1:0", "--ready-file", ready, *extra],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(self.stop, p)
        return p, ready

    def serving(self, p, ready):
        """The port serve says it serves on, once it is ready."""
        url = serving_url(p)
        self.assertTrue(url, "no serving line")
        wait_for(lambda: os.path.exists(ready), 30, "serve ready")
        return int(url.rsplit(":", 1)[1].split("/")[0])

    def start(self, *extra, prefix=()):
        """jitread serve on a free port, its command after prefix, once
        it serves: (process, port)."""
        p, ready = self.spawn(*extra, prefix=prefix)
        return p, self.serving(p, ready)

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
        """The process that reads requests has a uid and gid that no
        account names and no other process has, no groups, every
        capability set empty (the bounding set too: serve runs here as
        root, with CAP_SETPCAP), no new privileges, a seccomp filter, a
        limit on its address space, and only its sockets and the
        standard streams open."""
        p, port = self.start()
        child = server_of(p.pid)
        st = {k: v.split() for k, v in status(child).items()}
        uid = int(st["Uid"][0])
        self.assertEqual(st["Uid"], [str(uid)] * 4)
        self.assertEqual(st["Gid"], [str(uid)] * 4)
        self.assertNotIn(uid, (0, 65534))
        with self.assertRaises(KeyError):
            pwd.getpwuid(uid)
        others = [pid for pid in os.listdir("/proc") if pid.isdigit() and
                  int(pid) != child and os.path.exists(f"/proc/{pid}/status")
                  and str(uid) in status(pid).get("Uid", "").split()]
        self.assertEqual(others, [])
        self.assertEqual(st["Groups"], [])
        for caps in ("CapPrm", "CapEff", "CapInh", "CapAmb", "CapBnd"):
            self.assertEqual(int(st[caps][0], 16), 0, caps)
        self.assertEqual(st["NoNewPrivs"], ["1"])
        self.assertEqual(st["Seccomp"], ["2"])
        with open(f"/proc/{child}/limits") as f:
            limit = [ln.split()[3] for ln in f
                     if ln.startswith("Max address space")]
        self.assertNotEqual(limit, ["unlimited"])
        self.assertEqual(sorted(int(fd) for fd in
                                os.listdir(f"/proc/{child}/fd")),
                         [0, 1, 2, 3, 4])
        self.assertLess(self.scrape_time(port), SCRAPE_S)

    def test_two_serves_have_different_ids(self):
        """Two serves at once: neither server process can signal the
        other's."""
        p, _ = self.start()
        q, _ = self.start()
        ids = {status(server_of(x.pid))["Uid"].split()[0] for x in (p, q)}
        self.assertEqual(len(ids), 2, ids)

    def test_server_survives_stop_and_continue(self):
        """A stop and continue (^Z and fg, a cgroup freezer) resumes the
        server's poll through restart_syscall, which its filter allows:
        the same process answers after it."""
        p, port = self.start()
        child = server_of(p.pid)
        os.kill(child, signal.SIGSTOP)
        time.sleep(0.5)
        os.kill(child, signal.SIGCONT)
        time.sleep(0.5)
        self.assertLess(self.scrape_time(port), SCRAPE_S)
        self.assertEqual(server_of(p.pid), child)
        err = self.stop(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("started again 0 time(s)", err)

    def test_a_slow_first_refresh_keeps_its_server(self):
        """serve's first refresh, before its go, can take longer than an
        exchange may (a BPF load under TCG): the server waits for the go
        as long as that takes.  serve is stopped while its server waits,
        for longer than an exchange's deadline; the same server answers
        after, and none was started again."""
        for _ in range(5):
            p, ready = self.spawn()
            # before stop's SIGINT, should a check fail
            self.addCleanup(p.send_signal, signal.SIGCONT)
            child = self.waiting_server(p.pid, 30)
            os.kill(p.pid, signal.SIGSTOP)
            time.sleep(0.3)
            # the go may have gone just before the stop: then again
            if self.waiting_server(p.pid, 0) == child:
                break
            os.kill(p.pid, signal.SIGCONT)
            self.stop(p)
        else:
            self.fail("serve never stopped before its server's go")
        time.sleep(EXCHANGE_S + 1)
        self.assertEqual(self.waiting_server(p.pid, 0), child,
                         "the server did not wait for serve's go")
        os.kill(p.pid, signal.SIGCONT)
        port = self.serving(p, ready)
        self.assertLess(self.scrape_time(port), SCRAPE_S)
        self.assertEqual(server_of(p.pid), child)
        err = self.stop(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertNotIn("starting another", err)
        self.assertIn("started again 0 time(s)", err)

    @staticmethod
    def waiting_server(pid, secs):
        """serve's server once it waits for the go (reads its end of the
        pair, descriptor 4) within secs, else None."""
        t0 = time.monotonic()
        while True:
            child = server_of(pid)
            try:
                with open(f"/proc/{child}/syscall") as f:
                    if child and f.read().split()[:2] == ["0", "0x4"]:
                        return child
            except (FileNotFoundError, ProcessLookupError):
                pass
            if time.monotonic() - t0 >= secs:
                return None
            time.sleep(0.001)

    def test_a_dead_server_is_started_again(self):
        """serve starts another server process when one dies, says so,
        and serves on; the new one blocks no signal, as the first."""
        p, port = self.start()
        child = server_of(p.pid)
        os.kill(child, signal.SIGKILL)
        child = new_server(p.pid, child)
        # started from serve's page thread, which blocks every signal
        self.assertEqual(int(status(child)["SigBlk"], 16), 0)
        self.assertLess(self.scrape_time(port), SCRAPE_S)
        err = self.stop(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("the server process died of signal 9 (Killed); "
                      "starting another (1 of 5)", err)
        self.assertIn("started again 1 time(s)", err)

    @staticmethod
    def scrape_rounds(port, rounds=10, clients=32):
        """rounds of clients concurrent scrapes from 4 addresses (within
        the 8 each may hold), in turn text, OpenMetrics and protobuf:
        the set of (status or error, round) seen."""
        kinds = (None, OPENMETRICS, PROTOBUF)

        def one(i, r):
            c = http.client.HTTPConnection(
                "127.0.0.1", port, timeout=10,
                source_address=(f"127.0.4.{i % 4 + 1}", 0))
            try:
                kind = kinds[(i + r) % 3]
                c.request("GET", "/metrics",
                          headers={"Accept": kind} if kind else {})
                reply = c.getresponse()
                return reply.status, len(reply.read())
            except OSError as e:
                return type(e).__name__, 0
            finally:
                c.close()

        seen = set()
        with ThreadPoolExecutor(clients) as pool:
            for r in range(rounds):
                seen |= {(st, r) for st, _ in pool.map(
                    lambda i: one(i, r), range(clients))}
        return seen

    def test_a_restarted_server_serves_concurrent_scrapes(self):
        """After a restart, from serve's page thread, the new server
        answers round after round of 32 concurrent scrapes of every
        format, pages of 16 KiB or more, and lives on; the first one's
        rounds as a control.  As root and under the unit's own
        privileges.  (A server forked from a thread other than the main
        one grows that thread's malloc arena with mprotect.)"""
        busy = subprocess.Popen(["taskset", "-c", str(CPU), "sh", "-c",
                                 "while :; do sleep 0.001; done"])
        try:
            for prefix in ((), tuple(unit_privileges())):
                with self.subTest(unit=bool(prefix)):
                    self.restart_under_load(prefix)
        finally:
            busy.kill()
            busy.wait()

    def restart_under_load(self, prefix):
        p, port = self.start("--refresh", "500ms", prefix=prefix)
        url = f"http://127.0.0.1:{port}/metrics"
        wait_for(lambda: len(get(url)[2]) >= 16384, 30,
                 "a page of 16 KiB (the shell's sources)")
        first = server_of(p.pid)
        before = self.scrape_rounds(port)
        self.assertEqual({st for st, _ in before}, {200}, before)
        self.assertEqual(server_of(p.pid), first)
        os.kill(first, signal.SIGKILL)
        child = new_server(p.pid, first)
        after = self.scrape_rounds(port)
        self.assertEqual({st for st, _ in after}, {200}, sorted(
            after, key=str)[:6])
        self.assertEqual(server_of(p.pid), child, "the new server died")
        err = self.stop(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("started again 1 time(s)", err)

    def test_serve_stops_after_five_new_starts(self):
        """A server that keeps dying stops serve, with status 1 and why,
        and its outputs written."""
        out = os.path.join(tempfile.mkdtemp(), "run.json")
        self.addCleanup(shutil.rmtree, os.path.dirname(out))
        p, _ = self.start("--json", out)
        child = server_of(p.pid)
        for _ in range(6):
            os.kill(child, signal.SIGKILL)
            if _ < 5:
                child = new_server(p.pid, child)
        err = p.communicate(timeout=30)[1]
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("the server process died of signal 9 (Killed), "
                      "after 5 new start(s): serve stops", err)
        self.assertTrue(os.path.getsize(out) > 0)

    def test_sigterm_ends_serve_with_its_server_stopped(self):
        """A stopped server holds nothing: SIGTERM ends serve within the
        server's 2 s and a margin, with status 0 and its outputs."""
        out = os.path.join(tempfile.mkdtemp(), "run.json")
        self.addCleanup(shutil.rmtree, os.path.dirname(out))
        p, port = self.start("--json", out)
        self.scrape_time(port)
        os.kill(server_of(p.pid), signal.SIGSTOP)
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        err = p.communicate(timeout=30)[1]
        took = time.monotonic() - t0
        self.assertEqual(p.returncode, 0, err)
        self.assertLess(took, 10, err)
        self.assertIn("did not end within 2000 ms; killed", err)
        self.assertTrue(os.path.getsize(out) > 0)

    def test_sigterm_ends_serve_with_its_server_stopped_as_the_unit(self):
        """Under the unit's own privileges serve has no CAP_KILL and its
        server another id: the kill still lands, serve says so and ends
        in time with its outputs, and the stopped server is gone."""
        out = os.path.join(tempfile.mkdtemp(), "run.json")
        self.addCleanup(shutil.rmtree, os.path.dirname(out))
        p, port = self.start("--json", out, prefix=unit_privileges())
        self.assertEqual(int(status(p.pid)["CapEff"], 16) >> 5 & 1, 0,
                         "serve has CAP_KILL")
        self.scrape_time(port)
        child = server_of(p.pid)
        os.kill(child, signal.SIGSTOP)
        p.send_signal(signal.SIGTERM)
        try:
            err = p.communicate(timeout=15)[1]
        except subprocess.TimeoutExpired:
            self.fail(f"serve still runs 15 s after SIGTERM, its server "
                      f"{status(child)['State']}")
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("did not end within 2000 ms; killed", err)
        self.assertTrue(os.path.getsize(out) > 0)
        self.assertFalse(os.path.exists(f"/proc/{child}") and
                         status(child)["State"].split()[0] != "Z",
                         f"the server {child} outlived serve")

    def test_server_dies_with_serve(self):
        """A SIGKILLed serve takes its server process with it."""
        p, _ = self.start()
        child = server_of(p.pid)
        p.kill()
        p.wait()
        wait_for(lambda: not os.path.exists(f"/proc/{child}") or
                 status(child)["State"].split()[0] == "Z", 10,
                 "the server process ending")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@unittest.skipIf(usable(), usable())
@unittest.skipUnless(shutil.which("systemd-socket-activate"),
                     "no systemd-socket-activate (systemd)")
class SocketActivation(unittest.TestCase):
    """systemd-socket-activate binds the port and starts serve at the
    first connection with the socket passed (LISTEN_FDS), as
    jitread-serve.socket does under systemd."""

    def activate(self, *extra):
        port = free_port()
        p = subprocess.Popen(
            ["systemd-socket-activate", "-l", f"127.0.0.1:{port}",
             jrcli.JITREAD, "serve", "--sampler", "user", "-c", str(CPU),
             "-d", "20s", *extra], stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        self.addCleanup(ServeLoad.stop, p)
        wait_for(lambda: socket.create_connection(("127.0.0.1", port),
                                                  timeout=1).close()
                 is None, 10, "systemd-socket-activate listening")
        return p, port

    def test_serves_on_the_passed_socket(self):
        p, port = self.activate()
        status_code, _, body = get(f"http://127.0.0.1:{port}/metrics",
                                   timeout=30)
        self.assertEqual(status_code, 200)
        self.assertIn("jitread_sampled_seconds_total", body)
        err = ServeLoad.stop(p)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn(f"serving http://127.0.0.1:{port}/metrics", err)

    def test_listen_and_a_passed_socket_refused(self):
        p, port = self.activate("--listen", "127.0.0.1:0")
        try:
            get(f"http://127.0.0.1:{port}/metrics", timeout=5)
        except OSError:
            pass
        err = p.communicate(timeout=30)[1]
        self.assertEqual(p.returncode, 2, err)
        self.assertIn("systemd passed a socket to serve on; give one or "
                      "the other", err)


if __name__ == "__main__":
    unittest.main()
