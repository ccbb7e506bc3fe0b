# SPDX-License-Identifier: GPL-2.0
"""jitread's common/ helpers in C (tests/host/c/common_test.c), built
with the project's warnings and linked with the files jitread uses."""

import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
USER = os.path.join(TOP, "user")


class CommonC(unittest.TestCase):
    def test_common_helpers(self):
        srcs = [os.path.join(TOP, "tests", "host", "c", "common_test.c")]
        srcs += [os.path.join(USER, "common", f) for f in
                 ("jr_parse.c", "jr_tsc.c", "jr_err.c", "jr_text.c",
                  "jr_ksym.c")]
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, "common_test")
            subprocess.run(["cc", "-O2", "-std=gnu11", "-Wall", "-Wextra",
                            "-Werror", f"-I{USER}", "-o", exe, *srcs],
                           check=True, capture_output=True)
            p = subprocess.run([exe], capture_output=True, text=True,
                               check=False, timeout=60)
        self.assertEqual((p.returncode, p.stdout), (0, "ok\n"), p.stdout)


if __name__ == "__main__":
    unittest.main()
