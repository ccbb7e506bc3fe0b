# SPDX-License-Identifier: GPL-2.0
"""jitread-serve.service and .socket on this machine, whose PID 1 is not
systemd (tests/host/test_deb_install.py starts them under systemd in a
guest): systemd-analyze verify is clean (the units against an installed
jitread and its man pages), systemd-analyze security --offline scores the
service 4.0 or less, and its ExecStart line runs under every privilege
setting the unit has, read from the unit (the securebits, the ambient
set, the bounding set, no_new_privs and the umask): it serves,
classifies gaps with BPF, and ends cleanly on SIGTERM as systemd stops
it.  The mount namespace, the IP and system call filters, and jitmod's
settings put back on stop are left to the guest."""

import ctypes
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
SOCKET = os.path.join(TOP, "dist", "jitread-serve.socket")
DEFAULT = os.path.join(TOP, "dist", "jitread-serve.default")
# the settings that decide the service's credentials: each is applied by
# apply_unit_privileges, and the unit may use no other
PRIVILEGE_KEYS = {"CapabilityBoundingSet", "AmbientCapabilities",
                  "SecureBits", "NoNewPrivileges", "UMask"}
CREDENTIAL_KEYS = PRIVILEGE_KEYS | {
    "User", "Group", "DynamicUser", "SupplementaryGroups", "PrivateUsers",
    "SetCredential", "LoadCredential"}


def unit_values(key, unit=UNIT):
    """Every value the unit gives key, in order."""
    with open(unit) as f:
        return [ln.split("=", 1)[1].strip() for ln in f
                if ln.startswith(key + "=")]


def unit_keys(unit=UNIT):
    """The keys the unit sets."""
    with open(unit) as f:
        return {ln.split("=", 1)[0] for ln in f
                if "=" in ln and ln[0] not in "#;["}


# linux/capability.h, linux/prctl.h and linux/securebits.h
CAP_NUMBERS = {"CAP_IPC_LOCK": 14, "CAP_SETGID": 6, "CAP_SETUID": 7,
               "CAP_SYS_NICE": 23, "CAP_SYS_RESOURCE": 24,
               "CAP_SYSLOG": 34, "CAP_PERFMON": 38, "CAP_BPF": 39}
SECUREBITS = {"keep-caps": 4, "keep-caps-locked": 5, "no-setuid-fixup": 2,
              "no-setuid-fixup-locked": 3, "noroot": 0,
              "noroot-locked": 1}
PR_CAPBSET_READ, PR_CAPBSET_DROP, PR_SET_SECUREBITS = 23, 24, 28
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 38, 47, 2


def unit_caps(key):
    """The capabilities a setting of the unit names, as numbers."""
    return [CAP_NUMBERS[c] for c in " ".join(unit_values(key)).split()]


def apply_unit_privileges():
    """In a child before exec, every privilege setting of the unit, read
    from it, in systemd's order: the securebits while CAP_SETPCAP is
    still held, the inheritable and ambient sets, the bounding set,
    no_new_privs, the umask."""
    libc = ctypes.CDLL(None, use_errno=True)

    def prctl(*args):
        args += (0,) * (5 - len(args))  # unused arguments must be 0
        if libc.prctl(*[ctypes.c_ulong(a) for a in args]) < 0:
            raise OSError(ctypes.get_errno(), f"prctl{args}")
    bits = sum(1 << SECUREBITS[b] for b in
               " ".join(unit_values("SecureBits")).split())
    if bits:
        prctl(PR_SET_SECUREBITS, bits)
    hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)  # version 3, this process
    data = (ctypes.c_uint32 * 6)()
    if libc.capget(hdr, data):
        raise OSError(ctypes.get_errno(), "capget")
    # as systemd does, what this process cannot have is left out (root
    # here lacks CAP_SYS_RESOURCE)
    ambient = [c for c in unit_caps("AmbientCapabilities")
               if data[1 + 3 * (c // 32)] >> (c % 32) & 1]
    for c in ambient:
        data[2 + 3 * (c // 32)] |= 1 << (c % 32)  # inheritable
    if libc.capset(hdr, data):
        raise OSError(ctypes.get_errno(), "capset")
    for c in ambient:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c)
    keep = set(unit_caps("CapabilityBoundingSet"))
    cap = 0
    while libc.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0:
        if cap not in keep:
            prctl(PR_CAPBSET_DROP, cap)
        cap += 1
    if unit_values("NoNewPrivileges") == ["yes"]:
        prctl(PR_SET_NO_NEW_PRIVS, 1)
    os.umask(int(unit_values("UMask")[0], 8))


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
            sock = os.path.join(d, "jitread-serve.socket")
            shutil.copyfile(SOCKET, sock)
            # Documentation= is checked with man where man-db is here
            man = [] if shutil.which("man") else ["--man=no"]
            p = subprocess.run(["systemd-analyze", "verify", *man, unit,
                                sock],
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
class Hardened(unittest.TestCase):
    def test_every_credential_setting_is_applied(self):
        """A setting of the unit that decides its credentials and that
        apply_unit_privileges does not apply would make the test below a
        test of something else."""
        self.assertEqual(unit_keys() & CREDENTIAL_KEYS,
                         unit_keys() & PRIVILEGE_KEYS)
        self.assertEqual(unit_values("NoNewPrivileges"), ["yes"])

    def test_execstart_under_the_units_limits(self):
        port = free_port()
        argv = [jrcli.JITREAD, "serve", "-q", "-c", "1", "--listen",
                f"127.0.0.1:{port}"]
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=apply_unit_privileges)
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
