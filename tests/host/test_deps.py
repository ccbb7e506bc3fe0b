# SPDX-License-Identifier: GPL-2.0
"""make build-deps installs what builds and runs jitread and jitmod on
this machine's kernel, and nothing of the lab (kernels to boot, QEMU,
Prometheus, MPI, the packaging tools); make deps stays the whole lab."""

import os
import platform
import re
import shutil
import subprocess
import unittest

from tests.host import jrcli

# make check runs these at nice 19 beside the guests: they read
# package lists and time nothing
BESIDE_GUESTS = True

TOP = jrcli.TOP
DEPS = os.path.join(TOP, "scripts", "deps.sh")
# what only the lab needs: each changes what boots, starts a server,
# or serves the tests and the packages
LAB_ONLY = ("linux-image-amd64", "linux-image-rt-amd64", "linux-headers-amd64",
            "qemu-system-x86", "prometheus", "openmpi-bin", "libopenmpi-dev",
            "lintian", "mmdebstrap", "debhelper", "linux-source-6.1",
            "rt-tests", "trace-cmd")


def listed(*which):
    p = subprocess.run(["bash", DEPS, "--list", *which], capture_output=True,
                       text=True, check=True)
    return p.stdout.split()


class BuildDeps(unittest.TestCase):
    def test_build_is_part_of_the_lab(self):
        build, lab = listed("build"), listed()
        headers = f"linux-headers-{platform.release()}"
        self.assertEqual(build[-1], headers)
        self.assertEqual(set(build) - set(lab), {headers})
        self.assertEqual([p for p in LAB_ONLY if p in build], [])
        for p in LAB_ONLY:
            self.assertIn(p, lab)

    @unittest.skipUnless(shutil.which("pkg-config") and
                         shutil.which("dpkg-query"), "pkg-config, dpkg")
    def test_every_library_of_the_build_is_listed(self):
        """The package that owns each pkg-config module user/Makefile
        links is in the build set."""
        with open(os.path.join(TOP, "user", "Makefile")) as f:
            mods = re.search(r"^PKGS := (.*)$", f.read(), re.M).group(1)
        build = listed("build")
        for mod in mods.split():
            d = subprocess.run(["pkg-config", "--variable=pcfiledir", mod],
                               capture_output=True, text=True, check=True)
            pc = os.path.join(d.stdout.strip(), f"{mod}.pc")
            own = subprocess.run(["dpkg-query", "-S", pc],
                                 capture_output=True, text=True, check=True)
            pkg = own.stdout.split(":")[0]
            self.assertIn(pkg, build, f"{mod} ({pc})")

    def test_make_target_and_readme(self):
        p = subprocess.run(["make", "-n", "-C", TOP, "build-deps"],
                           capture_output=True, text=True, check=True)
        self.assertIn("scripts/deps.sh build", p.stdout)
        with open(os.path.join(TOP, "README.md")) as f:
            readme = f.read()
        real = readme.split("## On a real machine", 1)[1].split("\n## ")[0]
        self.assertIn("make build-deps", real)
        self.assertNotIn("make deps", real)

    def test_unknown_set_is_refused(self):
        p = subprocess.run(["bash", DEPS, "--list", "all"],
                           capture_output=True, text=True, check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown set 'all'", p.stderr)


def main():
    unittest.main()


if __name__ == "__main__":
    main()
