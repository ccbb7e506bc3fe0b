# SPDX-License-Identifier: GPL-2.0
"""make check's harness: a guest that died of QEMU's stale int3 in
jitmod's sampling loop runs its suite once more; any other death does
not, and the second boot's results stand alone."""

import os
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

from jitpy.harness import check, cpu, guests, tap

OOPS = ("[ 74.6] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
        "[ 74.6] CPU: 1 UID: 0 PID: 745 Comm: jitmod/1\n"
        "[ 74.6] RIP: 0010:jit_sample+0x621/0x7e0 [jitmod]\n")
GPF = ("[ 74.6] Oops: general protection fault: 0000 [#1]\n"
       "[ 74.6] RIP: 0010:jit_sample+0x621/0x7e0 [jitmod]\n")


class StaleInt3(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dmesg = os.path.join(self.tmp.name, "dmesg.txt")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text):
        with open(self.dmesg, "w") as f:
            f.write(text)

    def test_only_the_int3_in_jitmod_counts(self):
        self.write("[ 1.0] booted\n" + OOPS)
        self.assertEqual(len(guests.stale_int3(125, self.dmesg)), 3)
        self.assertEqual(guests.stale_int3(1, self.dmesg), [])
        self.write(GPF)
        self.assertEqual(guests.stale_int3(125, self.dmesg), [])
        self.write(OOPS.replace("[jitmod]", "[kernel]"))
        self.assertEqual(guests.stale_int3(125, self.dmesg), [])
        os.unlink(self.dmesg)
        self.assertEqual(guests.stale_int3(125, self.dmesg), [])

    def suite(self, boots, **kw):
        """run_vm_suite with each boot's (exit code, output, dmesg); the
        runner's command lines are kept in self.calls."""
        calls = self.calls = []

        def run(cmd):
            rc, out, dm = boots[len(calls)]
            calls.append(cmd)
            with open(cmd[cmd.index("--dmesg") + 1], "w") as f:
                f.write(dm)
            return rc, [(float(i), 10.0 * i, ln)
                        for i, ln in enumerate(out.splitlines())]

        tally = tap.Tally()
        with mock.patch.object(guests, "boot_lines", run), \
                mock.patch.object(guests.jitvm, "resolve_kernel",
                                  lambda f: ("vmlinuz", "9.9-test")), \
                mock.patch.object(guests.jitvm, "find_qemu",
                                  lambda clock: "qemu"), \
                mock.patch.object(guests.jitpy, "module_path",
                                  lambda rel: __file__), \
                mock.patch.object(guests, "TOP", self.tmp.name), \
                mock.patch("builtins.print"):
            os.makedirs(os.path.join(self.tmp.name, "build"), exist_ok=True)
            guests.run_vm_suite(tally, "9.9-test", **kw)
        return len(calls), tally

    def test_the_runner_is_told_the_clock(self):
        for clock in ("host", "icount"):
            n, tally = self.suite([(0, "ok 1 selftests: jitmod: a\n", "")],
                                  clock=clock)
            cmd = self.calls[0]
            self.assertEqual((n, tally.failed), (1, 0))
            self.assertEqual(cmd[cmd.index("--clock") + 1], clock)

    def test_an_icount_guest_s_oops_is_not_booted_again(self):
        """Single-threaded TCG has no stale translation: on the icount
        clock an int3 oops fails at once."""
        n, tally = self.suite([
            (125, "ok 1 selftests: jitmod: a\n", OOPS),
            (0, "ok 1 selftests: jitmod: a\n", "[ 1.0] clean\n")],
            clock="icount")
        self.assertEqual(n, 1)
        self.assertEqual(tally.retries, [])
        self.assertGreater(tally.failed, 0)

    def test_the_suite_runs_once_more(self):
        n, tally = self.suite([
            (125, "ok 1 selftests: jitmod: a\nnot ok 2 selftests: jitmod: b\n",
             OOPS),
            (0, "ok 1 selftests: jitmod: a\nok 2 selftests: jitmod: b\n",
             "[ 1.0] clean\n")])
        self.assertEqual((n, tally.passed, tally.failed), (2, 4, 0))
        self.assertEqual(tally.retries, [("vm-9.9-test: the boot", 1)])

    def test_each_measurement_made_again_is_counted(self):
        """jittest.attempts' lines, counted against the test they came
        from, and all of them at the close."""
        _, tally = self.suite([
            (0, "# selftests: jitmod: a\n"
             "# # again after attempt 1 of 3: spoiled\n"
             "# # again after the stop 2 of 3: late\n"
             "ok 1 selftests: jitmod: a\n# selftests: jitmod: b\n"
             "# # made again by hand 1 of 2\nok 2 selftests: jitmod: b\n",
             "[ 1.0] clean\n")])
        self.assertEqual(tally.retries, [("vm-9.9-test: a", 2)])
        self.assertEqual(tally.retry_line(), "# retries: 2, each logged "
                         "above: vm-9.9-test: a (2)")
        self.assertEqual(tap.Tally().retry_line(), "# retries: none")

    def test_each_test_timed_from_its_start(self):
        """A guest test's time runs from the runner's line that starts
        it; the ten slowest close the run."""
        _, tally = self.suite([
            (0, "# selftests: jitmod: a\n# x\n# y\n"
             "ok 1 selftests: jitmod: a\n# selftests: jitmod: b\n"
             "ok 2 selftests: jitmod: b\n", "[ 1.0] clean\n")])
        self.assertEqual(tally.times[:2], [(3.0, "vm-9.9-test: a"),
                                           (1.0, "vm-9.9-test: b")])
        self.assertEqual((tally.cpu["vm-9.9-test: a"],
                          tally.cpu["vm-9.9-test: b"]), (30.0, 10.0))
        with mock.patch("builtins.print") as out:
            tally.slowest()
        lines = [c.args[0] for c in out.call_args_list]
        self.assertEqual(lines[0], "# the 10 slowest (+: beside the guests):")
        self.assertIn("vm-9.9-test: a (CPU 30 s)", lines[1])

    def test_other_deaths_and_a_second_oops_fail(self):
        n, tally = self.suite([(125, "ok 1 selftests: jitmod: a\n", GPF)])
        self.assertEqual((n, tally.failed), (1, 1))
        n, tally = self.suite([(125, "ok 1 selftests: jitmod: a\n", OOPS)] * 2)
        self.assertEqual((n, tally.failed), (2, 1))


class Lane(unittest.TestCase):
    """The lane beside the guests: its TAP numbered into the run's, and
    which host tests it takes."""

    LANE = ["ok 1 host: a # 2.5 s, CPU 0.5 s",
            "not ok 2 vm-x: flip.sh # 30.0 s",
            "# why it failed", "ok 3 host: b # SKIP no dkms", "stray",
            "# retried: vm-x: wake.sh: 2", "1..3",
            "1 passed, 1 failed, 1 skipped"]

    def test_replay_numbers_and_marks(self):
        tally = tap.Tally()
        with mock.patch("builtins.print") as out:
            tally.report(True, "vm-generic: soak.py", secs=120.0)
            got = tap.replay(tally, self.LANE)
            tally.slowest()
        lines = [c.args[0] for c in out.call_args_list]
        self.assertEqual(got, (3, 3))
        self.assertEqual((tally.n, tally.passed, tally.failed,
                          tally.skipped), (4, 2, 1, 1))
        self.assertEqual(lines[1:6], [
            "ok 2 host: a # 2.5 s, CPU 0.5 s",
            "not ok 3 vm-x: flip.sh # 30.0 s",
            "# why it failed", "ok 4 host: b # SKIP no dkms", "# stray"])
        self.assertIn("#    120.0 s  vm-generic: soak.py", lines)
        self.assertIn("#     30.0 s +vm-x: flip.sh", lines)
        self.assertEqual(tally.retries, [("vm-x: wake.sh", 2)])
        self.assertIn("# retried: vm-x: wake.sh: 2", lines)

    def test_a_lane_cut_short_fails(self):
        for rc, lane in ((0, self.LANE[:3]), (-9, self.LANE), (0, [])):
            tally = tap.Tally()
            with tempfile.TemporaryDirectory() as d, \
                    mock.patch.object(check, "LANE_TAP",
                                      os.path.join(d, "t")), \
                    mock.patch("builtins.print"):
                with open(check.LANE_TAP, "w") as f:
                    f.write("\n".join(lane))
                check.join_lane(tally, mock.Mock(wait=lambda: rc))
            self.assertEqual(tally.failed, 1 + (len(lane) > 1), (rc, lane))

    def test_each_smoke_boot_goes_to_the_lane_that_claims_it_first(self):
        rows = [("5.10", None), ("6.12", None), ("7.3-rt", "not fetched")]
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(guests, "run_vm_suite") as boot, \
                mock.patch("builtins.print"):
            self.assertTrue(guests.claim(d, "6.12"))
            first, second = tap.Tally(), tap.Tally()
            guests.run_smoke(first, rows, d)
            guests.run_smoke(second, rows, d)
            self.assertFalse(guests.claim(d, "5.10"))
        self.assertEqual([c.args[1] for c in boot.call_args_list], ["5.10"])
        self.assertEqual((first.skipped, second.n), (1, 0))

    def test_each_icount_boot_goes_to_one_lane_on_its_clock(self):
        """A boot on deterministic time runs once, in the lane that claims
        it first, with --clock icount; a flavour not chosen, never."""
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(guests, "run_vm_suite") as boot:
            guests.run_icount(tap.Tally(), ("rt",), d)
            guests.run_icount(tap.Tally(), ("rt", "generic"), d)
        names = [(c.args[2], c.kwargs["clock"]) for c in boot.call_args_list]
        self.assertEqual(names, [("rt-icount", "icount"),
                                 ("generic-icount", "icount")])

    def test_each_host_test_in_the_lane_it_is_marked_for(self):
        class Beside(unittest.TestCase):
            BESIDE_GUESTS = True

            def test_x(self):
                pass

        class Alone(unittest.TestCase):
            ALONE = True

            def test_x(self):
                pass

        class Plain(unittest.TestCase):
            def test_x(self):
                pass

        self.assertEqual([tap.lane_of(c("test_x"))
                          for c in (Beside, Alone, Plain)],
                         ["beside", "alone", "timed"])
        from tests.host import test_attach_agree, test_deb_install, test_user
        self.assertTrue(test_deb_install.BESIDE_GUESTS)
        self.assertTrue(test_attach_agree.ALONE)
        self.assertFalse(hasattr(test_user, "BESIDE_GUESTS"))
        self.assertFalse(hasattr(test_user, "ALONE"))
        with self.assertRaises(ValueError):
            tap.run_host_tests(tap.Tally(), "besides")

    def test_each_host_class_goes_to_the_lane_that_claims_it_first(self):
        """Class by class, longest first by CHECK_S; a class that one
        lane claimed, the other does not run."""
        class Short(unittest.TestCase):
            BESIDE_GUESTS = True

            def test_a(self):
                pass

            def test_b(self):
                pass

        class Long(Short):
            CHECK_S = 300

            def test_a(self):
                # claimed as it is reached: Short not yet, when Long runs
                claims.append(sorted(os.listdir(d)))

        class Plain(unittest.TestCase):
            def test_x(self):
                pass

        def suite():
            return unittest.TestSuite(
                [Short("test_a"), Plain("test_x"), Long("test_a"),
                 Short("test_b"), Long("test_b")])

        claims = []
        long_id = f"host-{__name__}.{Long.__qualname__}"
        with tempfile.TemporaryDirectory() as d:
            def take(name):
                return guests.claim(d, name)

            first, second = tap.Tally(), tap.Tally()
            with mock.patch.object(tap.unittest.defaultTestLoader,
                                   "discover", side_effect=[suite(),
                                                            suite()]), \
                    mock.patch("builtins.print"):
                tap.run_host_tests(first, "beside", take=take)
                tap.run_host_tests(second, "beside", take=take)
        self.assertEqual((first.passed, second.n), (4, 0))
        # Short was not yet claimed while Long ran
        self.assertEqual(claims, [[long_id]])
        # a class the other lane began is not run
        with tempfile.TemporaryDirectory() as d:
            self.assertTrue(guests.claim(
                d, f"host-{__name__}.{Short.__qualname__}"))
            groups = list(tap.claimed_groups(
                list(tap._flat(suite())), lambda n: guests.claim(d, n)))
        self.assertEqual([type(g[0]) for g in groups], [Long, Plain])
        groups = tap.claimed_groups(list(tap._flat(suite())),
                                    lambda name: True)
        self.assertEqual([type(g[0]) for g in groups], [Long, Short, Plain])


# a grandchild that spins SPIN_S of CPU, then waits to be read
SPIN_S = 0.5
SPINNER = ("import time\nt = time.process_time() + %s\n"
           "while time.process_time() < t: pass\nprint('spun', flush=True)\n"
           "time.sleep(30)\n" % SPIN_S)


class Clocks(unittest.TestCase):
    def test_each_selftest_on_one_clock(self):
        """Every selftest is in exactly one of the Makefile's lists, the
        ones that must be are on their clock, and the harness boots each
        list on its own."""
        d = os.path.join(guests.TOP, "selftests", "jitmod")
        tests = {f for f in os.listdir(d) if f.endswith((".py", ".sh")) and
                 f not in ("jittest.py", "lib.sh")}
        host = guests.HOST_PROGS.split()
        icount = guests.ICOUNT_PROGS.split()
        extended = guests.suite_list("TEST_PROGS_EXTENDED").split()
        listed = host + icount + extended
        self.assertEqual(sorted(listed), sorted(tests))
        self.assertEqual(len(listed), len(set(listed)))
        self.assertIn("hw_pause.py", host)
        for t in ("accuracy.py", "classify.py", "settings_quiet.py",
                  "inject_once.py", "stop.py"):
            self.assertIn(t, icount)
        self.assertEqual({p for _, _, _, p in guests.ICOUNT_BOOTS},
                         {guests.ICOUNT_PROGS})


class Cost(unittest.TestCase):
    """The CPU time beside each result's wall time."""

    def test_tree_counts_descendants_while_they_run(self):
        with subprocess.Popen(["sh", "-c", f"{sys.executable} -c \"$0\"",
                               SPINNER], stdout=subprocess.PIPE,
                              text=True) as p:
            self.assertEqual(p.stdout.readline(), "spun\n")
            got = cpu.tree(p.pid)
            p.kill()
        self.assertGreaterEqual(got, SPIN_S * 0.8)
        self.assertLess(got, SPIN_S * 4)
        self.assertEqual(cpu.tree(p.pid), 0.0)

    def test_used_counts_waited_children(self):
        before = cpu.used()
        subprocess.run([sys.executable, "-c", SPINNER.replace(
            "time.sleep(30)", "")], check=True, capture_output=True)
        self.assertGreaterEqual(cpu.used() - before, SPIN_S * 0.8)

    def test_a_host_test_says_its_cpu(self):
        class Spins(unittest.TestCase):
            def test_spin(self):
                t = time.process_time() + SPIN_S
                while time.process_time() < t:
                    pass

            def test_sleep(self):
                time.sleep(SPIN_S)

        inner = tap.Tally()
        spins = unittest.TestSuite([Spins("test_spin"), Spins("test_sleep")])

        class Outer(unittest.TestCase):
            """A host test that runs host tests, as this one does."""

            def test_a_runs_some(self):
                tap.run_host_tests(inner, "timed")

            def test_b_after(self):
                pass

        outer = tap.Tally()
        suites = [unittest.TestSuite([Outer("test_a_runs_some"),
                                      Outer("test_b_after")]), spins]
        with mock.patch.object(tap.unittest.defaultTestLoader, "discover",
                               side_effect=suites), \
                mock.patch("builtins.print"):
            tap.run_host_tests(outer, "timed")
        spin, sleep = (inner.cpu[f"host: {t.id()}"] for t in spins)
        self.assertGreaterEqual(spin, SPIN_S * 0.8)
        self.assertLess(sleep, SPIN_S / 2)
        # each run's results in its own tally, numbered there
        self.assertEqual((inner.n, outer.n, outer.passed), (2, 2, 2))


if __name__ == "__main__":
    unittest.main()
