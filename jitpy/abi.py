# SPDX-License-Identifier: GPL-2.0
"""The tables of include/jitmod_abi.h, for Python: read from the header
itself, so that the C and Python sides cannot drift apart.

CLASSES    the noise classes' names, in enum order ("irq", ...)
SOFTIRQS   the softirq vectors' names, in the kernel's order ("HI", ...)
VECTORS    the x86 system vectors jitmod hooks ("local_timer", ...)
ANOMALIES  the anomaly kinds, by bit ("window", "tsc_back")
DETAILS    what jitmod:detail names ("work", ...)
DETAIL_TPS (detail, tracepoint) for each tracepoint a detail needs
TICK_DEPS  the tick's dependencies, by bit ("POSIX_TIMER", ...)
"""

import os
import re

import jitpy


def _header():
    """The checkout's include/jitmod_abi.h; where jitpy is installed
    (make install, python3-jitpy), the copy installed beside it."""
    tree = os.path.join(jitpy.TOP, "include", "jitmod_abi.h")
    if os.path.exists(tree):
        return tree
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "jitmod_abi.h")


HEADER = _header()


def table(text, name):
    """The X(...) entries of table name, each as a tuple of its
    arguments with string quotes removed."""
    m = re.search(r"#define\s+" + name + r"\(X\)[^{]*\{(.*?)\}", text,
                  re.S)
    if m is None:
        raise ValueError(f"{HEADER}: no table {name}")
    return [tuple(a.strip().strip('"') for a in e.split(","))
            for e in re.findall(r"\bX\(([^)]*)\)", m.group(1))]


def load(path=HEADER):
    """{CLASSES, SOFTIRQS, VECTORS, ANOMALIES, DETAILS, DETAIL_TPS,
    TICK_DEPS} from the header at path."""
    with open(path) as f:
        text = f.read()
    return {"CLASSES": [e[1] for e in table(text, "JIT_NOISE_CLASSES")],
            "CLASS_ENUMS": [e[0] for e in table(text, "JIT_NOISE_CLASSES")],
            "SOFTIRQS": [e[0] for e in table(text, "JIT_SOFTIRQS")],
            "VECTORS": [e[0] for e in table(text, "JIT_VECTORS")],
            "ANOMALIES": [e[1] for e in table(text, "JIT_ANOMALIES")],
            "DETAILS": [e[1] for e in table(text, "JIT_DETAILS")],
            "DETAIL_TPS": [(e[0].lower(), e[1])
                           for e in table(text, "JIT_DETAIL_TPS")],
            "TICK_DEPS": [e[0] for e in table(text, "JIT_TICK_DEPS")]}


_T = load()
CLASSES = tuple(_T["CLASSES"])
SOFTIRQS = tuple(_T["SOFTIRQS"])
VECTORS = tuple(_T["VECTORS"])
ANOMALIES = tuple(_T["ANOMALIES"])
DETAILS = tuple(_T["DETAILS"])
DETAIL_TPS = tuple(_T["DETAIL_TPS"])
TICK_DEPS = tuple(_T["TICK_DEPS"])
