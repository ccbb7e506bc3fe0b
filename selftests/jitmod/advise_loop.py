#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The loop end to end: measure, advise, apply, measure again, diff.

A mistuned guest: on CPU 1, which jitmod samples,
 - the virtio IRQs are given CPU 1's affinity while a reader on CPU 0
   reads files through the 9p share, so the device interrupts land there;
 - the injector queues a work item on CPU 1 every 100 ms;
 - the injector arms a pinned timer on CPU 1 every 100 ms;
 - a user task pinned to CPU 1 allocates and frees memory every 50 ms, so
   that CPU 1's vmstat counters need folding (vm.stat_interval=1).
jitread advise on the first report must name each cause with its fix:
irq-affinity for a virtio IRQ, task-affinity for the task's pid, vmstat
(where vmstat_update ran twice or more: the kernel folds the counters
only when they changed), work-item for jinj_work_fn, timer-callback for
jinj_timer_fn.  The test
then applies the fixes as advised (it runs the irq-affinity, taskset and
sysctl commands advise gave to paste, and stops the injector, which is the
queuer the work-item and timer advice point to), measures again, and:
the IRQ, work, timer and task rows are gone, and advise on the second
report has nothing for those causes.  diff's verdict is logged, not
judged: the emulator's own noise can outweigh what the fixes removed.

Each advice must also fit this kernel: the audit's kernel features agree
with the guest's /boot/config and tracefs, a fix never carries what the
kernel lacks (on PREEMPT_RT, transparent hugepages), and the coverage
line accounts for CPU 1's noise, fixes within what their advice measured.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, Skip, log
from jitpy.guest.tracefs import ROOT as TRACEFS

CPU = 1
RUN_S = 12
D_US = 300
WANT = ("irq-affinity", "task-affinity", "vmstat", "work-item",
        "timer-callback")
HOG = ("import time\n"
       "while True:\n"
       "    b = bytearray(8 << 20)\n"
       "    del b\n"
       "    time.sleep(0.05)\n")


def virtio_irqs():
    """The virtio queue IRQs (not config) from /proc/interrupts."""
    irqs = []
    with open("/proc/interrupts") as f:
        for line in f:
            m = re.match(r"\s*(\d+):.*\s(virtio\S+)\s*$", line)
            if m and "config" not in m.group(2):
                irqs.append(int(m.group(1)))
    return irqs


def reader(stop):
    """Read files through 9p from CPU 0 until stop is set."""
    os.sched_setaffinity(0, {0})
    for root, _, files in os.walk("/usr/lib"):
        for name in files:
            if stop.is_set():
                return
            try:
                with open(os.path.join(root, name), "rb") as f:
                    f.read(1 << 16)
            except OSError:
                pass
            time.sleep(0.005)


def injections(stop):
    """A work item and a pinned timer on CPU 1 every 100 ms."""
    while not stop.is_set():
        injector.fire("work", D_US)
        injector.fire("softirq", D_US)
        time.sleep(0.1)


def hist(jr, path):
    rc, text = sysio.sh([jr, "hist", "-c", str(CPU), "-d", f"{RUN_S}s",
                         "-q", "--json", path], check=False,
                        timeout=RUN_S + 90)
    if rc:
        raise Fail(f"jitread hist exit {rc}: {text[-400:]}")
    with open(path) as f:
        return json.load(f)


def advise(jr, path):
    rc, text = sysio.sh([jr, "advise", path, "--json", "-", "-q"],
                        check=False, timeout=60)
    if rc:
        raise Fail(f"jitread advise exit {rc}: {text[-400:]}")
    return json.loads(text)


# a kernel feature, its CONFIG_ symbol (None: told by tracefs), and what
# a fix must not say when the kernel lacks it
FEATURES = {"no_hz_full": ("CONFIG_NO_HZ_FULL", "nohz_full="),
            "rcu_nocb_cpu": ("CONFIG_RCU_NOCB_CPU", "rcu_nocbs="),
            "trace_events": ("CONFIG_EVENT_TRACING", " -e "),
            "csd_events": (None, "csd:"),
            "ftrace_filter": ("CONFIG_DYNAMIC_FTRACE", "-p function"),
            "thp": ("CONFIG_TRANSPARENT_HUGEPAGE", "transparent_hugepage")}


def kernel_config():
    """This kernel's options that are =y or =m."""
    with open(f"/boot/config-{os.uname().release}") as f:
        return {ln.split("=")[0] for ln in f
                if re.match(r"CONFIG_\w+=[ym]$", ln.strip())}


def check_features(report):
    """The audit in the report says what this kernel has, as its config
    and tracefs do."""
    have = report["audit"]["system"]["kernel_features"]
    config = kernel_config()
    csd = os.path.isdir(os.path.join(TRACEFS, "events", "csd"))
    want = {k: (sym in config if sym else csd)
            for k, (sym, _) in FEATURES.items()}
    if have != want:
        raise Fail(f"audit kernel_features {have}, config says {want}")
    log(f"kernel features: {have}")
    return have


def check_fit(doc, have):
    """No fix carries what this kernel lacks; lacks lists exactly that."""
    for a in doc["advice"]:
        lacks = sorted(k for k in a["needs"] if have.get(k) is False)
        if sorted(a["lacks"]) != lacks:
            raise Fail(f"{a['rule']}: lacks {a['lacks']}, kernel: {lacks}")
        bad = [FEATURES[k][1] for k in lacks if FEATURES[k][1] in a["fix"]]
        if bad:
            raise Fail(f"{a['rule']}: fix '{a['fix']}' needs {lacks}")


def check_coverage(jr, path, doc):
    """CPU 1's coverage adds up, each kind within its advice's gains, and
    the text says it in one line."""
    cov = [c for c in doc["cpus"] if c["cpu"] == CPU][0]["coverage"]
    total = cov["fixes"] + cov["outside"] + cov["uncovered"]
    if abs(total - 1) > 1e-4 or abs(sum(cov["uncovered_by_class"].values())
                                    - cov["uncovered"]) > 1e-4:
        raise Fail(f"coverage does not add up: {cov}")
    for kind in ("fixes", "outside"):
        gains = [a["gain"]["share"] for a in doc["advice"] if a["cpu"] == CPU
                 and (a["kind"] == "fix") == (kind == "fixes")]
        hi = sum(gains) + 1e-4
        if not max(gains, default=0) - 1e-4 <= cov[kind] <= hi:
            raise Fail(f"coverage {kind} {cov[kind]} outside its advice's "
                       f"gains {gains}")
    rc, text = sysio.sh([jr, "advise", path], check=False, timeout=60)
    line = [ln for ln in text.splitlines()
            if ln.startswith(f"CPU {CPU}: the fixes cover ")]
    if rc or len(line) != 1:
        raise Fail(f"no coverage line for CPU {CPU}: {text[-600:]}")
    log(line[0])


def apply(advice, hog_pid, before):
    """Run what the advice says for the causes this test made.  vmstat
    is wanted where the kworker ran vmstat_update at least twice: the
    kernel folds the counters only when they changed."""
    by = {}
    for a in advice:
        by.setdefault(a["rule"], []).append(a)
    vm = vmstat_runs(before)
    log(f"work:vmstat_update ran {vm} times on CPU {CPU}")
    want = [r for r in WANT if r != "vmstat" or vm >= 2]
    missing = [r for r in want if r not in by]
    if missing:
        raise Fail(f"advise missed {missing}: "
                   f"{[(a['rule'], a['what']) for a in advice]}")
    for a in by["irq-affinity"] + by.get("vmstat", []):
        sysio.sh(["sh", "-c", a["commands"][0]])
    task = [a for a in by["task-affinity"] if a["commands"] and
            a["commands"][0].endswith(f" {hog_pid}")]
    if not task:
        raise Fail(f"no task-affinity advice names pid {hog_pid}: "
                   f"{[a['commands'] for a in by['task-affinity']]}")
    sysio.sh(["sh", "-c", task[0]["commands"][0]])
    fns = {a["what"].split()[2] for a in by["work-item"]} | \
        {a["what"].split()[2] for a in by["timer-callback"]}
    if not {"jinj_work_fn", "jinj_timer_fn"} <= fns:
        raise Fail(f"work and timer advice name {fns}")
    for a in advice:
        log(f"{a['rule']}: {a['what']}: {a['fix'][:70]} "
            f"({a['gain']['ppm']:.0f} ppm)")


def vmstat_runs(report):
    """How often work:vmstat_update ran on CPU in a report."""
    cpu = [c for c in report["cpus"] if c["cpu"] == CPU][0]
    return sum(d["count"] for s in cpu["sources"] for d in s["detail"]
               if d["name"] == "work:vmstat_update")


def rows(report):
    cpu = [c for c in report["cpus"] if c["cpu"] == CPU][0]
    names = set()
    for s in cpu["sources"]:
        names.add(s["source"])
        names |= {d["name"] for d in s["detail"]}
    return names


def body():
    jr = kmod.jitread()
    irqs = virtio_irqs()
    if not irqs:
        raise Skip("no virtio IRQ in this guest")
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000)
    kmod.insmod("jitinject", cpu=CPU)
    sysio.write("/proc/sys/vm/stat_interval", 1)
    for irq in irqs:
        sysio.write(f"/proc/irq/{irq}/smp_affinity_list", CPU)
    hog = subprocess.Popen(["taskset", "-c", str(CPU), sys.executable,
                            "-c", HOG])
    stop_read, stop_inj = threading.Event(), threading.Event()
    threads = [threading.Thread(target=reader, args=(stop_read,)),
               threading.Thread(target=injections, args=(stop_inj,))]
    for t in threads:
        t.start()
    try:
        before = hist(jr, "/tmp/advise-before.json")
        doc = advise(jr, "/tmp/advise-before.json")
        check_fit(doc, check_features(before))
        check_coverage(jr, "/tmp/advise-before.json", doc)
        apply(doc["advice"], hog.pid, before)
        stop_inj.set()
        threads[1].join()
        after = hist(jr, "/tmp/advise-after.json")
    finally:
        stop_read.set()
        stop_inj.set()
        for t in threads:
            t.join()
        hog.send_signal(signal.SIGKILL)
        hog.wait()
    gone = [n for n in rows(before) if n.startswith(("work:jinj",
                                                     "timer:jinj"))
            or n.startswith(tuple(f"irq:{i} " for i in irqs))
            or n == f"thread:python3[{hog.pid}]"]
    if len(gone) < 3:
        raise Fail("the mistuned run lacks its causes: "
                   f"{sorted(rows(before))}")
    still = [n for n in gone if n in rows(after)]
    if still:
        raise Fail(f"after the fixes, still there: {still}")
    rc, text = sysio.sh([jr, "diff", "/tmp/advise-before.json",
                         "/tmp/advise-after.json"], check=False, timeout=60)
    log(f"diff before after (exit {rc}), for information:\n{text[-1500:]}")
    left = advise(jr, "/tmp/advise-after.json")["advice"]
    again = [a for a in left if a["rule"] in WANT]
    if again:
        raise Fail(f"advice after the fixes: "
                   f"{[(a['rule'], a['what']) for a in again]}")
    log(f"gone after the fixes: {sorted(gone)}; left: "
        f"{[(a['rule'], a['what']) for a in left]}")


if __name__ == "__main__":
    sys.exit(jt.run(body))
