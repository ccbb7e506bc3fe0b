# SPDX-License-Identifier: GPL-2.0
"""Write and read jitread recordings (user/core/jr_rec.h) from Python.

The layout is written out here on purpose, apart from the C code: the
tests replay these files through jitread, so a change on the C side that
is not made here fails them.  The benchmarks and make fuzz's seed corpus
write their recordings with it too (python3 -m jitpy.formats.recording
DIR writes the seeds).
"""

import collections
import os
import struct
import sys

from jitpy import abi as jitabi

MAGIC = b"JITREC\x00\x01"
HDR = struct.Struct("<8sII65s96s480s256s82s5xQ16x")
REC = struct.Struct("<Q7QIHhii40s")
REC_V1 = struct.Struct("<Q5QIHhii40s")  # version 1: five values
GAP, IRQ, SOFTIRQ, NMI, THREAD, SUMMARY, STOP, LOST, DETAIL = range(9)
CLS = {name: i for i, name in enumerate(jitabi.CLASSES)}
DETAILS = {name: i for i, name in enumerate(jitabi.DETAILS)}
VERSION = 3


def header(version=VERSION, rec_size=None, kernel="6.1.0-test",
           params="threshold_ns=1000 cpus=1-3"):
    if rec_size is None:
        rec_size = REC_V1.size if version == 1 else REC.size
    return HDR.pack(MAGIC, version, rec_size, kernel.encode(), b"Test CPU",
                    b"isolcpus=1-3", params.encode(), b"jitread --record",
                    2000000)


def rec(rtype, cpu, v=(), cls=0, ident=0, ident2=0, name="", ts=0, fmt=REC):
    """One record; fmt=REC_V1 lays it out as version 1 did."""
    nv = 5 if fmt is REC_V1 else 7
    v = list(v) + [0] * (nv - len(v))
    return fmt.pack(ts, *v, cpu, rtype, cls, ident, ident2, name.encode())


def gap(cpu, ns, cls="hw:unknown", ts=0):
    return rec(GAP, cpu, (ns,), cls=CLS[cls], ts=ts)


def irq(cpu, ns, name, irq_no=-1, vector=236, ts=0):
    return rec(IRQ, cpu, (ns,), ident=irq_no, ident2=vector, name=name,
               ts=ts)


def thread(cpu, ns, comm, pid, ts=0):
    return rec(THREAD, cpu, (ns,), ident=pid, name=comm, ts=ts)


def softirq(cpu, ns, vec, ts=0):
    return rec(SOFTIRQ, cpu, (ns,), cls=jitabi.SOFTIRQS.index(vec), ts=ts)


def detail(cpu, kind, fn, window, wall_ns=0, pid=0, dep=0, ts=0):
    """A jitmod:detail: kind "work", "timer", "hrtimer", "tick" or "ipi",
    in a window of class window ("irq", "softirq" or "thread"); dep is
    the tick's mask, or the IPI's sender CPU (-1: not seen)."""
    return rec(DETAIL, cpu, (wall_ns, pid), cls=DETAILS[kind], ident=dep,
               ident2=CLS[window], name=fn, ts=ts)


def summary(cpu, runtime, noise, max_gap, iters=1000, res_ps=35, self_ns=0,
            anomalies=0, anomaly_mask=0):
    return rec(SUMMARY, cpu, (runtime, noise, max_gap, iters, res_ps,
                              self_ns, anomalies), ident=anomaly_mask)


Rec = collections.namedtuple("Rec", "ts v cpu type cls id id2 name")


def read(path):
    """The records of a recording of this version, as Rec tuples."""
    with open(path, "rb") as f:
        head = f.read(HDR.size)
        if len(head) != HDR.size or head[:8] != MAGIC:
            raise ValueError(f"{path}: not a jitread recording")
        version, rec_size = struct.unpack_from("<II", head, 8)
        if version != VERSION or rec_size != REC.size:
            raise ValueError(f"{path}: version {version}, size {rec_size}")
        out = []
        while True:
            b = f.read(REC.size)
            if len(b) < REC.size:
                return out
            x = REC.unpack(b)
            out.append(Rec(x[0], x[1:8], x[8], x[9], x[10], x[11], x[12],
                           x[13].rstrip(b"\0").decode(errors="replace")))


def write(path, records, **kw):
    with open(path, "wb") as f:
        f.write(header(**kw))
        for r in records:
            f.write(r)


def main():
    """Write seed recordings into the directory given (for make fuzz)."""
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "empty.rec": [],
        "mixed.rec": [gap(1, 5000), irq(1, 900, "local_timer"),
                      irq(2, 5000, "virtio0-input", 24, -1),
                      thread(1, 7000, "kworker/1:1", 42),
                      rec(SOFTIRQ, 1, (50,), cls=1),
                      rec(NMI, 3, (40,), name="perf_event_nmi_handler"),
                      gap(3, 20000, "hw:smi"), summary(1, 10 ** 9, 9000, 5000),
                      rec(STOP, 1, (9000, 5000)), rec(LOST, 2, (3,))],
    }
    for name, recs in seeds.items():
        write(os.path.join(out, name), recs)


if __name__ == "__main__":
    main()
