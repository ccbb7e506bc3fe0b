# SPDX-License-Identifier: GPL-2.0
"""The QEMU runner's argument handling, kernel lookup and initramfs."""

import lzma
import os
import stat
import tempfile
import unittest
from unittest import mock

from jitpy.vm import runner as jitvm
from jitpy.vm import unstick


class ParseArgs(unittest.TestCase):
    def test_defaults(self):
        a = jitvm.parse_args(["--", "true"])
        self.assertEqual(a.kernel, "rt")
        self.assertEqual(a.vcpus, jitvm.DEFAULT_VCPUS)
        self.assertEqual(a.timeout_s, jitvm.DEFAULT_TIMEOUT_S)
        self.assertEqual(a.command, ["true"])

    def test_options(self):
        a = jitvm.parse_args(["-k", "generic", "-s", "3", "-m", "512",
                              "-t", "5m", "-a", "quiet", "--", "ls", "-l"])
        self.assertEqual((a.kernel, a.vcpus, a.mem_mb, a.timeout_s),
                         ("generic", 3, 512, 300))
        self.assertEqual(a.append, "quiet")
        self.assertEqual(a.command, ["ls", "-l"])

    def test_rejects(self):
        for argv in ([], ["--"], ["-s", "0", "--", "true"],
                     ["-s", "x", "--", "true"], ["-m", "16", "--", "true"],
                     ["-t", "soon", "--", "true"], ["-t", "0", "--", "true"],
                     ["--bogus", "--", "true"],
                     ["-e", "1X=2", "--", "true"],
                     ["--accel", "hvf", "--", "true"],
                     ["--clock", "tsc", "--", "true"],
                     ["--clock", "icount", "--accel", "kvm", "--",
                      "true"]):
            with self.subTest(argv=argv):
                with self.assertRaises(jitvm.UsageError):
                    jitvm.parse_args(argv)

    def test_clock_from_the_environment(self):
        with mock.patch.dict(os.environ, {"JITVM_CLOCK": "icount"}):
            self.assertEqual(jitvm.parse_args(["--", "true"]).clock,
                             "icount")
        with mock.patch.dict(os.environ, {"JITVM_CLOCK": "wall"}):
            with self.assertRaises(jitvm.UsageError):
                jitvm.parse_args(["--", "true"])

    def test_main_usage_exit(self):
        self.assertEqual(jitvm.main(["-s", "0", "--", "true"]),
                         jitvm.EXIT_USAGE)

    def test_durations(self):
        self.assertEqual(jitvm.parse_duration("90"), 90)
        self.assertEqual(jitvm.parse_duration("2h"), 7200)


class Isolation(unittest.TestCase):
    def test_cmdline(self):
        self.assertEqual(jitvm.isolation_cmdline(1), "")
        self.assertIn("isolcpus=1 ", jitvm.isolation_cmdline(2))
        c = jitvm.isolation_cmdline(4)
        for want in ("isolcpus=1-3", "nohz_full=1-3", "rcu_nocbs=1-3",
                     "irqaffinity=0"):
            self.assertIn(want, c)

    def test_qemu_command(self):
        a = jitvm.parse_args(["-s", "3", "--no-isolate", "--", "true"])
        cmd = jitvm.qemu_command(a, "qemu", "vmlinuz-x", "initrd", "/o",
                                 "tcg")
        self.assertIn("-smp", cmd)
        self.assertEqual(cmd[cmd.index("-smp") + 1], "3")
        self.assertIn("tcg,thread=multi", cmd)
        self.assertNotIn("isolcpus", " ".join(cmd))
        # under TCG only, the vCPU watch gets a QMP socket of its own
        watch = f"unix:/o/{jitvm.WATCH_QMP},server=on,wait=off"
        self.assertEqual(cmd[cmd.index(watch) - 1], "-qmp")
        kvm = jitvm.qemu_command(a, "qemu", "vmlinuz-x", "initrd", "/o",
                                 "kvm")
        self.assertNotIn(watch, kvm)
        self.assertNotIn("-icount", cmd + kvm)

    def test_icount_command(self):
        """Deterministic time: single-threaded TCG, the TSC one
        instruction a nanosecond, whatever --accel said."""
        a = jitvm.parse_args(["--clock", "icount", "--accel", "auto",
                              "--", "true"])
        self.assertEqual((a.accel, a.tcg_thread), ("tcg", "single"))
        cmd = jitvm.qemu_command(a, "qemu", "vmlinuz-x", "initrd", "/o",
                                 a.accel)
        self.assertIn("tcg,thread=single", cmd)
        self.assertEqual(cmd[cmd.index("-icount") + 1], "shift=0,sleep=off")

    def test_watch_only_under_multi_threaded_tcg(self):
        """The vCPU watch frees multi-threaded TCG's stale translation;
        icount's single-threaded TCG boots without it."""
        seen = []

        def boot(cmd, outdir, timeout_s, say, watch):
            seen.append(watch)
            return 0

        for argv in (["--accel", "tcg"], ["--clock", "icount"],
                     ["--accel", "tcg", "--tcg-thread", "single"]):
            with mock.patch.object(jitvm, "find_qemu", return_value="q"), \
                    mock.patch.object(jitvm, "qemu_version",
                                      return_value="10.0.2"):
                run_with(jitvm.parse_args(["-q", *argv, "--", "true"]),
                         boot)
        self.assertIsInstance(seen[0], unstick.Unsticker)
        self.assertEqual(seen[1:], [None, None])

    def test_clock_said(self):
        self.assertIn("deterministic", jitvm.clock_line("icount", "10.0.2"))
        self.assertIn("10.0.2", jitvm.clock_line("icount", "10.0.2"))
        self.assertIn("host's", jitvm.clock_line("host", "7.2.19"))


class Kernels(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.boot = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def touch(self, name):
        open(os.path.join(self.boot, name), "w").close()

    def test_flavours(self):
        for n in ("vmlinuz-6.1.0-9-amd64", "vmlinuz-6.1.0-10-amd64",
                  "vmlinuz-6.1.0-10-rt-amd64"):
            self.touch(n)
        self.assertEqual(jitvm.resolve_kernel("generic", self.boot)[1],
                         "6.1.0-10-amd64")
        self.assertEqual(jitvm.resolve_kernel("rt", self.boot)[1],
                         "6.1.0-10-rt-amd64")

    def test_missing_names_make_deps(self):
        self.touch("vmlinuz-6.1.0-10-amd64")
        with self.assertRaises(jitvm.MissingError) as cm:
            jitvm.resolve_kernel("rt", self.boot)
        self.assertIn("make deps", str(cm.exception))
        with self.assertRaises(jitvm.MissingError):
            jitvm.resolve_kernel(os.path.join(self.boot, "nope"))

    def test_icount_qemu(self):
        """Deterministic time boots the QEMU scripts/qemu.sh fetched, and
        says how to get it when it is not there."""
        with self.assertRaises(jitvm.MissingError) as cm:
            jitvm.find_qemu("icount", os.path.join(self.boot, "nope"))
        self.assertIn("make deps", str(cm.exception))
        q = os.path.join(self.boot, "qemu-system-x86_64")
        with open(q, "w") as f:
            f.write("#!/bin/sh\necho 'QEMU emulator version 10.0.2 (x)'\n")
        os.chmod(q, 0o755)
        self.assertEqual(jitvm.find_qemu("icount", q), q)
        self.assertEqual(jitvm.qemu_version(q), "10.0.2")

    def test_missing_tool(self):
        with self.assertRaises(jitvm.MissingError) as cm:
            jitvm.find_tool("no-such-tool-jitvm")
        self.assertIn("make deps", str(cm.exception))

    def test_initramfs_layout(self):
        moddir = os.path.join(self.boot, "mods")
        kdir = os.path.join(moddir, "6.1.0-1-amd64", "kernel", "fs", "9p")
        os.makedirs(kdir)
        with open(os.path.join(kdir, "9p.ko"), "wb") as f:
            f.write(b"\x7fELFfake")
        bb = os.path.join(self.boot, "busybox")
        with open(bb, "wb") as f:
            f.write(b"bb")
        out = os.path.join(self.boot, "initrd")
        jitvm.build_initramfs("6.1.0-1-amd64", bb, out, moddir)
        data = open(out, "rb").read()
        self.assertTrue(data.startswith(b"070701"))
        for name in (b"init\0", b"mods/9p.ko\0", b"bin/busybox\0",
                     b"TRAILER!!!\0"):
            self.assertIn(name, data)
        self.assertEqual(len(data) % 4, 0)

    def test_cached_kernel_and_compressed_modules(self):
        """A release that make kernels fetched boots from the cache, with
        the cache's modules, which may be xz-compressed."""
        cache = os.path.join(self.boot, "kernels")
        rel = "7.3.4+deb13-amd64"
        os.makedirs(os.path.join(cache, "boot"))
        vml = os.path.join(cache, "boot", f"vmlinuz-{rel}")
        open(vml, "w").close()
        self.assertEqual(jitvm.resolve_kernel(rel, self.boot, cache),
                         (vml, rel))
        self.assertEqual(jitvm.module_dir(vml),
                         os.path.join(cache, "lib", "modules"))
        self.assertEqual(jitvm.module_dir("/boot/vmlinuz-6.1.0-1-amd64"),
                         "/lib/modules")
        with self.assertRaises(jitvm.MissingError):
            jitvm.resolve_kernel("7.3.4+deb13-rt-amd64", self.boot, cache)
        kdir = os.path.join(cache, "lib", "modules", rel, "kernel", "fs")
        os.makedirs(kdir)
        with open(os.path.join(kdir, "9p.ko.xz"), "wb") as f:
            f.write(lzma.compress(b"\x7fELFnine"))
        bb = os.path.join(self.boot, "busybox")
        with open(bb, "wb") as f:
            f.write(b"bb")
        out = os.path.join(self.boot, "initrd")
        jitvm.build_initramfs(rel, bb, out, jitvm.module_dir(vml))
        data = open(out, "rb").read()
        self.assertIn(b"mods/9p.ko\0", data)
        self.assertIn(b"\x7fELFnine", data)


def run_with(args, boot):
    """jitvm.run(args) with a made-up kernel and tools, and boot in place
    of booting QEMU."""
    with mock.patch.object(jitvm, "resolve_kernel",
                           return_value=("/boot/vmlinuz-6.1.0-1-amd64",
                                         "6.1.0-1-amd64")), \
            mock.patch.object(jitvm, "find_tool", return_value="/x"), \
            mock.patch.object(jitvm, "build_initramfs"), \
            mock.patch.object(jitvm, "_boot", boot):
        return jitvm.run(args)


class Exchange(unittest.TestCase):
    def test_exchange_dir_is_ours_alone(self):
        """The share the guest's root reads its script from, and writes
        results to, is no one else's to write."""
        seen = {}

        def boot(cmd, outdir, timeout_s, say, watch):
            for name in ("", "save", "cmd.sh"):
                st = os.stat(os.path.join(outdir, name))
                seen[name] = (st.st_uid, stat.S_IMODE(st.st_mode))
            return 0

        args = jitvm.parse_args(["--accel", "tcg", "--", "true"])
        self.assertEqual(run_with(args, boot), 0)
        for name, (uid, mode) in seen.items():
            self.assertEqual(uid, os.geteuid(), name)
            self.assertEqual(mode & 0o022, 0, f"{name!r} mode {mode:o}")


class Retry(unittest.TestCase):
    def boots(self, consoles):
        """run() with one _boot per console text, each reporting no
        status; the consoles it reached and run()'s exit code."""
        seen = []

        def boot(cmd, outdir, timeout_s, say, watch):
            text = consoles[len(seen)]
            seen.append(text)
            with open(os.path.join(outdir, "console.log"), "w") as f:
                f.write(text)
            return 0 if text == "ok" else jitvm.EXIT_NO_STATUS

        args = jitvm.parse_args(["-q", "--accel", "kvm", "--", "true"])
        return seen, run_with(args, boot)

    def test_died_before_the_command_boots_again(self):
        seen, rc = self.boots(["Kernel panic - not syncing", "ok"])
        self.assertEqual((len(seen), rc), (2, 0))

    def test_died_in_the_command_is_not_retried(self):
        seen, rc = self.boots(["jitvm-init: running command\nOops", "ok"])
        self.assertEqual((len(seen), rc), (1, jitvm.EXIT_NO_STATUS))

    def test_retried_once_only(self):
        seen, rc = self.boots(["panic", "panic", "ok"])
        self.assertEqual((len(seen), rc), (2, jitvm.EXIT_NO_STATUS))


if __name__ == "__main__":
    unittest.main()
