# SPDX-License-Identifier: GPL-2.0
"""jitread's layers: includes go downwards only, no include cycle,
every function a header declares is defined beside it, and every
function a file exports has a caller in another file (jitread's, or a C
unit test's).

The layers, lowest first: common (errors, CPU lists, times, pinning)
beside mpi (the survey's MPI plugin, built apart with mpicc), core
(histograms, model, records, reports), kernel (jitmod's parameters and
event stream) beside usamp (the user side), tune (audit and advise,
which read /proc and /sys and never jitmod) and fleet (serve's server,
survey's workload and its MPI plugin's loader), cmd (one file per
subcommand, the live loop and what the subcommands share), then
jitread.c and the fuzz targets.
"""

import os
import re
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
USER = os.path.join(TOP, "user")

RANK = {"common": 0, "mpi": 0, "core": 1, "kernel": 2, "usamp": 2,
        "tune": 2, "fleet": 2, "cmd": 3}
TOP_RANK = 4                       # jitread.c, fuzz/
OUTSIDE = {"jitmod_abi.h", "jr_ubpf.skel.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DECL = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(jr_\w+)\s*\([^;{}]*\)"
                  r"\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?;", re.M | re.S)
DEFN = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(jr_\w+)\s*\([^;{}]*\)"
                  r"\s*\{", re.M)


def sources(root):
    """Every .c and .h under root but the BPF program's own directory
    (it builds for another target, with its own kernel types), relative
    paths."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != "bpf"]
        out += [os.path.relpath(os.path.join(d, f), root) for f in files
                if f.endswith((".c", ".h"))]
    return sorted(out)


def layer(path):
    """(rank, name) of a file's layer."""
    head = path.split(os.sep)[0]
    return (RANK[head], head) if head in RANK else (TOP_RANK, head)


def read(root, path):
    with open(os.path.join(root, path)) as f:
        return COMMENT.sub("", f.read())


def include_errors(root):
    """Includes that go up, sideways between kernel, usamp and tune, or
    nowhere."""
    bad = []
    for src in sources(root):
        rank, name = layer(src)
        for inc in INCLUDE.findall(read(root, src)):
            if inc in OUTSIDE or inc.startswith("usamp/bpf/"):
                continue
            if not os.path.exists(os.path.join(root, inc)):
                bad.append(f"{src}: \"{inc}\" is not a path under user/")
                continue
            irank, iname = layer(inc)
            if irank > rank or (irank == rank and iname != name):
                bad.append(f"{src} ({name}) includes {inc} ({iname})")
    return bad


def unit_graph(root):
    """Units (a path without .c/.h) and the units each one includes."""
    graph = {}
    for src in sources(root):
        unit = os.path.splitext(src)[0]
        deps = graph.setdefault(unit, set())
        for inc in INCLUDE.findall(read(root, src)):
            if os.path.exists(os.path.join(root, inc)):
                dep = os.path.splitext(inc)[0]
                if dep != unit:
                    deps.add(dep)
    return graph


def cycles(graph):
    """One include cycle per strongly connected group, as lists."""
    state, out = {}, []

    def visit(u, path):
        state[u] = 1
        path.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                out.append(path[path.index(v):] + [v])
            elif v not in state:
                visit(v, path)
        path.pop()
        state[u] = 2

    for u in sorted(graph):
        if u not in state:
            visit(u, [])
    return out


def misplaced(root):
    """Functions a header declares that its own .c (or X_*.c beside it)
    does not define."""
    defs = {}
    for src in sources(root):
        if src.endswith(".c"):
            for name in DEFN.findall(read(root, src)):
                defs.setdefault(name, []).append(src)
    bad = []
    for hdr in (s for s in sources(root) if s.endswith(".h")):
        base = os.path.splitext(hdr)[0]
        for name in DECL.findall(read(root, hdr)):
            where = defs.get(name, [])
            ok = [w for w in where if os.path.splitext(w)[0] == base or
                  os.path.splitext(w)[0].startswith(base + "_")]
            if not ok:
                bad.append(f"{hdr} declares {name}, defined in "
                           f"{', '.join(where) or 'no file'}")
    return bad


def lonely_exports(root, others=()):
    """Functions a .c file defines without static that no other .c file
    under root, nor one of others (paths of the C unit tests), calls."""
    texts = {src: read(root, src) for src in sources(root)
             if src.endswith(".c")}
    for path in others:
        with open(path) as f:
            texts[path] = COMMENT.sub("", f.read())
    bad = []
    for src in sorted(p for p in texts if p not in others):
        for name in DEFN.findall(texts[src]):
            call = re.compile(rf"\b{name}\b")
            if not any(call.search(t) for p, t in texts.items()
                       if p != src):
                bad.append(f"{src} exports {name}, called nowhere else")
    return bad


C_TESTS = [os.path.join(TOP, "tests", "host", "c", f)
           for f in sorted(os.listdir(os.path.join(TOP, "tests", "host",
                                                   "c")))
           if f.endswith(".c")]


class Layers(unittest.TestCase):
    def test_includes_go_down(self):
        self.assertEqual(include_errors(USER), [])

    def test_no_include_cycle(self):
        self.assertEqual(cycles(unit_graph(USER)), [])

    def test_functions_live_beside_their_header(self):
        self.assertEqual(misplaced(USER), [])

    def test_every_export_has_a_caller_elsewhere(self):
        self.assertEqual(lonely_exports(USER, C_TESTS), [])

    def test_layers_are_there(self):
        for d in RANK:
            self.assertTrue(os.path.isdir(os.path.join(USER, d)), d)
        self.assertFalse([f for f in os.listdir(USER)
                          if f.endswith(".c") and f != "jitread.c"],
                         "only the dispatcher lives at the top")


class Checker(unittest.TestCase):
    """The checks themselves, on a small tree that breaks each rule."""

    def tree(self, files):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        for path, text in files.items():
            os.makedirs(os.path.join(d.name, os.path.dirname(path)),
                        exist_ok=True)
            with open(os.path.join(d.name, path), "w") as f:
                f.write(text)
        return d.name

    def test_catches_each_rule(self):
        root = self.tree({
            "common/a.h": '#include "cmd/b.h"\nint jr_a(void);\n',
            "common/a.c": '#include "common/a.h"\nint jr_a(void)\n{\n}\n',
            "cmd/b.h": '#include "common/a.h"\nvoid jr_b(int x);\n',
            "cmd/b.c": '#include "cmd/b.h"\n',
            "cmd/c.c": 'void jr_b(int x)\n{\n}\n',
            "kernel/k.c": '#include "usamp/u.h"\n',
            "usamp/u.h": "\n",
        })
        self.assertEqual(sorted(include_errors(root)), [
            "common/a.h (common) includes cmd/b.h (cmd)",
            "kernel/k.c (kernel) includes usamp/u.h (usamp)"])
        self.assertEqual(cycles(unit_graph(root)),
                         [["cmd/b", "common/a", "cmd/b"]])
        self.assertEqual(misplaced(root),
                         ["cmd/b.h declares jr_b, defined in cmd/c.c"])
        self.assertEqual(lonely_exports(root), [
            "cmd/c.c exports jr_b, called nowhere else",
            "common/a.c exports jr_a, called nowhere else"])

    def test_clean_tree_passes(self):
        root = self.tree({
            "common/a.h": "int jr_a(void);\n",
            "common/a.c": '#include "common/a.h"\nint jr_a(void)\n{\n}\n',
            "cmd/b.h": '#include "common/a.h"\n',
            "cmd/b_x.c": '#include "cmd/b.h"\nvoid f(void)\n{\n\tjr_a();\n}\n',
        })
        self.assertEqual((include_errors(root), cycles(unit_graph(root)),
                          misplaced(root), lonely_exports(root)),
                         ([], [], [], []))


if __name__ == "__main__":
    unittest.main()
