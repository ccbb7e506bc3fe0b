# SPDX-License-Identifier: GPL-2.0
"""Style gates: the kernel's clang-format on jitread, PEP 8 on Python, and
checkpatch --strict on the module and the injector (via make checkpatch)."""

import glob
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

# make check runs these at nice 19 beside the guests: they read
# the tree and time nothing
BESIDE_GUESTS = True

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
KSRC = "/usr/src/linux-source-6.1.tar.xz"


class Style(unittest.TestCase):
    def test_user_c_follows_kernel_clang_format(self):
        fmt = shutil.which("clang-format")
        if not fmt or not os.path.exists(KSRC):
            self.skipTest("clang-format or linux-source missing (make deps)")
        with tempfile.TemporaryDirectory() as d:
            with tarfile.open(KSRC) as t:
                member = t.getmember("linux-source-6.1/.clang-format")
                with open(os.path.join(d, "kfmt"), "wb") as f:
                    f.write(t.extractfile(member).read())
            files = sorted(glob.glob(os.path.join(TOP, "user", "**", "*.[ch]"),
                                     recursive=True))
            self.assertGreater(len(files), 40)
            p = subprocess.run([fmt, f"--style=file:{d}/kfmt", "--dry-run",
                                "--Werror", *files], capture_output=True,
                               text=True, check=False)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])

    def test_python_pep8(self):
        p = subprocess.run(["/usr/bin/python3", "-m", "pycodestyle",
                            "--version"], capture_output=True, check=False)
        if p.returncode:
            self.skipTest("pycodestyle missing (make deps)")
        files = (glob.glob(os.path.join(TOP, "jitpy", "**", "*.py"),
                           recursive=True) +
                 glob.glob(os.path.join(TOP, "tests", "host", "*.py")) +
                 glob.glob(os.path.join(TOP, "selftests", "jitmod", "*.py")))
        p = subprocess.run(["/usr/bin/python3", "-m", "pycodestyle", *files],
                           capture_output=True, text=True, check=False)
        self.assertEqual(p.returncode, 0, p.stdout[-2000:])

    def test_kernel_code_checkpatch_clean(self):
        if not os.path.exists(KSRC):
            self.skipTest("linux-source missing (make deps)")
        p = subprocess.run(["make", "-s", "-C", TOP, "checkpatch"],
                           capture_output=True, text=True, check=False)
        self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr)


if __name__ == "__main__":
    unittest.main()
