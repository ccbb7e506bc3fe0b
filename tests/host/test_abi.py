# SPDX-License-Identifier: GPL-2.0
"""include/jitmod_abi.h's tables are the only definition: the Python
reader sees them, and the two places C cannot generate from them (the
trace formats' symbol lists and the BPF program's tracepoint functions)
list exactly their entries, in their order."""

import os
import re
import unittest

import jitpy
from jitpy import abi as jitabi

TOP = jitpy.TOP

TRACE_H = os.path.join(TOP, "module", "jitmod_trace.h")
BPF_C = os.path.join(TOP, "user", "usamp", "bpf", "jr_ubpf.bpf.c")


def read(path):
    with open(path) as f:
        return f.read()


def macro(text, name):
    """The body of #define name(...), its continuation lines joined."""
    m = re.search(r"#define\s+" + name + r"\([^)]*\)((?:.*\\\n)*.*)", text)
    if m is None:
        raise AssertionError(f"no macro {name}")
    return m.group(1)


class Abi(unittest.TestCase):
    def test_python_reads_the_header(self):
        self.assertEqual(jitabi.CLASSES[:4],
                         ("irq", "softirq", "nmi", "thread"))
        self.assertEqual(len(jitabi.CLASSES), 7)
        self.assertEqual(jitabi.SOFTIRQS[1], "TIMER")
        self.assertEqual(len(jitabi.SOFTIRQS), 10)
        self.assertIn("call_function_single", jitabi.VECTORS)
        self.assertEqual(jitabi.ANOMALIES, ("window", "tsc_back"))
        self.assertEqual(jitabi.DETAILS,
                         ("work", "timer", "hrtimer", "tick", "ipi"))
        self.assertEqual(jitabi.TICK_DEPS[2], "SCHED")

    def test_reader_refuses_a_missing_table(self):
        with self.assertRaises(ValueError):
            jitabi.table("#define OTHER(X) { X(A), }", "JIT_VECTORS")

    def test_trace_symbols_match(self):
        text = read(TRACE_H)
        cls = re.findall(r'\{\s*JIT_NOISE_(\w+),\s*"([^"]+)"\s*\}',
                         macro(text, "jit_show_class"))
        self.assertEqual(cls, list(zip(jitabi._T["CLASS_ENUMS"],
                                       jitabi.CLASSES)))
        soft = re.findall(r'\{\s*(\d+),\s*"([^"]+)"\s*\}',
                          macro(text, "jit_show_softirq"))
        self.assertEqual(soft, [(str(i), n)
                                for i, n in enumerate(jitabi.SOFTIRQS)])
        defined = re.findall(r"TRACE_DEFINE_ENUM\(JIT_NOISE_(\w+)\)", text)
        self.assertEqual(defined, jitabi._T["CLASS_ENUMS"])
        det = re.findall(r'\{\s*JIT_DETAIL_(\w+),\s*"([^"]+)"\s*\}',
                         macro(text, "jit_show_detail"))
        self.assertEqual([n for _, n in det], list(jitabi.DETAILS))
        self.assertEqual([e.lower() for e, _ in det], list(jitabi.DETAILS))
        defined = re.findall(r"TRACE_DEFINE_ENUM\(JIT_DETAIL_(\w+)\)", text)
        self.assertEqual([e.lower() for e in defined], list(jitabi.DETAILS))

    def test_bpf_hooks_every_vector(self):
        got = re.findall(r"^JR_VECTOR\(JIT_VEC_(\w+), (\w+)\)$",
                         read(BPF_C), re.M)
        self.assertEqual(got, [(v, v) for v in jitabi.VECTORS])

    def test_bpf_hooks_every_detail_tracepoint(self):
        """jitmod's hooks are generated from the table; the BPF program
        names its own, BTF-typed or raw (for the csd ones)."""
        got = re.findall(r'^SEC\("(?:tp_btf|raw_tp)/(\w+)"\)$',
                         read(BPF_C), re.M)
        want = [tp for _, tp in jitabi.DETAIL_TPS]
        self.assertEqual([tp for tp in got if tp in want], want)
        self.assertEqual(jitabi.DETAIL_TPS[0],
                         ("work", "workqueue_execute_start"))
        self.assertEqual({k for k, _ in jitabi.DETAIL_TPS},
                         set(jitabi.DETAILS))


if __name__ == "__main__":
    unittest.main()
