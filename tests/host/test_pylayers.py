# SPDX-License-Identifier: GPL-2.0
"""The Python side is one package, jitpy, whose imports go downwards only.

Layers, lowest first: the package root, abi, formats and cpugroup; then guest
(helpers inside a booted kernel) beside vm (the QEMU runner); then bench,
harness and plot, each on its own.  jitpy never imports the tests (the
host tests, or the selftests' runner jittest), so a benchmark cannot lean
on a test oracle; and no Python file of the checkout edits sys.path.
"""

import ast
import importlib
import os
import tempfile
import unittest

import jitpy

TOP = jitpy.TOP
RANK = {"": 0, "abi": 0, "formats": 0, "cpugroup": 0, "guest": 1, "vm": 1,
        "fleet": 1, "bench": 2, "harness": 2, "plot": 2}
TESTS = ("tests", "jittest")
PY_DIRS = ("jitpy", "tests", "selftests")


def py_files(root, sub):
    out = []
    for d, dirs, files in os.walk(os.path.join(root, sub)):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        out += [os.path.relpath(os.path.join(d, f), root) for f in files
                if f.endswith(".py")]
    return sorted(out)


def part(module):
    """The layer of a dotted jitpy module name: its first part below jitpy."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports(path):
    """Absolute module names a file imports ("a.b" for from a.b import c,
    and "a.b.c" as well where c may be a module)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


def import_errors(root):
    """Imports of jitpy modules that go up or sideways, or into the tests."""
    bad = []
    for rel in py_files(root, "jitpy"):
        mod = os.path.splitext(rel)[0].replace(os.sep, ".")
        mod = mod.removesuffix(".__init__")
        mine = part(mod)
        for name in imports(os.path.join(root, rel)):
            top = name.split(".")[0]
            if top in TESTS:
                bad.append(f"{rel} imports test code {name}")
            elif top == "jitpy":
                theirs = part(name)
                if theirs not in RANK:       # a name from jitpy/__init__
                    theirs = ""
                if RANK[theirs] > RANK[mine] or (
                        RANK[theirs] == RANK[mine] and RANK[mine] and
                        theirs != mine):
                    bad.append(f"{rel} ({mine}) imports {name} ({theirs})")
    return bad


def path_edits(root):
    """Files that change sys.path, in any of the checkout's Python dirs."""
    bad = []
    for sub in PY_DIRS:
        for rel in py_files(root, sub):
            with open(os.path.join(root, rel)) as f:
                tree = ast.parse(f.read(), rel)
            for node in ast.walk(tree):
                if (isinstance(node, ast.Attribute) and node.attr == "path"
                        and isinstance(node.value, ast.Name)
                        and node.value.id == "sys"):
                    bad.append(f"{rel}:{node.lineno}")
    return bad


class PyLayers(unittest.TestCase):
    def test_imports_go_down(self):
        self.assertEqual(import_errors(TOP), [])

    def test_no_sys_path_edits(self):
        self.assertEqual(path_edits(TOP), [])

    def test_every_module_imports(self):
        """Each module of the package imports as the package (the ones
        with a __main__ only run on purpose)."""
        for rel in py_files(TOP, "jitpy"):
            mod = os.path.splitext(rel)[0].replace(os.sep, ".")
            if mod.endswith("__main__"):
                continue
            with self.subTest(mod=mod):
                importlib.import_module(mod.removesuffix(".__init__"))

    def test_every_layer_is_known(self):
        subs = {d for d in os.listdir(os.path.join(TOP, "jitpy"))
                if not d.startswith("__")}
        subs = {os.path.splitext(d)[0] for d in subs}
        self.assertEqual(subs - set(RANK), set())


class Checker(unittest.TestCase):
    """The checks themselves, on a small tree that breaks each rule."""

    def test_catches_each_rule(self):
        with tempfile.TemporaryDirectory() as root:
            files = {
                "jitpy/__init__.py": "",
                "jitpy/formats/a.py": "from jitpy.bench import b\n",
                "jitpy/bench/b.py": "from tests.host import jrcli\n"
                                    "import jitpy.harness.c\n",
                "jitpy/guest/g.py": "from jitpy.vm import runner\n"
                                    "from jitpy import abi\n",
                "jitpy/harness/c.py": "import sys\nsys.path.insert(0, '')\n",
                "tests/t.py": "import sys\nprint(sys.path)\n",
            }
            for rel, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(rel)),
                            exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            self.assertEqual(sorted(import_errors(root)), [
                "jitpy/bench/b.py (bench) imports jitpy.harness.c (harness)",
                "jitpy/bench/b.py imports test code tests.host",
                "jitpy/bench/b.py imports test code tests.host.jrcli",
                "jitpy/formats/a.py (formats) imports jitpy.bench (bench)",
                "jitpy/formats/a.py (formats) imports jitpy.bench.b (bench)",
                "jitpy/guest/g.py (guest) imports jitpy.vm (vm)",
                "jitpy/guest/g.py (guest) imports jitpy.vm.runner (vm)"])
            self.assertEqual(path_edits(root), ["jitpy/harness/c.py:2",
                                                "tests/t.py:2"])


if __name__ == "__main__":
    unittest.main()
