# SPDX-License-Identifier: GPL-2.0
"""make deb: the three packages debhelper builds from what git tracks,
lintian without an error, and what each package holds: jitread with its
man pages, completion, jitread-serve.service and its /etc/default file;
jitread-mpi with the plugin where jitread looks for it; jitmod-dkms with
the module's sources and a dkms.conf naming the version, rebuilt for each
new kernel (AUTOINSTALL), and jitmod(4).  Every package's version is
VERSION."""

import glob
import hashlib
import os
import shutil
import subprocess
import unittest

from tests.host import deblock, jrcli

# make check runs these at nice 19 beside the guests: they build
# and read packages and time nothing
BESIDE_GUESTS = True

TOP = jrcli.TOP
DEB_DIR = deblock.DEB_DIR


def tools_missing():
    for tool in ("dpkg-buildpackage", "dh", "dh_dkms", "lintian", "git"):
        if not shutil.which(tool):
            return f"{tool} missing (make deps)"
    if not os.path.isdir(os.path.join(TOP, ".git")):
        return "not a git checkout: make deb copies what git tracks"
    return None


def contents(deb):
    out = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True,
                         text=True, check=True).stdout
    return {ln.split()[-1].lstrip(".") if "->" not in ln else
            ln.split()[-3].lstrip(".") for ln in out.splitlines()}


def field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", deb, name], capture_output=True,
                          text=True, check=True).stdout.strip()


def digests():
    """{package file name: sha256} of build/deb's packages."""
    out = {}
    for d in sorted(glob.glob(os.path.join(DEB_DIR, "*.deb"))):
        with open(d, "rb") as f:
            out[os.path.basename(d)] = hashlib.sha256(f.read()).hexdigest()
    return out


@unittest.skipIf(tools_missing(), tools_missing())
class Deb(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with deblock.held():
            p = subprocess.run(["make", "-s", "-C", TOP, "deb"],
                               capture_output=True, text=True, check=False,
                               timeout=1200)
            cls.digests = digests()
        cls.rc, cls.out, cls.err = p.returncode, p.stdout, p.stderr
        with open(os.path.join(TOP, "VERSION")) as f:
            cls.ver = f.read().strip()
        cls.debs = {os.path.basename(d).split("_")[0]: d for d in
                    glob.glob(os.path.join(DEB_DIR, "*.deb"))}

    def test_built_and_lint_clean(self):
        self.assertEqual(self.rc, 0, self.err[-3000:])
        for name in ("jitread", "jitread-mpi", "jitmod-dkms",
                     "python3-jitpy"):
            self.assertIn(name, self.debs)
            self.assertEqual(field(self.debs[name], "Version"), self.ver)
        with open(os.path.join(DEB_DIR, "lintian.log")) as f:
            tags = [ln for ln in f if ln[:2] in ("E:", "W:")]
        self.assertEqual(tags, [])

    def test_jitread_package(self):
        files = contents(self.debs["jitread"])
        for f in ("/usr/bin/jitread", "/usr/share/man/man1/jitread.1.gz",
                  "/usr/share/man/man1/jitread-serve.1.gz",
                  "/usr/share/bash-completion/completions/jitread",
                  "/usr/share/jitread/prometheus/jitread.rules.yml",
                  "/lib/systemd/system/jitread-serve.service",
                  "/lib/systemd/system/jitread-serve.socket",
                  "/usr/share/doc/jitread/advise.rst",
                  "/etc/default/jitread-serve"):
            self.assertIn(f, files)
        self.assertFalse([f for f in files if "mpi" in f])
        self.assertNotIn("openmpi", field(self.debs["jitread"], "Depends"))

    def test_python_package(self):
        """jitpy's readers and plots, with the header its tables come
        from, where Debian's python3 finds them."""
        files = contents(self.debs["python3-jitpy"])
        where = "/usr/lib/python3/dist-packages/jitpy/"
        for f in ("__init__.py", "abi.py", "jitmod_abi.h",
                  "formats/report.py", "plot/__main__.py",
                  "plot/jitplot.py"):
            self.assertIn(where + f, files)
        self.assertFalse([f for f in files if "/vm/" in f or
                          "/harness/" in f or f.endswith(".pyc")])
        self.assertIn("python3-matplotlib",
                      field(self.debs["python3-jitpy"], "Depends"))

    def test_mpi_package(self):
        files = contents(self.debs["jitread-mpi"])
        self.assertIn("/usr/lib/jitread/jitread-mpi.so", files)
        self.assertIn(f"jitread (= {self.ver})",
                      field(self.debs["jitread-mpi"], "Depends"))

    def test_dkms_package(self):
        deb = self.debs["jitmod-dkms"]
        files = contents(deb)
        src = f"/usr/src/jitmod-{self.ver}"
        for f in ("dkms.conf", "VERSION", "module/Kbuild",
                  "module/jitmod_main.c", "include/jitmod_kcompat.sh"):
            self.assertIn(f"{src}/{f}", files)
        self.assertIn("/usr/share/man/man4/jitmod.4.gz", files)
        self.assertIn("dkms", field(deb, "Depends"))
        conf = subprocess.run(
            f"dpkg-deb --fsys-tarfile {deb} | tar -xO .{src}/dkms.conf",
            shell=True, capture_output=True, text=True, check=True).stdout
        self.assertIn(f'PACKAGE_VERSION="{self.ver}"', conf)
        self.assertIn('AUTOINSTALL="yes"', conf)
        self.assertIn('BUILD_EXCLUSIVE_CONFIG="CONFIG_SMP', conf)

    def test_z_rebuilt_the_same(self):
        """A second make deb of the same tree gives the same bytes: the
        changelog's date is the commit's, and the BPF object's kernel
        types are the tree's own (user/usamp/bpf/jr_ktypes.h)."""
        self.assertGreaterEqual(len(self.digests), 4, self.digests)
        commit = subprocess.run(["git", "-C", TOP, "log", "-1",
                                 "--format=%cD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        with deblock.held():
            p = subprocess.run(["make", "-s", "-C", TOP, "deb"],
                               capture_output=True, text=True, check=False,
                               timeout=1200)
            again = digests()
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        self.assertEqual(again, self.digests)
        with open(os.path.join(DEB_DIR, f"jitmod-{self.ver}", "debian",
                               "changelog")) as f:
            self.assertIn(f"  {commit}\n", f.read())


if __name__ == "__main__":
    unittest.main()
