# SPDX-License-Identifier: GPL-2.0
"""make check's guests: boot one kernel in QEMU, run the kselftests there
and tally each, timed from the line the kselftest runner prints as it
starts it, as the guest's output streams in, with the CPU time its
runner and QEMU took meanwhile; a boot's whole times are its 'guest ran
the suite' line's.  Then the boot's whole dmesg is checked.
"""

import os
import re
import subprocess
import sys
import time

import jitpy
from jitpy.harness import cpu
from jitpy.vm import runner as jitvm

TOP = jitpy.TOP
KSFT_DIR = os.path.join(TOP, "build", "ksft", "jitmod")
FLAVOURS = ("generic", "rt")
TAP_LINE = re.compile(r"^(not )?ok \d+ selftests: jitmod: (\S+)(.*)$")
START_LINE = re.compile(r"^# selftests: jitmod: (\S+)$")
# a measurement a test made again (jittest.attempts), as the kselftest
# runner prints the test's log line
AGAIN = re.compile(r"^# # again after .* \d+ of \d+: ")


def bad_dmesg_pattern():
    """The selftests' own pattern (lib.sh), so both judge a log alike."""
    with open(os.path.join(TOP, "selftests", "jitmod", "lib.sh")) as f:
        m = re.search(r"^JIT_BAD_DMESG='(.*)'$", f.read(), re.M)
    if not m:
        raise SystemExit("check: no JIT_BAD_DMESG in selftests/jitmod/lib.sh")
    return re.compile(m.group(1))


BAD_DMESG = bad_dmesg_pattern()


def suite_list(var):
    """A list of tests from selftests/jitmod/Makefile (VAR := a b \\ c),
    as one string, so that the Makefile alone says which clock each test
    runs on."""
    with open(os.path.join(TOP, "selftests", "jitmod", "Makefile")) as f:
        text = f.read().replace("\\\n", " ")
    m = re.search(rf"^{var} :=(.*)$", text, re.M)
    if not m or not m.group(1).split():
        raise SystemExit(f"check: no {var} in selftests/jitmod/Makefile")
    return " ".join(m.group(1).split())


# The suite's tests on the host's clock, in each flavour's boot, and those
# on deterministic time, in a boot of their own (testing.rst).
HOST_PROGS = suite_list("TEST_PROGS_HOST")
ICOUNT_PROGS = suite_list("TEST_PROGS_ICOUNT")
SUITE_GEN = "jitmod_events"


# Extra boots: (name, kernel, vCPUs, the tests that need that many CPUs).
WIDE_BOOTS = (("generic-4cpu", "generic", 4, "user_pinned.py"),)
# Boots on deterministic time (jitpy.vm --clock icount): (name, kernel,
# vCPUs, the tests that bound durations, counts or rates).  Whichever
# lane claims one first boots it: nothing the host does shows in guest
# time, so it may run beside anything.
ICOUNT_BOOTS = (("rt-icount", "rt", 2, ICOUNT_PROGS),
                ("generic-icount", "generic", 2, ICOUNT_PROGS))
# The smoke suite on every other kernel of the matrix (make kernels):
# load and unload, bad parameters, a hotplug cycle, trace-cmd decoding,
# the events' formats, each injector class once, a woken task's latency
# on a sampled CPU, two tasks in softirq on one CPU, and jitmod's events
# flipped while it samples; the harness checks the boot's dmesg after.
SMOKE_PROGS = ("load_unload.sh params.sh hotplug.sh decode.sh inject_once.py "
               "wake.sh softnest.py flip.sh")
SMOKE_GEN = "jitmod_events"
# 3 vCPUs (CPUs 1-2 isolated): 6.12 refuses to offline an isolated CPU
# that is alone in its set, which would leave the hotplug cycle untested
SMOKE_VCPUS = 3


def matrix():
    """(release, None) per fetched kernel, (name, reason) per skipped."""
    rows = jitvm.kernel_matrix()
    if rows is None:
        return [("matrix", "no build/kernels/status.tsv: run make kernels")]
    return [(rel, None) if state == "ok" else (f"{suite}-{flavour}", what)
            for suite, flavour, rel, state, what in rows]


def chosen():
    """The kernels make check boots: (the flavours, the matrix's rows), as
    JIT_CHECK_KERNELS (names, comma-separated) narrows them."""
    only = os.environ.get("JIT_CHECK_KERNELS")
    names = only.split(",") if only else None
    return ([f for f in FLAVOURS if names is None or f in names],
            [(rel, skip) for rel, skip in matrix()
             if names is None or rel in names])


def claim(claims, name):
    """Whether this lane is the first to claim name in the directory
    claims, which both lanes share: the claim is a file made with
    O_EXCL."""
    try:
        os.close(os.open(os.path.join(claims, name),
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    return True


def run_smoke(tally, rows, claims):
    """The smoke suite in one boot of each of the matrix's kernels that
    this lane claims first (claims: the directory both lanes claim
    kernels in, emptied before either starts)."""
    for rel, skip in rows:
        if not claim(claims, rel):
            continue
        if skip:
            tally.report(True, f"vm-{rel}", skip_reason=skip)
        else:
            run_vm_suite(tally, rel, vcpus=SMOKE_VCPUS, progs=SMOKE_PROGS,
                         gen=SMOKE_GEN)


def run_icount(tally, flavours, claims):
    """The boots on deterministic time of the flavours chosen that this
    lane claims first (claims: as run_smoke's)."""
    for name, flavour, vcpus, progs in ICOUNT_BOOTS:
        if flavour in flavours and claim(claims, name):
            run_vm_suite(tally, flavour, name, vcpus, progs, clock="icount")


# A guest that oopses on an int3 inside jitmod's sampling loop met QEMU
# 7.2's stale translation after the kernel patched that text (testing.rst,
# "The flip test"): multi-threaded TCG can run a translation made while
# the int3 was there.  Such a suite on the host's clock is run once more
# in a boot of its own, its first output and oops logged; a real fault
# would oops again.  On the icount clock, single-threaded, an oops is a
# failure at once.
STALE_INT3 = re.compile(r"Oops: int3\b")
STALE_INT3_BOOTS = 2


def stale_int3(rc, dmesg):
    """The oops lines of a guest that died of the stale int3, or []."""
    if rc != 125 or not os.path.exists(dmesg):
        return []
    with open(dmesg, errors="replace") as f:
        lines = f.readlines()
    at = next((i for i, ln in enumerate(lines) if STALE_INT3.search(ln)),
              None)
    if at is None or not any("[jitmod]" in ln for ln in lines[at:at + 12]):
        return []
    return lines[at:at + 12]


def boot_lines(cmd):
    """Run the runner; (exit code, [(arrival, CPU, line)]) as its output
    streams in, CPU the seconds the runner and its QEMU had used by the
    line that starts or ends a test (None on other lines)."""
    lines = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          errors="replace", cwd=TOP) as proc:
        for line in proc.stdout:
            line = line.rstrip("\n")
            edge = START_LINE.match(line) or TAP_LINE.match(line)
            lines.append((time.monotonic(),
                          cpu.tree(proc.pid) if edge else None, line))
    return proc.returncode, lines


def run_vm_suite(tally, flavour, name=None, vcpus=2, progs=None, gen="",
                 clock="host"):
    """Boot one kernel, run the kselftests there, check its whole dmesg.

    progs, if given, replaces the suite's TEST_PROGS for this boot, and gen
    its TEST_GEN_PROGS; clock is the guest's (jitpy.vm --clock).
    """
    name = name or flavour
    try:
        _vmlinuz, release = jitvm.resolve_kernel(flavour)
        jitvm.find_qemu(clock)
    except jitvm.MissingError as e:
        tally.report(True, f"vm-{name}", skip_reason=str(e))
        return
    ko = jitpy.module_path(release)
    if not os.path.exists(ko):
        tally.report(False, f"vm-{name}: module built",
                     detail=f"{ko} missing: make modules-all failed?")
        return
    dmesg = os.path.join(TOP, "build", f"dmesg-{name}.txt")
    print(f"# booting the {flavour} kernel {release} with {vcpus} vCPUs "
          f"on the {clock} clock for the selftests", flush=True)
    only = [f"TEST_PROGS={progs}", f"TEST_GEN_PROGS={gen}"] if progs else []
    t0 = time.monotonic()
    # single-threaded TCG, the icount clock's, has no stale translation
    boots = STALE_INT3_BOOTS if clock == "host" else 1
    for boot in range(1, boots + 1):
        t_boot, c_boot = time.monotonic(), cpu.used()
        rc, lines = boot_lines(
            [sys.executable, "-m", "jitpy.vm",
             "-q", "-k", flavour, "-s", str(vcpus), "-t", "35m",
             "--clock", clock, "--dmesg",
             dmesg, "-C", TOP, "--", "make", "-s", "-C", KSFT_DIR,
             f"OUTPUT={KSFT_DIR}", "run_tests"] + only)
        oops = stale_int3(rc, dmesg)
        if not oops or boot == boots:
            break
        print(f"# vm-{name}: the guest oopsed on an int3 that its text no "
              "longer held, QEMU's stale translation (testing.rst); its "
              "output and oops, then the suite in a boot of its own:")
        for line in [ln for _, _, ln in lines] + oops:
            print(f"#   {line.rstrip()}")
    print(f"# vm-{name}: {time.monotonic() - t0:.0f} s of wall time, "
          f"{boot} boot(s)", flush=True)
    if boot > 1:
        tally.retried(f"vm-{name}: the boot", boot - 1)
    seen = again = 0
    began, c_began = t_boot, 0.0
    for at, c_at, line in lines:
        started = START_LINE.match(line)
        if started:
            began, c_began = at, c_at
        again += bool(AGAIN.match(line))
        m = TAP_LINE.match(line)
        if not m:
            print(f"# {line}" if not line.startswith("#") else line)
            continue
        seen += 1
        test = f"vm-{name}: {m.group(2)}"
        if "# SKIP" in m.group(3):
            tally.report(True, test, skip_reason="in guest (see log above)",
                         secs=at - began)
        else:
            tally.report(not m.group(1), test, secs=at - began,
                         cpu_s=c_at - c_began)
        if again:
            tally.retried(test, again)
        began, c_began, again = at, c_at, 0
    tally.report(rc == 0 and seen > 0, f"vm-{name}: guest ran the suite",
                 detail=f"runner exit {rc}, {seen} tests seen",
                 secs=time.monotonic() - t_boot,
                 cpu_s=cpu.used() - c_boot)
    bad = []
    if os.path.exists(dmesg):
        with open(dmesg, errors="replace") as f:
            bad = [ln for ln in f if BAD_DMESG.search(ln)]
    tally.report(os.path.exists(dmesg) and not bad,
                 f"vm-{name}: dmesg clean for the whole boot",
                 detail="".join(bad[:10]) or f"no dmesg at {dmesg}")
