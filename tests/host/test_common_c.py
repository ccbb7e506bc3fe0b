# SPDX-License-Identifier: GPL-2.0
"""jitread's helpers in C (tests/host/c/common_test.c, ualign_test.c),
built with the project's warnings and linked, as jitread is, with
user/libjrcore.a (common and core) and the other layers' files they test."""

import json
import os
import subprocess
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from jitpy.formats import survey as jrsurvey
from tests.host import jrcli

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
USER = os.path.join(TOP, "user")
LIB = os.path.join(USER, "libjrcore.a")


def build_and_run(test, srcs=(), libs=(), args=()):
    """Build tests/host/c/TEST.c with srcs (under user/, outside common
    and core) as jitread builds them, link it with libjrcore.a and libs,
    run it with args; (exit code, output)."""
    if not os.path.exists(LIB):
        raise unittest.SkipTest(f"{LIB} not built (make user)")
    srcs = [os.path.join(TOP, "tests", "host", "c", f"{test}.c")] + \
        [os.path.join(USER, f) for f in srcs]
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, test)
        subprocess.run(["cc", "-O2", "-std=gnu11", "-Wall", "-Wextra",
                        "-Werror", f"-I{USER}",
                        f"-I{os.path.join(TOP, 'include')}", "-pthread",
                        "-o", exe, *srcs, LIB, *libs], check=True,
                       capture_output=True)
        p = subprocess.run([exe, *args], capture_output=True, text=True,
                           check=False, timeout=60)
    return p.returncode, p.stdout


class CommonC(unittest.TestCase):
    def test_common_helpers(self):
        self.assertEqual(build_and_run("common_test"), (0, "ok\n"))

    def test_boot_line_cpu_lists(self):
        """audit's and advise's reader of isolcpus= and nohz_full=
        (tests/host/c/audit_cpulist_test.c)."""
        self.assertEqual(build_and_run("audit_cpulist_test",
                                       ["tune/jr_audit_sys.c"]), (0, "ok\n"))

    def test_user_aligner(self):
        """The user side's streaming aligner (tests/host/c/ualign_test.c)."""
        srcs = ["usamp/jr_ualign.c", "usamp/jr_ubpf_conv.c"]
        self.assertEqual(build_and_run("ualign_test", srcs), (0, "ok\n"))

    def test_reader_poll(self):
        """The live reader's sleeps (tests/host/c/poll_test.c)."""
        self.assertEqual(build_and_run("poll_test", ["kernel/jr_poll.c"]),
                         (0, "ok\n"))

    def test_pipeline_slow_message_step(self):
        """The step a slow pipeline message is filed under
        (tests/host/c/pipe_step_test.c): publication, the consumer's poll
        or its stamp, whichever held it longest."""
        self.assertEqual(build_and_run("pipe_step_test",
                                       ["usamp/jr_pipe.c",
                                        "usamp/jr_journal.c"],
                                       libs=["-lm"]), (0, "ok\n"))

    def test_auto_analysis(self):
        """-a's account of a stop (tests/host/c/auto_test.c): what ran
        inside the gap, and the source to act on."""
        self.assertEqual(build_and_run("auto_test", libs=["-lm"]),
                         (0, "ok\n"))

    def test_http_loop_backs_off(self):
        """The server's loop out of descriptors (tests/host/c/http_test.c)
        backs off instead of spinning, and serves again after."""
        self.assertEqual(build_and_run("http_test"), (0, "ok\n"))

    def test_http_loop_under_stalled_readers(self):
        """Clients that ask for a 4 MiB page and never read it fill every
        slot; scrapes still get the whole page, and the answers held and
        the server's memory stay bounded (tests/host/c/http_slow_test.c)."""
        self.assertEqual(build_and_run("http_slow_test"), (0, "ok\n"))

    def test_server_filter(self):
        """serve's server process filter (tests/host/c/sep_filter_test.c):
        mprotect without PROT_EXEC passes, with it and any call the
        server never makes end in SIGSYS."""
        rc, out = build_and_run("sep_filter_test",
                                srcs=["fleet/jr_serve_server.c"],
                                libs=["-lm"])
        if out.startswith("skip:"):
            self.skipTest(out.strip())
        self.assertEqual((rc, out), (0, "ok\n"))

    def test_prometheus_exposition(self):
        """jitread serve's metrics (tests/host/c/prom_test.c)."""
        self.assertEqual(build_and_run("prom_test", libs=["-lm"]),
                         (0, "ok\n"))

    def test_json_reader_agrees_with_jansson(self):
        """common/jr_jdoc.c takes, refuses and reads as jansson does
        (tests/host/c/jdoc_test.c): on its own cases, and on a report and
        a rank report that jitread wrote; make fuzz's target that judges
        it so (user/fuzz/fuzz_jdoc.c) builds and runs."""
        recs = [jrrec.gap(1, 2000 + i, ts=10000 * (i + 1)) for i in range(40)]
        recs += [jrrec.irq(1, 3000, "virtio0", 11, ts=500000),
                 jrrec.thread(1, 9000, "kworker/1:1", 77, ts=600000),
                 jrrec.softirq(1, 4000, "TIMER", ts=700000),
                 jrrec.summary(1, 10**9, 10**8, 9000)]
        with tempfile.TemporaryDirectory() as d:
            rec, rep, rank = (os.path.join(d, n)
                              for n in ("r.rec", "r.json", "rank.json"))
            jrrec.write(rec, recs)
            rc, _, err = jrcli.jitread("report", rec, "-q", "--json", rep)
            self.assertEqual(rc, 0, err)
            with open(rep) as f:
                report = json.load(f)
            with open(rank, "w") as f:
                json.dump(jrsurvey.rank_report(report, 0, "h"), f)
            self.assertEqual(build_and_run("jdoc_test", libs=["-ljansson"],
                                           args=[rep, rank]), (0, "ok\n"))
            seeds = os.path.join(d, "seeds")
            os.mkdir(seeds)
            os.rename(rank, os.path.join(seeds, "rank.json"))
            jrcli.fuzz_run(self, "fuzz_jdoc", seeds)


if __name__ == "__main__":
    unittest.main()
