# SPDX-License-Identifier: GPL-2.0
"""make install and make uninstall into a DESTDIR, as a packager or a
user with PREFIX runs them: the files, the installed jitread finding its
MPI plugin, the man pages rendering, bash completion completing, and
nothing of ours left after uninstall.  make install-dkms is used by
test_dkms, which builds from what it installs."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from tests.host import jrcli

TOP = jrcli.TOP
PLUGIN = os.path.join(TOP, "user", "jitread-mpi.so")


def make(*args):
    p = subprocess.run(["make", "-s", "-C", TOP, *args], capture_output=True,
                       text=True, check=False, timeout=600)
    if p.returncode:
        raise AssertionError(f"make {' '.join(args)}: {p.stderr[-2000:]}")
    return p.stdout


def files_under(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
@unittest.skipUnless(shutil.which("rst2man"), "rst2man missing (make deps)")
class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dest = os.path.join(cls.tmp.name, "dest")
        make("install", f"DESTDIR={cls.dest}", "PREFIX=/usr")
        cls.files = files_under(cls.dest)
        cls.bin = os.path.join(cls.dest, "usr", "bin", "jitread")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_files(self):
        pages = sorted(f for f in os.listdir(os.path.join(TOP,
                                                          "Documentation"))
                       if f.startswith("jitread") and f.endswith(".rst"))
        want = ["usr/bin/jitread",
                "usr/share/bash-completion/completions/jitread",
                "usr/share/man/man4/jitmod.4"]
        want += [f"usr/share/man/man1/{p[:-4]}.1" for p in pages]
        if os.path.exists(PLUGIN):
            want.append("usr/lib/jitread/jitread-mpi.so")
        self.assertEqual(self.files, sorted(want))
        self.assertEqual(len(pages), 12)
        mode = os.stat(self.bin).st_mode & 0o777
        self.assertEqual(mode, 0o755)

    def test_installed_jitread_runs(self):
        p = subprocess.run([self.bin, "--version"], capture_output=True,
                           text=True, check=True)
        with open(os.path.join(TOP, "VERSION")) as f:
            self.assertEqual(p.stdout, f"jitread {f.read().strip()}\n")

    @unittest.skipUnless(os.path.exists(PLUGIN) and shutil.which("mpirun")
                         and os.geteuid() == 0,
                         "no MPI plugin built, or not root")
    def test_installed_plugin_is_found(self):
        """PREFIX/bin/jitread loads PREFIX/lib/jitread/jitread-mpi.so: a
        one-rank fixed-work-quantum survey (an MPI singleton) runs."""
        p = subprocess.run([self.bin, "survey", "--mode", "fwq", "-d",
                            "1s", "--rank-cpus", "0"], capture_output=True,
                           text=True, check=False, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("# jitread survey: 1 ranks, 1 reported", p.stdout)

    def test_man_pages_render(self):
        if not shutil.which("man"):
            self.skipTest("man (man-db) missing")
        for f in self.files:
            if "/man/" not in f:
                continue
            p = subprocess.run(["man", "--warnings", "-l",
                                os.path.join(self.dest, f)],
                               capture_output=True, text=True, check=False,
                               env=dict(os.environ, MANWIDTH="80",
                                        MAN_KEEP_FORMATTING="0"))
            self.assertEqual((p.returncode, p.stderr), (0, ""), f)
            self.assertIn("SYNOPSIS", re.sub(".\b", "", p.stdout), f)

    def complete(self, *words):
        """What the installed completion offers for the last of words."""
        script = os.path.join(self.dest, "usr", "share", "bash-completion",
                              "completions", "jitread")
        line = " ".join(words)
        prog = (f'source {script}; COMP_WORDS=({line}); '
                f'COMP_CWORD={len(words) - 1}; _jitread {words[0]}; '
                f'printf "%s\\n" "${{COMPREPLY[@]}}"')
        env = dict(os.environ, PATH=os.path.dirname(self.bin) + ":" +
                   os.environ["PATH"])
        p = subprocess.run(["bash", "-c", prog], capture_output=True,
                           text=True, check=True, env=env)
        return p.stdout.split()

    def test_completion(self):
        self.assertEqual(self.complete("jitread", "hi"), ["hist"])
        self.assertIn("serve", self.complete("jitread", "s"))
        self.assertEqual(self.complete("jitread", "serve", "--textf"),
                         ["--textfile"])
        self.assertIn("--fail-if", self.complete("jitread", "hist", "--"))

    def test_uninstall_leaves_nothing(self):
        dest = os.path.join(self.tmp.name, "again")
        make("install", f"DESTDIR={dest}", "PREFIX=/opt/jr")
        self.assertIn("opt/jr/bin/jitread", files_under(dest))
        make("uninstall", f"DESTDIR={dest}", "PREFIX=/opt/jr")
        self.assertEqual(files_under(dest), [])


if __name__ == "__main__":
    unittest.main()
