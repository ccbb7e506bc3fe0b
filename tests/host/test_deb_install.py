# SPDX-License-Identifier: GPL-2.0
"""The packages installed as a user installs them, end to end, for the
oldest generic and the newest rt kernel of the matrix (make kernels).

For each, mmdebstrap makes a root of its own (the host is left alone): the
Debian release that can run that kernel's build tools (Debian 12 for 5.10,
with bullseye's kernel and compiler; Debian 13 for 7.3, from
trixie-backports), with the kernel, its headers and DKMS.  There apt-get
install ./jitread_*.deb ./jitmod-dkms_*.deb has DKMS build jitmod for the
kernel.  QEMU boots the kernel on that root, where modprobe jitmod cpus=1
works and /usr/bin/jitread hist -d 5s prints a report, both at VERSION.
apt-get purge then leaves no file of ours behind.

Each root has its release's systemd (252 in Debian 12, 257 in Debian
13) and dbus: the guest boots once, with systemd as PID 1 (jitvm --init
systemd), on deterministic time (--clock icount), so that the host's
load moves none of the times it bounds.  There
tests/host/guest/serve_systemd.sh first loads jitmod and prints that
report, then runs jitread-serve.service and .socket as shipped: enabled
with JITREAD_SERVE_OPTS naming CPU 1, on jitmod and on the user sampler,
each answers a scrape within SCRAPE_S, still answers from the same
server process after systemctl freeze and thaw, and stops inactive with
status 0 and jitmod's settings put back.  On the user sampler its
server, killed with SIGKILL while four clients scrape, is replaced and
said so, and the new one answers ten rounds of four concurrent scrapes;
then, that server stopped, a SIGTERM to serve alone ends it within 10 s,
its textfile (in the unit's StateDirectory) served by Debian's
node_exporter to Debian's Prometheus, which evaluates the shipped rules,
and left frozen after, so that the shipped JitreadStale alert's age
grows.  A bad option leaves it failed
with status 2 and no restart; and the socket starts it at the first
scrape.

It needs root, mmdebstrap and Debian's archive (JITMOD_DEBIAN_MIRROR, as
make kernels), and takes the packages make deb built (test_deb builds
them first; this builds them when they are missing)."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

from jitpy.vm import runner as jitvm
from tests.host import deblock, jrcli

# make check runs these at nice 19 beside the guests: what they time,
# their guest times on deterministic time, where the host's load is not
# seen
BESIDE_GUESTS = True

TOP = jrcli.TOP
DEB_DIR = deblock.DEB_DIR
E2E = os.path.join(TOP, "build", "e2e")
MIRROR = os.environ.get("JITMOD_DEBIAN_MIRROR",
                        "http://deb.debian.org/debian")
# the release whose tools can build for a kernel of each suite
ROOT_SUITE = {"bullseye": "bookworm", "bookworm-backports": "bookworm",
              "trixie-backports": "trixie"}
# what of ours must be gone after apt purge, besides the dpkg database
OURS = ("jitread", "jitmod")
# a first scrape, in guest seconds from the unit's start
SCRAPE_S = 180
GUEST_SCRIPT = os.path.join(TOP, "tests", "host", "guest",
                            "serve_systemd.sh")
BOOKKEEPING = ("var/lib/dpkg/", "var/log/", "var/cache/", "var/lib/apt/")


def why_not():
    if os.geteuid() != 0:
        return "needs root (mmdebstrap, chroot)"
    for tool in ("mmdebstrap", "qemu-system-x86_64", "busybox", "unshare"):
        if not shutil.which(tool):
            return f"{tool} missing (make deps)"
    if not os.access(jitvm.ICOUNT_QEMU, os.X_OK):
        return f"no QEMU for deterministic time: {jitvm.ICOUNT_HINT}"
    rows = jitvm.kernel_matrix()
    if rows is None:
        return "no build/kernels/status.tsv: run make kernels"
    return None


def shipped_rules():
    """The rules of dist/jitread.rules.yml, as Prometheus loads them."""
    with open(os.path.join(TOP, "dist", "jitread.rules.yml")) as f:
        return [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]


def stale_age():
    """The age that the shipped JitreadStale alert compares with its
    limit: its expression's left-hand side."""
    expr = next(r["expr"] for r in shipped_rules()
                if r.get("alert") == "JitreadStale")
    age, limit = expr.rsplit(">", 1)
    float(limit)
    return age.strip()


def _eq(want):
    return want, lambda v: v == want


def _num(test, text, kind=int):
    def ok(v):
        try:
            return test(kind(v))
        except (TypeError, ValueError):
            return False
    return text, ok


def serve_checks():
    """What serve_systemd.sh's RESULT lines must say: (key, what is
    wanted, test of the value) for each."""
    rules = len(shipped_rules())
    checks = [("systemd_pid1", *_eq("systemd")),
              ("exposure", *_num(lambda x: x <= 4.0, "at most 4.0", float)),
              ("bad_option", *_eq("failed/2/0")),
              ("socket_before", *_eq("inactive")),
              ("socket_after", *_eq("active"))]
    for case in ("jitmod", "user", "socket"):
        checks.append((f"{case}.scrape_s",
                       f"seconds (an answer within {SCRAPE_S} s)",
                       lambda v: bool(v) and v.isdigit()))
    for case in ("jitmod", "user"):
        checks += [(f"{case}.freezer", *_eq("frozen")),
                   (f"{case}.after_thaw", "seconds",
                    lambda v: bool(v) and v.isdigit()),
                   (f"{case}.same_server", *_eq("yes")),
                   (f"{case}.stopped", *_eq("inactive/success/0")),
                   (f"{case}.server_left", *_eq("none"))]
    checks += [
        ("jitmod.params_set", *_eq("yes")),
        ("jitmod.params_back", *_eq("yes")),
        # the user case stops serve with its server stopped: serve kills
        # it under the unit's privileges, says so, and ends well within
        # TimeoutStopSec; before that its server, killed while four
        # clients scrape, is replaced; the new one answers ten rounds of
        # four at once, and serve says so
        ("user.restart_server", *_eq("yes")),
        ("user.restart_rounds", *_eq("10/10")),
        ("user.restart_active", *_eq("active")),
        ("user.restart_said", *_eq("1")),
        ("user.stop_s", *_num(lambda n: n <= 10, "at most 10")),
        ("user.kill_said", *_num(lambda n: n >= 1, "at least 1")),
        # its textfile is in the unit's StateDirectory, and Debian's
        # node_exporter on that directory, as fleet.rst says, serves its
        # series with no scrape error, a refresh time of the last
        # seconds, and after serve stops the same, frozen
        ("user.textfile", *_eq("root:644")),
        ("user.textfile_time", *_eq("1")),
        ("user.node_series", *_num(lambda n: n > 20, "over 20")),
        ("user.node_error", *_eq("0")),
        ("user.node_time", *_num(lambda n: abs(n) <= 10, "within 10")),
        ("user.node_after_stop", *_eq("frozen")),
        # Debian's Prometheus scraping that node_exporter: every shipped
        # rule loaded and healthy, serve's series, and JitreadStale's
        # age of the last seconds while serve runs (a 1 s refresh and a
        # 5 s scrape), growing after
        ("user.prom_rules", *_eq(f"{rules}/{rules}")),
        ("user.prom_series", *_num(lambda n: n > 20, "over 20")),
        ("user.prom_age", *_num(lambda n: abs(n) <= 15, "within 15")),
        ("user.prom_after_stop", *_eq("growing"))]
    return checks


def pick(flavour, last):
    """(suite, release) of the matrix's first or last fetched kernel of
    flavour, or None."""
    rows = [(s, rel) for s, f, rel, state, _ in jitvm.kernel_matrix() or ()
            if f == flavour and state == "ok" and s in ROOT_SUITE]
    return (rows[-1] if last else rows[0]) if rows else None


def run(argv, timeout=1800, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, check=False,
                       timeout=timeout, **kw)
    return p.returncode, p.stdout, p.stderr


class Installed:
    """One kernel's root: built once, then each step checked in order."""
    FLAVOUR = None
    LAST = False
    # make check's lanes begin the longest classes first (jitpy/harness/
    # tap.py): a root, DKMS at install and a boot on deterministic time,
    # about 700 s in a check for 5.10's root and 300 s for 7.3's
    CHECK_S = 700

    @classmethod
    def setUpClass(cls):
        got = pick(cls.FLAVOUR, cls.LAST)
        if not got:
            raise unittest.SkipTest(f"the matrix has no {cls.FLAVOUR} "
                                    "kernel fetched")
        cls.suite, cls.rel = got
        cls.root = os.path.join(E2E, cls.rel)
        with open(os.path.join(TOP, "VERSION")) as f:
            cls.ver = f.read().strip()
        names = [f"jitread_{cls.ver}_amd64.deb",
                 f"jitmod-dkms_{cls.ver}_all.deb"]
        # a copy of its own, taken whole: test_deb may be rebuilding
        # build/deb in the other lane
        cls.debs_dir = tempfile.mkdtemp(prefix="jitmod-e2e-debs-")
        debs = [os.path.join(cls.debs_dir, n) for n in names]
        with deblock.held():
            if not all(os.path.exists(os.path.join(DEB_DIR, n))
                       for n in names):
                rc, _, err = run(["make", "-s", "-C", TOP, "deb"])
                if rc:
                    raise AssertionError(f"make deb: {err[-3000:]}")
            for n in names:
                shutil.copyfile(os.path.join(DEB_DIR, n),
                                os.path.join(cls.debs_dir, n))
        base = ROOT_SUITE[cls.suite]
        shutil.rmtree(cls.root, ignore_errors=True)
        os.makedirs(E2E, exist_ok=True)
        inside = " ".join(f"/root/debs/{os.path.basename(d)}" for d in debs)
        # a backport's dependencies come from backports, as apt -t says
        target = f"-t {cls.suite} " if cls.suite.endswith("-backports") \
            else ""
        # in a mount namespace of its own: what a failed run leaves
        # mounted in the root goes with it
        rc, out, err = run(
            ["unshare", "--mount", "--", "mmdebstrap", "--variant=minbase",
             "--include=dkms,kmod,procps,systemd-sysv,dbus,"
             "prometheus-node-exporter,prometheus",
             # Prometheus runs only when the serve case starts it
             "--customize-hook=chroot \"$1\" systemctl disable prometheus",
             # the kernel's suite is not the root's: apt, not mmdebstrap's
             # own selection, takes its packages from there; jitvm boots
             # the kernel with an initramfs of its own, so the kernel's
             # hook is told to build none (INITRD=No, which
             # /etc/kernel/postinst.d/initramfs-tools reads)
             "--customize-hook=chroot \"$1\" env INITRD=No "
             "apt-get install -y "
             f"--no-install-recommends {target}linux-image-{cls.rel} "
             f"linux-headers-{cls.rel}",
             "--customize-hook=mkdir -p \"$1/root/debs\"",
             *[f"--customize-hook=copy-in {d} /root/debs" for d in debs],
             "--customize-hook=chroot \"$1\" apt-get install -y "
             f"--no-install-recommends {inside}",
             "--customize-hook=rm -r \"$1/root/debs\"",
             base, cls.root, f"deb {MIRROR} {base} main",
             f"deb {MIRROR} {cls.suite} main"])
        cls.install_log = out + err
        if rc:
            raise AssertionError(f"mmdebstrap {base} + {cls.suite}: exit "
                                 f"{rc}\n{cls.install_log[-4000:]}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(getattr(cls, "root", ""), ignore_errors=True)
        shutil.rmtree(getattr(cls, "debs_dir", ""), ignore_errors=True)

    def chroot(self, *argv):
        """A command in the root, with /proc for dkms and apt's hooks."""
        return run(["unshare", "--mount", "--", "sh", "-c",
                    f"mount -t proc proc {self.root}/proc && "
                    f"exec chroot {self.root} \"$@\"", "sh", *argv],
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive",
                            LC_ALL="C.UTF-8"))

    def ours_left(self):
        """Paths in the root that name jitread or jitmod, apart from apt's
        and dpkg's records."""
        left = []
        for d, dirs, files in os.walk(self.root):
            rel = os.path.relpath(d, self.root)
            for name in dirs + files:
                path = os.path.normpath(os.path.join(rel, name))
                if not path.startswith(BOOKKEEPING) and \
                        any(o in name for o in OURS):
                    left.append(path)
        return sorted(left)

    def test_1_dkms_built_at_install(self):
        """Over a minute with the class's set-up: mmdebstrap builds a root
        with the kernel, its headers and the packages, and DKMS compiles
        jitmod there at install, as a user's apt install does."""
        ko = glob.glob(os.path.join(self.root, "lib", "modules", self.rel,
                                    "updates", "dkms", "jitmod.ko*"))
        self.assertEqual(len(ko), 1, self.install_log[-3000:])
        rc, out, err = self.chroot("modinfo", "-k", self.rel, "-F",
                                   "version", "jitmod")
        self.assertEqual((rc, out.strip()), (0, self.ver), err)
        page = os.path.join(self.root, "usr/share/man/man1/"
                            "jitread-serve.1.gz")
        if shutil.which("man"):
            rc, out, err = run(["man", "-l", page])
            self.assertEqual(rc, 0, err)
            self.assertIn("jitread serve", out.replace("\b", ""))
        else:
            self.assertTrue(os.path.exists(page), page)

    def test_2_boots_loads_and_reports(self):
        """Over a minute: it makes the one boot (systemd_boot), and reads
        its REPORT lines: jitmod loaded, jitread's report, both at
        VERSION."""
        rc, out, err = self.systemd_boot()
        self.assertEqual(rc, 0, out[-3000:] + err[-2000:])
        report = "\n".join(ln[len("REPORT "):] for ln in out.splitlines()
                           if ln.startswith("REPORT "))
        self.assertIn(f"jitread {self.ver}", report, out[-3000:])
        self.assertIn("# jitread report", report)
        self.assertIn("percentiles per CPU and class", report)
        self.assertEqual(report.strip().splitlines()[-2:],
                         [f'"jitread_version": "{self.ver}"', self.ver])

    def boot(self, *argv, init, limit_min):
        """argv in a guest booted on the root, within limit_min minutes:
        (status, out, err)."""
        return run([sys.executable, "-m", "jitpy.vm", "-q", "--root",
                    self.root, "--init", init, "-k",
                    os.path.join(self.root, "boot", f"vmlinuz-{self.rel}"),
                    "-s", "2", "--clock", "icount", "-t", f"{limit_min}m",
                    "-C", "/", "--",
                    *argv], cwd=TOP, timeout=limit_min * 60 + 300)

    def systemd_boot(self):
        """Over a minute, once per root: a boot on deterministic time
        whose PID 1 is the root's systemd, where serve_systemd.sh loads
        jitmod and prints a report, then starts, freezes, thaws and stops
        serve through systemd on jitmod and on the user sampler, then
        socket activation: (status, out, err), kept for the tests that
        read it."""
        cls = type(self)
        if getattr(cls, "booted", None) is None:
            inside = "/root/serve_systemd.sh"
            shutil.copyfile(GUEST_SCRIPT, self.root + inside)
            try:
                # a hang guard in host minutes, not a bound: 5.10's root
                # takes 600 s alone and 900 s of CPU in a busy check
                cls.booted = self.boot("env", f"SCRAPE_S={SCRAPE_S}",
                                       f"PROM_AGE={stale_age()}",
                                       "bash", inside, init="systemd",
                                       limit_min=30)
            finally:
                os.unlink(self.root + inside)
        return cls.booted

    def test_2s_serve_under_systemd(self):
        """The serve half of the one boot (systemd_boot), its RESULT
        lines."""
        rc, out, err = self.systemd_boot()
        got = dict(ln.split(" ", 2)[1:] for ln in out.splitlines()
                   if ln.startswith("RESULT ") and ln.count(" ") >= 2)
        # where the boot's minutes went, for make check's log
        print(f"\n# serve under systemd on {self.rel}: seconds at the end "
              "of each part: " + ", ".join(
                  f"{k[3:]} {v}" for k, v in got.items()
                  if k.startswith("at.")) + "; first scrapes (s): " +
              ", ".join(f"{k} {v}" for k, v in got.items()
                        if k.endswith("scrape_s")), file=sys.stderr)
        why = out[-6000:] + err[-2000:]
        self.assertEqual(rc, 0, why)
        bad = [f"{key}: {got.get(key)!r}, not {want}"
               for key, want, ok in serve_checks()
               if not ok(got.get(key))]
        # each failed check is named last, where a log's tail shows it
        self.assertEqual(bad, [], why + "\nfailed: " + "; ".join(bad))

    def test_3_purge_leaves_nothing(self):
        rc, out, err = self.chroot("apt-get", "purge", "-y", "jitread",
                                   "jitmod-dkms")
        self.assertEqual(rc, 0, out[-2000:] + err[-2000:])
        self.assertEqual(self.ours_left(), [])


@unittest.skipIf(why_not(), why_not())
class OldestGeneric(Installed, unittest.TestCase):
    FLAVOUR = "amd64"


@unittest.skipIf(why_not(), why_not())
class NewestRt(Installed, unittest.TestCase):
    FLAVOUR = "rt-amd64"
    LAST = True


if __name__ == "__main__":
    unittest.main()
