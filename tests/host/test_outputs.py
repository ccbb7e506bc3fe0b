# SPDX-License-Identifier: GPL-2.0
"""jitread's outputs against hostile names and hostile paths.

Names: a task may name itself with terminal escapes or any bytes.  Text
output escapes control characters, JSON keeps valid UTF-8 as it is, and
CSV follows RFC 4180, so Python's csv module reads every name back.

Paths: run as root, jitread must not write through a directory, link or
file another user controls.  The planted objects here belong to nobody
(chown/lchown stand in for that user making them), and the check is
that the command is refused with one line and that no root file changed.
Every output path is checked before any measuring.
"""

import csv
import ctypes
import json
import os
import pwd
import socket
import stat
import subprocess
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

HOSTILE = ("x\x1b[2Jy", "caf\u00e9,\"q\"", "a\u009b1m")


IN_CREATE = 0x100
IN_MOVED_TO = 0x80


def created_names(directory, fn):
    """Names made in directory (created or moved in) while fn() runs,
    seen by inotify, so that even a name that lives a moment counts."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
    try:
        if libc.inotify_add_watch(fd, directory.encode(),
                                  IN_CREATE | IN_MOVED_TO) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")
        result = fn()
        names, buf = [], b""
        while True:
            try:
                buf += os.read(fd, 65536)
            except BlockingIOError:
                break
        while buf:
            size = int.from_bytes(buf[12:16], "little")
            names.append(buf[16:16 + size].rstrip(b"\0").decode())
            buf = buf[16 + size:]
        return result, names
    finally:
        os.close(fd)


def run(*args, timeout=120):
    """jitread with bytes out: (exit code, stdout bytes, stderr text)."""
    p = subprocess.run([jrcli.JITREAD, *args], capture_output=True,
                       check=False, timeout=timeout)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class HostileNames(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.rec = os.path.join(self.dir, "r.rec")
        recs = [jrrec.thread(1, 5000 + i, name, 100 + i)
                for i, name in enumerate(HOSTILE)]
        recs.append(jrrec.gap(1, 9000, "thread"))
        jrrec.write(self.rec, recs)

    def tearDown(self):
        self.tmp.cleanup()

    def keys(self):
        return {f"thread:{n}[{100 + i}]" for i, n in enumerate(HOSTILE)}

    def test_text_escapes_control_characters(self):
        rc, out, err = run("report", self.rec)
        self.assertEqual(rc, 0, err)
        self.assertNotIn(b"\x1b", out)
        self.assertNotIn("\u009b".encode(), out)
        self.assertIn(b"thread:x\\x1b[2Jy[100]", out)
        self.assertIn(b"thread:a\\xc2\\x9b1m[102]", out)
        self.assertIn("caf\u00e9".encode(), out, "UTF-8 shown as it is")

    def test_json_keeps_utf8(self):
        path = os.path.join(self.dir, "r.json")
        rc, _, err = run("report", self.rec, "-q", "--json", path)
        self.assertEqual(rc, 0, err)
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        got = {s["source"] for s in data["cpus"][0]["sources"]}
        self.assertEqual(got & self.keys(), self.keys())

    def test_csv_is_rfc4180(self):
        out = os.path.join(self.dir, "csv")
        rc, _, err = run("report", self.rec, "-q", "--csv", out)
        self.assertEqual(rc, 0, err)
        with open(os.path.join(out, "sources.csv"), newline="",
                  encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual({r["source"] for r in rows} & self.keys(),
                         self.keys())
        self.assertTrue(all(r["class"] == "thread" for r in rows), rows)


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
@unittest.skipUnless(os.geteuid() == 0, "needs root")
class HostilePaths(unittest.TestCase):
    """Each case names a path a root run must refuse, and what it says."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        os.chmod(self.dir, 0o755)
        self.nobody = pwd.getpwnam("nobody")
        self.rec = os.path.join(self.dir, "r.rec")
        jrrec.write(self.rec, [jrrec.gap(1, 5000)])
        self.victim = os.path.join(self.dir, "victim")
        with open(self.victim, "w") as f:
            f.write("root's\n")
        os.chmod(self.victim, 0o600)

    def tearDown(self):
        self.tmp.cleanup()

    def give(self, path):
        os.lchown(path, self.nobody.pw_uid, self.nobody.pw_gid)

    def sticky(self):
        """A world-writable sticky directory, as /tmp is: its json path."""
        d = os.path.join(self.dir, "sticky")
        os.mkdir(d)
        os.chmod(d, 0o1777)
        return os.path.join(d, "r.json")

    def refused(self, args, text, cmd=None):
        """Refused in one line, in seconds (an output that blocks would
        time out here), root's file untouched."""
        before = os.stat(self.victim)
        rc, out, err = run(*(cmd or ["report", self.rec]), "-q", *args,
                           timeout=20)
        self.assertEqual(rc, 1, err)
        self.assertIn(text, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        with open(self.victim) as f:
            self.assertEqual(f.read(), "root's\n")
        self.assertEqual(os.stat(self.victim).st_mtime_ns,
                         before.st_mtime_ns)

    def test_directory_of_another_user(self):
        d = os.path.join(self.dir, "theirs")
        os.mkdir(d)
        self.give(d)
        self.refused(["--csv", d], "belongs to uid")
        self.refused(["--json", os.path.join(d, "r.json")],
                     "belongs to uid")
        self.assertEqual(os.listdir(d), [])

    def test_directory_writable_by_others(self):
        d = os.path.join(self.dir, "open")
        os.mkdir(d)
        os.chmod(d, 0o777)
        self.refused(["--hgrm", d], "writable by others")
        self.assertEqual(os.listdir(d), [])

    def test_link_planted_in_a_sticky_directory(self):
        link = self.sticky()
        os.symlink(self.victim, link)
        self.give(link)
        self.refused(["--json", link], "r.json")

    def test_file_planted_in_a_sticky_directory(self):
        planted = self.sticky()
        with open(planted, "w") as f:
            f.write("theirs\n")
        self.give(planted)
        self.refused(["--json", planted], "not a file of ours alone")
        with open(planted) as f:
            self.assertEqual(f.read(), "theirs\n")

    def test_hard_link_to_a_root_file(self):
        link = self.sticky()
        os.link(self.victim, link)
        self.refused(["--json", link], "not a file of ours alone")

    def test_link_of_another_user_on_the_way(self):
        link = os.path.join(self.dir, "out")
        os.symlink(self.dir, link)
        self.give(link)
        self.refused(["--csv", os.path.join(link, "csv")], "is a link of uid")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "csv")))

    def test_fifo_device_or_socket_is_refused_at_once(self):
        """Outputs are regular files: a FIFO planted where --json goes
        (with no reader, and with one), a device and a socket are refused
        without blocking; the null device alone is allowed."""
        fifo = self.sticky()
        os.mkfifo(fifo)
        self.give(fifo)
        self.refused(["--json", fifo], "not a regular file")
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self.refused(["--json", fifo], "not a regular file")
            self.refused(["--hlog", fifo], "not a regular file")
        finally:
            os.close(reader)
        self.refused(["--json", "/dev/zero"], "not a regular file")
        sock = os.path.join(self.dir, "sock")
        s = socket.socket(socket.AF_UNIX)
        try:
            s.bind(sock)
            self.refused(["--json", sock], "not a regular file")
        finally:
            s.close()
        rc, _, err = run("report", self.rec, "-q", "--json", os.devnull)
        self.assertEqual(rc, 0, err)

    def test_ready_file_is_an_output_too(self):
        """--ready-file gets the trust checks of every output: a FIFO or a
        file of another user at its name, or a directory of another user,
        is refused before anything runs, and left as it was."""
        cmd = ["user", "-c", "1", "-d", "1s", "--no-pipeline"]
        fifo = self.sticky()
        os.mkfifo(fifo)
        self.give(fifo)
        self.refused(["--ready-file", fifo], "not a regular file", cmd)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        os.unlink(fifo)
        with open(fifo, "w") as f:
            f.write("theirs\n")
        self.give(fifo)
        self.refused(["--ready-file", fifo], "not a regular file of ours",
                     cmd)
        with open(fifo) as f:
            self.assertEqual(f.read(), "theirs\n")
        d = os.path.join(self.dir, "theirs")
        os.mkdir(d)
        self.give(d)
        self.refused(["--ready-file", os.path.join(d, "ready")],
                     "belongs to uid", cmd)
        self.assertEqual(os.listdir(d), [])

    def test_new_files_are_ours_alone(self):
        d = os.path.join(self.dir, "csv")
        j = os.path.join(self.dir, "r.json")
        rc, _, err = run("report", self.rec, "-q", "--csv", d, "--json", j)
        self.assertEqual(rc, 0, err)
        self.assertEqual(stat.S_IMODE(os.stat(d).st_mode), 0o700)
        for path in [j] + [os.path.join(d, f) for f in os.listdir(d)]:
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600,
                             path)

    def test_bad_path_costs_no_measuring(self):
        """A bad --json is refused before the user sampler starts: the
        ready file, made once sampling begins, never appears."""
        ready = os.path.join(self.dir, "ready")
        rc, out, err = run("user", "-c", "1", "-d", "60s", "--no-pipeline",
                           "--ready-file", ready, "--json",
                           os.path.join(self.dir, "missing", "u.json"))
        self.assertEqual(rc, 1, err)
        self.assertIn("missing", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertFalse(os.path.exists(ready))

    def test_ready_file_only_once_ready(self):
        """The check that the ready file can be made never makes it: a
        script that polls for it would take a run that fails (or is not
        yet set up) for one that samples."""
        ready = os.path.join(self.dir, "ready")
        (rc, _, err), names = created_names(
            self.dir, lambda: run("hist", "-c", "1", "-d", "1s",
                                  "--ready-file", ready, "--json",
                                  os.path.join(self.dir, "missing",
                                               "h.json")))
        self.assertEqual(rc, 1, err)
        self.assertTrue(names, "the ready file's check made no file")
        self.assertNotIn("ready", names)


if __name__ == "__main__":
    unittest.main()
