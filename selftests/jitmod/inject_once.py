#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each injector class once at D = 1000 us, under its class and source.

The kernel matrix's smoke test of classification (classify.py is the
full one, on 6.1): jitread hist samples CPU 1 while the injector fires a
FIFO thread, an IPI, a TIMER softirq, an NMI, a pinned hard hrtimer and a
work item there, once each.  Each must show as its source, in its class,
with a longest event of at least the spin's floor less what the injector
saw nested in its spin (the work item: the kworker's whole time, as a
tick's FIFO threads, ktimers/N and rcuc/N on PREEMPT_RT, may preempt the
SCHED_OTHER kworker in the middle of the item and so split its window),
and the callbacks named where the kernel has the
tracepoints: the work item and the hrtimer callback on every kernel, and
the IPI's function with the CPU that asked where jitmod's "details" lists
ipi (the csd tracepoints: 6.12 on, not 6.1).
"""

import json
import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
D_US = 1000
ATTEMPTS = 3


def expected(pids):
    """class: (source name, or a prefix ending in ':', its class)."""
    return {"thread": (f"thread:jitinject/{CPU}[{pids['thread']}]",
                       "thread"),
            "ipi": ("irq:call_function_single", "irq"),
            "softirq": ("softirq:TIMER", "softirq"),
            "nmi": ("nmi:jinj_nmi", "nmi"),
            "hrtimer": ("irq:local_timer", "irq"),
            "work": (f"thread:kworker/{CPU}:", "thread")}


def run(out, ready):
    """jitread hist while each class fires once; {class: (pid, nested)}."""
    p = kmod.jitread_live("hist", out, ready)
    done = {}
    for cls in expected({"thread": 0}):
        time.sleep(0.2)
        injector.fire(cls, D_US)
        pid = int(sysio.read(f"{injector.PARAMS}/last_pid")) \
            if cls == "thread" else None
        done[cls] = (pid, injector.nested_ns())
    time.sleep(2.5)
    kmod.jitread_stop(p)
    return done


def attempt(_try=0):
    """One load, injection and check of every class; Fail says what."""
    # runtime = period: no injection may land in the sampler's sleep,
    # where an IPI to an idle CPU need not even be an interrupt
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=1000000,
                runtime_us=1000000)
    kmod.insmod("jitinject", cpu=CPU)
    have = sysio.read(f"{kmod.JIT_PARAMS}/details")
    out, ready = "/tmp/inject_once.json", "/tmp/inject_once.ready"
    done = run(out, ready)
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")
    with open(out) as f:
        cpu = [c for c in json.load(f)["cpus"] if c["cpu"] == CPU][0]
    floor = injector.spin_floor_ns(D_US * 1000)
    want = expected({"thread": done["thread"][0]})
    for cls, (name, klass) in want.items():
        rows = [s for s in cpu["sources"]
                if (s["source"].startswith(name) if name.endswith(":")
                    else s["source"] == name)]
        least = floor - done[cls][1]
        key = "total_ns" if cls == "work" else "max_ns"
        hit = [s for s in rows if s["class"] == klass
               and s[key] >= least]
        if not hit:
            have = rows or sorted(s["source"] for s in cpu["sources"])
            raise Fail(f"{cls}: no {name} row in class {klass} reaching "
                       f"{least} ns: {have}")
        log(f"{cls}: {hit[0]['source']} {key[:-3]} "
            f"{hit[0][key] / 1e3:.1f} us (floor {least / 1e3:.1f})")
    details = {d["name"] for s in cpu["sources"] for d in s["detail"]}
    for name in ("work:jinj_work_fn", "hrtimer:jinj_hrtimer_fn"):
        if name not in details:
            raise Fail(f"{name} not named: {sorted(details)}")
    if "ipi" in have.split(","):
        ipi = [d["name"] for s in cpu["sources"]
               if s["source"] == "irq:call_function_single"
               for d in s["detail"] if d["name"].startswith("ipi:jinj_ipi")]
        if not [n for n in ipi if " from CPU " in n]:
            raise Fail(f"the IPI's function and sender not named: "
                       f"{sorted(details)}")
        log(f"details {have}: {ipi}")
    else:
        log(f"details {have}: no csd tracepoints, IPIs not named")


def body():
    """ATTEMPTS tries: a host stall under TCG can split or hide one
    injection; a class misfiled every time is a jitmod bug."""
    jt.attempts(attempt, ATTEMPTS, after_fail=kmod.unload)


if __name__ == "__main__":
    sys.exit(jt.run(body))
