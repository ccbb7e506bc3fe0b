# SPDX-License-Identifier: GPL-2.0
"""make install and make uninstall into a DESTDIR, as a packager or a
user with PREFIX runs them: the files, the installed jitread finding its
MPI plugin, the man pages rendering, bash completion completing, and
nothing of ours left after uninstall.  make install-dkms is used by
test_dkms, which builds from what it installs."""

import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from jitpy.formats import recording as jrrec
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
                "usr/share/man/man4/jitmod.4",
                "usr/share/jitread/prometheus/jitread.rules.yml",
                "usr/lib/systemd/system/jitread-serve.service",
                "usr/lib/systemd/system/jitread-serve.socket",
                "etc/default/jitread-serve"]
        want += [f"usr/share/doc/jitread/{d}" for d in
                 ("jitmod.rst", "advise.rst", "fleet.rst", "install.rst")]
        py = "usr/lib/python3/dist-packages/"
        want += [py + "jitpy/jitmod_abi.h"]
        for sub in ("", "formats/", "plot/"):
            want += [py + os.path.relpath(f, TOP) for f in
                     glob.glob(os.path.join(TOP, "jitpy", sub, "*.py"))
                     if sub or os.path.basename(f) in ("__init__.py",
                                                       "abi.py")]
        want += [f"usr/share/man/man1/{p[:-4]}.1" for p in pages]
        if os.path.exists(PLUGIN):
            want.append("usr/lib/jitread/jitread-mpi.so")
        self.assertEqual(self.files, sorted(want))
        self.assertEqual(len(pages), 14)
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

    def test_man_pages_name_installed_documents(self):
        """Where a page names one of the project's documents, it names the
        installed copy, which is there: never the source tree."""
        ours = [f for f in os.listdir(os.path.join(TOP, "Documentation"))
                if f.endswith(".rst")]
        named = set()
        for f in self.files:
            if "/man/" not in f:
                continue
            with open(os.path.join(self.dest, f), encoding="utf-8") as pg:
                text = re.sub(r"\\f[BIRP]", "", pg.read())  # fonts
            for doc in ours:
                for m in re.finditer(r"[\w./-]*" + re.escape(doc), text):
                    self.assertEqual(m.group(0),
                                     f"/usr/share/doc/jitread/{doc}", f)
                    named.add(doc)
        self.assertIn("advise.rst", named)
        for doc in named:
            self.assertIn(f"usr/share/doc/jitread/{doc}", self.files)

    def complete(self, *words, sysfs=None):
        """What the installed completion offers for the last of words."""
        script = os.path.join(self.dest, "usr", "share", "bash-completion",
                              "completions", "jitread")
        line = " ".join(words)
        prog = (f'source {script}; COMP_WORDS=({line}); '
                f'COMP_CWORD={len(words) - 1}; _jitread {words[0]}; '
                f'printf "%s\\n" "${{COMPREPLY[@]}}"')
        env = dict(os.environ, PATH=os.path.dirname(self.bin) + ":" +
                   os.environ["PATH"])
        if sysfs:
            env["JITREAD_SYSFS"] = sysfs
        p = subprocess.run(["bash", "-c", prog], capture_output=True,
                           text=True, check=True, env=env)
        return p.stdout.split()

    def test_completion(self):
        self.assertEqual(self.complete("jitread", "hi"), ["hist"])
        self.assertIn("serve", self.complete("jitread", "s"))
        self.assertEqual(self.complete("jitread", "serve", "--textf"),
                         ["--textfile"])
        self.assertIn("--fail-if", self.complete("jitread", "hist", "--"))

    def test_units_name_the_installed_jitread(self):
        """The units as the package ships them, but for ExecStart, which
        names PREFIX's jitread; the defaults as shipped."""
        dest = os.path.join(self.tmp.name, "local")
        make("install", f"DESTDIR={dest}", "PREFIX=/usr/local")
        units = os.path.join(dest, "usr/local/lib/systemd/system")
        with open(os.path.join(units, "jitread-serve.service")) as f:
            unit = f.read()
        self.assertIn("\nExecStart=/usr/local/bin/jitread serve ", unit)
        self.assertNotIn("/usr/bin/jitread", unit)
        with open(os.path.join(TOP, "dist", "jitread-serve.service")) as f:
            self.assertEqual(unit.replace("/usr/local/bin/", "/usr/bin/"),
                             f.read())
        self.assertTrue(os.path.exists(os.path.join(units,
                                                    "jitread-serve.socket")))
        with open(os.path.join(TOP, "dist", "jitread-serve.default")) as f:
            shipped = f.read()
        with open(os.path.join(dest, "etc/default/jitread-serve")) as f:
            self.assertEqual(f.read(), shipped)

    def test_edited_defaults_are_kept(self):
        """An administrator's /etc/default/jitread-serve outlives install
        and uninstall."""
        dest = os.path.join(self.tmp.name, "edited")
        mine = os.path.join(dest, "etc", "default", "jitread-serve")
        os.makedirs(os.path.dirname(mine))
        with open(mine, "w") as f:
            f.write('JITREAD_SERVE_OPTS="-c 3"\n')
        make("install", f"DESTDIR={dest}", "PREFIX=/opt/jr")
        make("uninstall", f"DESTDIR={dest}", "PREFIX=/opt/jr")
        self.assertEqual(files_under(dest), ["etc/default/jitread-serve"])
        with open(mine) as f:
            self.assertEqual(f.read(), 'JITREAD_SERVE_OPTS="-c 3"\n')

    def test_completion_of_values(self):
        """Options that take a fixed set of words offer those words, each
        of which jitread takes, and which its help names; CPU lists come
        from /sys."""
        for cmd, opt, help_word in (("serve", "--sampler", "WHICH"),
                                    ("hist", "--unit", "ns|us|ms"),
                                    ("user", "--wait", "STRATEGY"),
                                    ("user", "--work", "MODE"),
                                    ("survey", "--mode", "MODE"),
                                    ("hist", "--precision", "N"),
                                    ("hist", "--on-threshold", "ACTION"),
                                    ("hist", "--on-end", "ACTION")):
            words = self.complete("jitread", cmd, opt, "''")
            self.assertGreaterEqual(len(words), 2, (cmd, opt))
            _, helptext, _ = jrcli.jitread(cmd, "--help")
            line = re.search(r"^.*" + re.escape(f"{opt} {help_word}") +
                             r".*(\n {28}.*)*", helptext, re.M).group(0)
            for w in words:
                if w.endswith("="):
                    self.assertIn(w[:-1], line, (cmd, opt))
                    continue
                if not w.isdigit():     # --precision's help: 1-4
                    self.assertIn(w, line, (cmd, opt))
                rc, _, err = jrcli.jitread(cmd, opt, w, "--help")
                self.assertEqual(rc, 0, f"{cmd} {opt} {w}: {err}")
            rc, _, _ = jrcli.jitread(cmd, opt, "bogus", "--help")
            self.assertEqual(rc, 2, (cmd, opt))
        self.assertEqual(self.complete("jitread", "user", "--work", "me"),
                         ["memwalk"])
        sysfs = os.path.join(self.tmp.name, "sys")
        for f, text in (("devices/system/cpu/online", "0-3,6"),
                        ("devices/system/cpu/isolated", "2-3"),
                        ("devices/system/cpu/nohz_full", "(null)"),
                        ("module/jitmod/parameters/cpus", "2")):
            os.makedirs(os.path.dirname(os.path.join(sysfs, f)),
                        exist_ok=True)
            with open(os.path.join(sysfs, f), "w") as fh:
                fh.write(text + "\n")
        for opt in ("-c", "-H", "--rank-cpus"):
            self.assertEqual(
                sorted(self.complete("jitread", "hist", opt, "''",
                                     sysfs=sysfs)),
                sorted(["0-3,6", "2-3", "2", "0", "1", "3", "6"]), opt)

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"),
                         "python3-matplotlib missing")
    def test_installed_plots(self):
        """python3 -m jitpy.plot from the installed package alone, away
        from the checkout: its tables from the installed header."""
        rec = os.path.join(self.tmp.name, "r.rec")
        report = os.path.join(self.tmp.name, "r.json")
        jrrec.write(rec, [jrrec.gap(1, v) for v in range(1000, 50000, 7)] +
                    [jrrec.irq(1, 4000, "local_timer"),
                     jrrec.summary(1, 10 ** 9, 10 ** 6, 49000)])
        subprocess.run([self.bin, "report", rec, "-q", "--json", report],
                       check=True)
        env = dict(os.environ, PYTHONPATH=os.path.join(
            self.dest, "usr/lib/python3/dist-packages"))
        out = os.path.join(self.tmp.name, "plots")
        where = subprocess.run(
            [sys.executable, "-c", "import jitpy, jitpy.abi as a; "
             "print(jitpy.__file__); print(a.HEADER)"],
            capture_output=True, text=True, check=True, env=env,
            cwd=self.tmp.name).stdout.split()
        for path in where:
            self.assertTrue(path.startswith(self.dest), where)
        p = subprocess.run([sys.executable, "-m", "jitpy.plot", report,
                            "-o", out], capture_output=True, text=True,
                           check=False, env=env, cwd=self.tmp.name)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("percentiles.png", os.listdir(out))

    def test_uninstall_leaves_nothing(self):
        dest = os.path.join(self.tmp.name, "again")
        make("install", f"DESTDIR={dest}", "PREFIX=/opt/jr")
        self.assertIn("opt/jr/bin/jitread", files_under(dest))
        make("uninstall", f"DESTDIR={dest}", "PREFIX=/opt/jr")
        self.assertEqual(files_under(dest), [])


if __name__ == "__main__":
    unittest.main()
