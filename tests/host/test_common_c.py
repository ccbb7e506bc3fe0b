# SPDX-License-Identifier: GPL-2.0
"""jitread's helpers in C (tests/host/c/common_test.c, ualign_test.c),
built with the project's warnings and linked with the files jitread
uses."""

import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
USER = os.path.join(TOP, "user")


def build_and_run(test, srcs, libs=()):
    """Build tests/host/c/TEST.c with srcs (under user/) as jitread builds
    them, and libs, run it; (exit code, output)."""
    srcs = [os.path.join(TOP, "tests", "host", "c", f"{test}.c")] + \
        [os.path.join(USER, f) for f in srcs]
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, test)
        subprocess.run(["cc", "-O2", "-std=gnu11", "-Wall", "-Wextra",
                        "-Werror", f"-I{USER}",
                        f"-I{os.path.join(TOP, 'include')}", "-pthread",
                        "-o", exe, *srcs, *libs], check=True,
                       capture_output=True)
        p = subprocess.run([exe], capture_output=True, text=True,
                           check=False, timeout=60)
    return p.returncode, p.stdout


class CommonC(unittest.TestCase):
    def test_common_helpers(self):
        srcs = [f"common/{f}" for f in ("jr_parse.c", "jr_tsc.c",
                                        "jr_err.c", "jr_text.c",
                                        "jr_ksym.c")]
        self.assertEqual(build_and_run("common_test", srcs), (0, "ok\n"))

    def test_user_aligner(self):
        """The user side's streaming aligner (tests/host/c/ualign_test.c)."""
        self.assertEqual(build_and_run("ualign_test", [
            "usamp/jr_ualign.c", "common/jr_tsc.c", "common/jr_text.c",
            "common/jr_ksym.c"]), (0, "ok\n"))

    def test_reader_poll(self):
        """The live reader's sleeps (tests/host/c/poll_test.c)."""
        self.assertEqual(build_and_run("poll_test", ["kernel/jr_poll.c"]),
                         (0, "ok\n"))

    def test_prometheus_exposition(self):
        """jitread serve's metrics (tests/host/c/prom_test.c)."""
        self.assertEqual(build_and_run("prom_test", [
            "core/jr_prom.c", "core/jr_prom_out.c", "core/jr_prom_text.c",
            "core/jr_prom_pb.c", "core/jr_prom_emit.c", "core/jr_model.c",
            "core/jr_hist.c", "core/jr_detail.c", "common/jr_buf.c",
            "common/jr_http.c", "common/jr_err.c"], ["-lm"]), (0, "ok\n"))


if __name__ == "__main__":
    unittest.main()
