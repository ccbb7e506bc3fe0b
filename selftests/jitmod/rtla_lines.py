#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rtla's tests/osnoise.t run lines, as jitread lines against jitmod, each
with the exit code jitread documents for its outcome (rtla's 2, a stop on
a threshold, is jitread's 5); then what rtla's options do to jitmod:

 - -P f:50: jitmod's prio and its samplers SCHED_FIFO 50 while the run
   goes, and prio 0 again after;
 - -e sched:sched_switch --filter 'prev_pid == 0' with -t FILE and a
   stop: FILE holds sched_switch lines, each with prev_pid=0, beside
   jitmod's events; with --trigger stacktrace, stack traces; a -e the
   kernel lacks ends 1 with one line;
 - -C NAME: the samplers in cgroup NAME during the run, back in the
   root cgroup and cgroup_pid 0 after, while a user task named
   jitmod/1 is not taken for a sampler; into a cgroup with the cpuset
   controller, which takes no bound kthread: exit 1, one line, jitmod's
   settings as before;
 - --warm-up 2 -d 2: at least 4 s, exit 0;
 - -a 1: exit 5, the account of the gap that stopped jitmod after the
   report, and the trace file;
 - jitmod stopped with no stop event read (here: enable written 0 while
   a stop limit is set): the run ends 5 within seconds, saying so.
About a minute under TCG: several of osnoise.t's lines run 10 s each.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, log

STOPPED = 5  # jitread's exit code where rtla's is 2
TIMEOUT_S = 120  # osnoise.t's set_timeout 2m


def jitread(cwd, *args, timeout=TIMEOUT_S):
    """(exit code, stderr) of one jitread line run in cwd; Fail, with
    what it said, if it runs past timeout (then ended by SIGINT)."""
    p = subprocess.Popen([kmod.jitread(), *args], cwd=cwd, text=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        jt.diagnose(0)
        raise Fail(f"jitread {' '.join(args)} still ran after {timeout} s; "
                   f"it said: {err.strip()[-600:]}")
    return p.returncode, err


def expect(cwd, want, *args):
    rc, err = jitread(cwd, *args)
    log(f"jitread {' '.join(args)}: exit {rc}")
    if rc != want:
        raise Fail(f"jitread {' '.join(args)}: exit {rc}, want {want}: "
                   f"{err.strip()[-400:]}")
    return err


def osnoise_t(tmp):
    """osnoise.t's lines, CPU 0 sampled as its -c 0 asks."""
    kmod.insmod("jitmod", cpus=0)
    expect(tmp, 0, "--help")
    expect(tmp, 0, "top", "-P", "F:1", "-c", "0", "-r", "900000", "-d",
           "10s", "-q")
    expect(tmp, STOPPED, "top", "-s", "30", "-T", "1", "-t")
    expect(tmp, STOPPED, "hist", "-s", "30", "-T", "1", "-t")
    if not os.path.getsize(os.path.join(tmp, "jitread_trace.txt")):
        raise Fail("-t left an empty jitread_trace.txt")
    expect(tmp, 0, "hist", "-P", "F:1", "-c", "0", "-r", "900000", "-d",
           "10s", "-b", "10", "-E", "25")
    kmod.rmmod("jitmod")
    # osnoise.t's "apply default period": an absurd period left in place
    # (rtla's 600 s; jitmod's most is 60 s), sampled 100 ms of it
    kmod.insmod("jitmod", cpus=0, period_us=60000000, runtime_us=100000)
    expect(tmp, STOPPED, "hist", "-s", "1")
    kmod.rmmod("jitmod")


def sampler_pid(cpu):
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and sysio.read(f"/proc/{pid}/comm") == \
                    f"jitmod/{cpu}":
                return int(pid)
        except OSError:
            continue
    raise Fail(f"no jitmod/{cpu} thread")


def started(tmp, tag, *args):
    """jitread hist -q -c 1 ARGS, started and ready (its --ready-file)."""
    ready = os.path.join(tmp, f"{tag}.ready")
    p = subprocess.Popen([kmod.jitread(), "hist", "-q", "-c", "1", *args,
                          "--ready-file", ready], stderr=subprocess.PIPE,
                         text=True)
    kmod.await_ready(p, ready, f"jitread hist {' '.join(args)}")
    return p


def priority(tmp):
    p = started(tmp, "prio", "-P", "f:50", "-d", "60s")
    prio = sysio.read(f"{kmod.JIT_PARAMS}/prio")
    pid = sampler_pid(1)
    policy = os.sched_getscheduler(pid)
    rt = os.sched_getparam(pid).sched_priority
    kmod.jitread_stop(p)
    log(f"-P f:50: prio {prio}, sampler policy {policy} priority {rt}")
    if prio != "50" or policy != os.SCHED_FIFO or rt != 50:
        raise Fail(f"-P f:50 set prio {prio}, policy {policy}, rt {rt}")
    if sysio.read(f"{kmod.JIT_PARAMS}/prio") != "0":
        raise Fail("prio not put back after -P")


def events(tmp):
    out = os.path.join(tmp, "ev.txt")
    expect(tmp, STOPPED, "hist", "-q", "-c", "1", "-s", "1", "-T", "1",
           "-e", "sched:sched_switch", "--filter", "prev_pid == 0", "-t",
           out)
    with open(out) as f:
        text = f.read()
    switches = [ln for ln in text.splitlines() if "sched_switch:" in ln]
    log(f"-e: {len(switches)} sched_switch lines in {out}")
    if not switches:
        raise Fail("-e sched:sched_switch: none in the trace file")
    bad = [ln for ln in switches if "prev_pid=0 " not in ln]
    if bad:
        raise Fail(f"--filter 'prev_pid == 0' let through: {bad[0]}")
    if "# the jitmod events" not in text:
        raise Fail("the trace file lacks jitmod's events")
    expect(tmp, STOPPED, "hist", "-q", "-c", "1", "-s", "1", "-T", "1",
           "-e", "sched:sched_switch", "--trigger", "stacktrace", "-t", out)
    with open(out) as f:
        text = f.read()
    if "<stack trace>" not in text:
        raise Fail("--trigger stacktrace: no stack trace in the file")
    err = expect(tmp, 1, "hist", "-q", "-c", "1", "-d", "2s", "-t", out,
                 "-e", "nosuch:nosuch_event")
    if len(err.strip().splitlines()) != 1 or "no such event" not in err:
        raise Fail(f"a missing -e event: {err!r}")


# a process named as jitmod's sampler of CPU 1 (PR_SET_NAME)
DECOY = ("import ctypes, time\n"
         "ctypes.CDLL(None).prctl(15, b'jitmod/1', 0, 0, 0)\n"
         "time.sleep(120)\n")


def cgroup2_mounted():
    """The guest's init mounts no cgroup file system: cgroup2 here."""
    with open("/proc/self/mountinfo") as f:
        if any(" - cgroup2 " in ln for ln in f):
            return
    os.makedirs("/sys/fs/cgroup", exist_ok=True)
    sysio.sh("mount -t cgroup2 none /sys/fs/cgroup")


def cgroup_of(pid):
    return sysio.read(f"/proc/{pid}/cgroup").strip()


def cgroup(tmp):
    """-C NAME: the samplers in NAME while the run goes, back after; a
    cgroup with cpuset refuses them: exit 1, one line, nothing changed."""
    cgroup2_mounted()
    cg = "/sys/fs/cgroup/jitread-test"
    os.makedirs(cg, exist_ok=True)
    # a user task that took the sampler's name stays where it is: the
    # check is of kernel threads only
    decoy = subprocess.Popen([sys.executable, "-c", DECOY])
    try:
        if not sysio.wait_for(lambda: sysio.read(
                f"/proc/{decoy.pid}/comm") == "jitmod/1", 10):
            raise Fail("the decoy did not take the name jitmod/1")
        p = started(tmp, "cg", "-C", "jitread-test", "-d", "60s")
    finally:
        decoy.kill()
        decoy.wait()
    during = cgroup_of(sampler_pid(1))
    kmod.jitread_stop(p)
    after = cgroup_of(sampler_pid(1))
    log(f"-C jitread-test: the sampler in {during}, after in {after}")
    if during != "0::/jitread-test" or after != "0::/":
        raise Fail(f"-C jitread-test: during {during}, after {after}")
    if sysio.read(f"{kmod.JIT_PARAMS}/cgroup_pid") != "0":
        raise Fail("cgroup_pid not put back after -C")
    sysio.write("/sys/fs/cgroup/cgroup.subtree_control", "+cpuset")
    os.makedirs("/sys/fs/cgroup/jitread-cs", exist_ok=True)
    before = {p: sysio.read(f"{kmod.JIT_PARAMS}/{p}")
              for p in ("prio", "period_us", "cgroup_pid", "enable")}
    err = expect(tmp, 1, "hist", "-q", "-c", "1", "-C", "jitread-cs", "-d",
                 "2s")
    log(f"-C jitread-cs (cpuset): {err.strip()}")
    if "cpuset" not in err or len(err.strip().splitlines()) != 1:
        raise Fail(f"-C into a cpuset cgroup: {err!r}")
    after = {p: sysio.read(f"{kmod.JIT_PARAMS}/{p}") for p in before}
    if after != before:
        raise Fail(f"-C changed jitmod's settings: {before} -> {after}")
    for d in ("/sys/fs/cgroup/jitread-cs", cg):
        os.rmdir(d)  # EBUSY: jitread left a process in it
    sysio.write("/sys/fs/cgroup/cgroup.subtree_control", "-cpuset")


def warm_up(tmp):
    t0 = time.monotonic()
    expect(tmp, 0, "hist", "-q", "-c", "1", "--warm-up", "2", "-d", "2s")
    took = time.monotonic() - t0
    if took < 4:
        raise Fail(f"--warm-up 2 -d 2s took {took:.1f} s")


def auto(tmp):
    """-a 1: stops (5), with the account of the gap on stdout."""
    cwd = os.path.join(tmp, "auto")
    os.mkdir(cwd)
    p = subprocess.run([kmod.jitread(), "hist", "-c", "1", "-a", "1",
                        "-d", "100s"], cwd=cwd, capture_output=True,
                       text=True, timeout=TIMEOUT_S, check=False)
    account = p.stdout[p.stdout.find("## auto analysis"):]
    log(f"-a 1: exit {p.returncode}; " + " | ".join(account.splitlines()))
    if p.returncode != STOPPED or "act on: " not in account:
        raise Fail(f"-a 1: exit {p.returncode}, no account: {p.stderr}")
    if not os.path.getsize(os.path.join(cwd, "jitread_trace.txt")):
        raise Fail("-a left no trace file")


def stop_unseen(tmp):
    p = started(tmp, "unseen", "-s", "60s", "-d", "100s")
    sysio.write(f"{kmod.JIT_PARAMS}/enable", 0)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise Fail("jitmod stopped without an event: jitread went on")
    finally:
        sysio.write(f"{kmod.JIT_PARAMS}/enable", 1)
    log(f"stop unseen: exit {p.returncode}: {err.strip()}")
    if p.returncode != STOPPED or "stop event was not read" not in err:
        raise Fail(f"stop unseen: exit {p.returncode}: {err!r}")


def body():
    with tempfile.TemporaryDirectory() as tmp:
        osnoise_t(tmp)
        kmod.insmod("jitmod", cpus=1)
        for case in (priority, events, cgroup, warm_up, auto, stop_unseen):
            case(tmp)
            log(f"ok {case.__name__}")
        kmod.rmmod("jitmod")


if __name__ == "__main__":
    sys.exit(jt.run(body))
