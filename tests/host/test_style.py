# SPDX-License-Identifier: GPL-2.0
"""Style gates: the kernel's clang-format on jitread, PEP 8 on Python,
checkpatch --strict on the module and the injector (via make checkpatch),
and the sizes the house keeps: no C file over MAX_FILE_LINES lines, no C
function over MAX_FN_LINES."""

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
MAX_FILE_LINES = 600
MAX_FN_LINES = 80
# C the house writes: the module, jitread, the injector and bench modules,
# the host tests' C (not the fuzz targets' generated corpora)
C_DIRS = ("module", "user", "selftests/jitmod/jitinject", "bench",
          "tests/host/c")


def tar_member(path, name):
    """The bytes of member name of the tar archive at path, read as a
    stream up to it: .clang-format is the archive's second member, and
    an index of all 83,000 decompresses the whole 130 MB first."""
    with tarfile.open(path, "r|*") as t:
        for member in t:
            if member.name == name:
                return t.extractfile(member).read()
    raise AssertionError(f"{path} has no {name}")


def c_files():
    """Every tracked-looking .c and .h of C_DIRS."""
    out = []
    for d in C_DIRS:
        for ext in ("c", "h"):
            out += glob.glob(os.path.join(TOP, d, "**", f"*.{ext}"),
                             recursive=True)
    return sorted(f for f in out if "_gen.h" not in f and ".mod.c" not in f
                  and "/fuzz/corpus" not in f)


def long_functions(path):
    """(lines, first line) of each function of path over MAX_FN_LINES, in
    kernel style: its body opens with '{' and closes with '}' alone at
    the start of a line."""
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    out, start = [], None
    for i, line in enumerate(lines):
        if line == "{":
            start = i
        elif line.startswith("}") and start is not None:
            if i - start + 1 > MAX_FN_LINES:
                out.append((i - start + 1, lines[start - 1].strip()))
            start = None
    return out


class Style(unittest.TestCase):
    def test_user_c_follows_kernel_clang_format(self):
        fmt = shutil.which("clang-format")
        if not fmt or not os.path.exists(KSRC):
            self.skipTest("clang-format or linux-source missing (make deps)")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "kfmt"), "wb") as f:
                f.write(tar_member(KSRC, "linux-source-6.1/.clang-format"))
            files = sorted(glob.glob(os.path.join(TOP, "user", "**", "*.[ch]"),
                                     recursive=True))
            self.assertGreater(len(files), 40)
            p = subprocess.run([fmt, f"--style=file:{d}/kfmt", "--dry-run",
                                "--Werror", *files], capture_output=True,
                               text=True, check=False)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])

    def test_files_and_functions_stay_small(self):
        files = c_files()
        self.assertGreater(len(files), 100)
        big = [(os.path.relpath(f, TOP), n) for f in files
               for n in [sum(1 for _ in open(f, errors="replace"))]
               if n > MAX_FILE_LINES]
        self.assertEqual(big, [], f"C files over {MAX_FILE_LINES} lines")
        long = [(os.path.relpath(f, TOP), n, fn) for f in files
                for n, fn in long_functions(f)]
        self.assertEqual(long, [], f"functions over {MAX_FN_LINES} lines")

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
