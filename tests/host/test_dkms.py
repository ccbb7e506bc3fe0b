# SPDX-License-Identifier: GPL-2.0
"""jitmod through DKMS, as a user installs it, against two kernels of the
fetched matrix (make kernels): the oldest generic and the newest rt.

DKMS runs on private trees (--sourcetree, --dkmstree), so the system's
/usr/src and /var/lib/dkms stay untouched.  The source is what make
install-dkms installs.  Where a tree was made with
tools this machine lacks, scripts/tree-args.sh's make arguments go in
through MAKEFLAGS, as a user's own toolchain would need none.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import jitpy
from jitpy.vm import runner as jitvm

# make check runs these at nice 19 beside the guests: they build
# modules and time nothing
BESIDE_GUESTS = True

TOP = jitpy.TOP
NAME = "jitmod"


def dkms_version():
    """The one version, from VERSION: dkms.conf reads it from there."""
    with open(os.path.join(TOP, "VERSION")) as f:
        return f.read().strip()


def pick_kernels():
    """[(release, tree)]: the first generic and the last rt kernel of the
    matrix that were fetched, or a reason to skip."""
    rows = jitvm.kernel_matrix()
    if rows is None:
        return None, "no build/kernels/status.tsv: run make kernels"
    ok = [(flavour, rel, tree) for _s, flavour, rel, state, tree in rows
          if state == "ok"]
    generic = [(r, t) for f, r, t in ok if f == "amd64"]
    rt = [(r, t) for f, r, t in ok if f == "rt-amd64"]
    if not generic or not rt:
        return None, "the matrix has no fetched generic and rt kernel"
    return [generic[0], rt[-1]], None


class Dkms(unittest.TestCase):
    """dkms add, build and status for each picked kernel."""

    @classmethod
    def setUpClass(cls):
        if not shutil.which("dkms"):
            raise unittest.SkipTest("dkms is not installed (make deps)")
        cls.kernels, why = pick_kernels()
        if why:
            raise unittest.SkipTest(why)
        cls.ver = dkms_version()
        cls.tmp = tempfile.mkdtemp(prefix="jitmod-dkms-")
        cls.src = os.path.join(cls.tmp, "src")
        cls.tree = os.path.join(cls.tmp, "dkms")
        # the tree as make install-dkms (and the jitmod-dkms package) lay
        # it out, under a private prefix
        subprocess.run(["make", "-s", "-C", TOP, "install-dkms",
                        f"DESTDIR={cls.tmp}",
                        f"DKMSDIR=/src/{NAME}-{cls.ver}"], check=True,
                       capture_output=True)
        with open(os.path.join(cls.src, f"{NAME}-{cls.ver}",
                               "dkms.conf")) as f:
            cls.conf = f.read()
        os.makedirs(cls.tree)
        cls.dkms("add", "-m", NAME, "-v", cls.ver)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def dkms(cls, *args, env=None):
        """Run dkms on the private trees; return its output, or fail."""
        proc = subprocess.run(
            ["dkms", *args, "--sourcetree", cls.src, "--dkmstree", cls.tree],
            capture_output=True, text=True, env=env, check=False)
        if proc.returncode:
            raise AssertionError(f"dkms {' '.join(args)}: exit "
                                 f"{proc.returncode}\n{proc.stdout[-3000:]}"
                                 f"{proc.stderr[-3000:]}")
        return proc.stdout

    def test_installed_conf_names_the_version(self):
        """dh_dkms reads PACKAGE_VERSION as text: install-dkms writes
        it in."""
        self.assertIn(f'\nPACKAGE_VERSION="{self.ver}"\n', self.conf)

    def test_build_each_kernel(self):
        """Each kernel gets a jitmod.ko whose vermagic names it, and
        dkms status says built."""
        for rel, tree in self.kernels:
            with self.subTest(kernel=rel):
                args = subprocess.run(
                    ["bash", os.path.join(TOP, "scripts", "tree-args.sh"),
                     tree], check=True, capture_output=True,
                    text=True).stdout.split()
                env = dict(os.environ, MAKEFLAGS=" ".join(args))
                self.dkms("build", "-m", NAME, "-v", self.ver, "-k", rel,
                          "--kernelsourcedir", tree, env=env)
                ko = os.path.join(self.tree, NAME, self.ver, rel, "x86_64",
                                  "module", "jitmod.ko")
                self.assertTrue(os.path.exists(ko), f"{ko} missing")
                magic = subprocess.run(
                    ["modinfo", "-F", "vermagic", ko], check=True,
                    capture_output=True, text=True).stdout.split()
                self.assertEqual(magic[:1], [rel])
                version = subprocess.run(
                    ["modinfo", "-F", "version", ko], check=True,
                    capture_output=True, text=True).stdout.strip()
                self.assertEqual(version, self.ver)
                status = self.dkms("status", "-m", NAME, "-k", rel)
                self.assertIn(f"{NAME}/{self.ver}, {rel}, x86_64: built",
                              status)


if __name__ == "__main__":
    unittest.main()
