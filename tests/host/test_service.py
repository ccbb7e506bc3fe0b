# SPDX-License-Identifier: GPL-2.0
"""jitread-serve.service as far as this machine allows: its PID 1 is not
systemd, so the unit cannot be started.  What is tested instead:
systemd-analyze verify is clean (the unit against an installed jitread and
its man pages), systemd-analyze security --offline scores it 4.0 or less,
and its ExecStart line runs under the unit's own capability bounding set,
no_new_privs and umask (setpriv): it serves, classifies gaps with BPF, and
ends cleanly on SIGTERM as systemd stops it.  Not tested here: the mount
namespace (ProtectSystem= and its ReadWritePaths=), the IP and system call
filters, and jitmod's settings put back on stop (the selftests' owner.py
does that for serve in a guest)."""

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

from tests.host import jrcli

TOP = jrcli.TOP
UNIT = os.path.join(TOP, "dist", "jitread-serve.service")
DEFAULT = os.path.join(TOP, "dist", "jitread-serve.default")


def unit_values(key):
    """Every value the unit gives key, in order."""
    with open(UNIT) as f:
        return [ln.split("=", 1)[1].strip() for ln in f
                if ln.startswith(key + "=")]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@unittest.skipUnless(shutil.which("systemd-analyze"), "no systemd-analyze")
class UnitFile(unittest.TestCase):
    def test_verify_is_clean(self):
        if not shutil.which("rst2man"):
            self.skipTest("rst2man missing (make deps)")
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["make", "-s", "-C", TOP, "install",
                            f"DESTDIR={d}", "PREFIX=/usr"], check=True,
                           capture_output=True)
            with open(UNIT) as f:
                text = f.read()
            self.assertIn("ExecStart=/usr/bin/jitread serve ", text)
            unit = os.path.join(d, "jitread-serve.service")
            with open(unit, "w") as f:
                f.write(text.replace("/usr/bin/jitread",
                                     os.path.join(d, "usr/bin/jitread")))
            # Documentation= is checked with man where man-db is here
            man = [] if shutil.which("man") else ["--man=no"]
            p = subprocess.run(["systemd-analyze", "verify", *man, unit],
                               capture_output=True, text=True, check=False,
                               env=dict(os.environ, MANPATH=os.path.join(
                                   d, "usr/share/man")))
        self.assertEqual((p.returncode, p.stdout + p.stderr), (0, ""))

    def test_exposure_at_most_4(self):
        p = subprocess.run(["systemd-analyze", "security", "--offline=yes",
                            UNIT], capture_output=True, text=True,
                           check=False)
        m = re.search(r"Overall exposure level for jitread-serve.service: "
                      r"([0-9.]+)", p.stdout)
        self.assertIsNotNone(m, p.stdout[-2000:] + p.stderr)
        print(f"\njitread-serve.service: exposure {m.group(1)}",
              file=__import__("sys").stderr)
        self.assertLessEqual(float(m.group(1)), 4.0)

    def test_default_file_is_shell(self):
        """/etc/default/jitread-serve is sourced by systemd as KEY=VALUE:
        one assignment, and the options in its comments parse."""
        with open(DEFAULT) as f:
            lines = [ln for ln in f if ln.strip() and ln[0] != "#"]
        self.assertEqual(lines, ['JITREAD_SERVE_OPTS=""\n'])
        with open(DEFAULT) as f:
            shown = re.findall(r'^#   JITREAD_SERVE_OPTS="([^"]*)"', f.read(),
                               re.M)
        self.assertEqual(len(shown), 2)
        for opts in shown:
            rc, out, err = jrcli.jitread("serve", *shlex.split(opts),
                                         "--help")
            self.assertEqual(rc, 0, f"{opts}: {err}")


@unittest.skipIf(jrcli.native_root("serve's BPF needs root"),
                 jrcli.native_root("serve's BPF needs root"))
@unittest.skipUnless(shutil.which("setpriv"), "no setpriv (util-linux)")
class Hardened(unittest.TestCase):
    def test_execstart_under_the_units_limits(self):
        caps = unit_values("CapabilityBoundingSet")[0].split()
        bounding = "-all," + ",".join(
            "+" + c[len("CAP_"):].lower() for c in caps)
        self.assertEqual(unit_values("NoNewPrivileges"), ["yes"])
        umask = int(unit_values("UMask")[0], 8)
        port = free_port()
        argv = ["setpriv", f"--bounding-set={bounding}", "--no-new-privs",
                "--", jrcli.JITREAD, "serve", "-q", "-c", "1", "--listen",
                f"127.0.0.1:{port}"]
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: os.umask(umask))
        body = ""
        try:
            for _ in range(100):
                try:
                    with urllib.request.urlopen(
                            f"http://127.0.0.1:{port}/metrics",
                            timeout=5) as r:
                        body = r.read().decode()
                    if re.search(r'^jitread_gaps_total\{cpu="1",'
                                 r'class="(irq|thread)"\} [1-9]', body,
                                 re.M):
                        break
                except OSError:
                    pass
                time.sleep(0.2)
        finally:
            p.send_signal(signal.SIGTERM)
            out, err = p.communicate(timeout=60)
        self.assertEqual((p.returncode, out, err), (0, "", ""))
        self.assertIn('jitread_build_info{version="', body)
        self.assertRegex(body, r'(?m)^jitread_gaps_total\{cpu="1",'
                               r'class="(irq|thread)"\} [1-9]')


if __name__ == "__main__":
    unittest.main()
