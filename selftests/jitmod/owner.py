#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One jitmod, one owner: the jitread runs that change jitmod's settings
take turns, and no order of starts, ends and kills leaves them changed.

 - for each ordered pair (A, B) of serve, hist and record, with A running
   and owning the settings (serve sets its duty cycle, hist and record
   -T): B with a change of its own exits 6 with one line naming A's
   subcommand and pid, and changes nothing; hist or record as B without
   a change reads alongside and exits 0; when A ends (SIGINT) jitmod has
   its first settings again and no saved values are left;
 - for each of the three as A, SIGKILLed: jitmod keeps A's values, and
   the next jitread, which changes nothing, puts them back and says so;
 - an owner SIGKILLed, then jitmod loaded again with other settings: the
   next jitread leaves the new load's settings as they are.
"""

import os
import signal
import subprocess
import sys
import tempfile

import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
PARAMS = ("threshold_ns", "stop_us", "stop_total_us", "period_us",
          "runtime_us", "enable", "warmup_us")
FIRST = dict(threshold_ns=5000, period_us=1000000, runtime_us=900000)
RUN_DIR = "/run/jitread"
SAVED = os.path.join(RUN_DIR, "jitmod.saved")
BUSY = 6


def settings():
    return {p: sysio.read(f"{kmod.JIT_PARAMS}/{p}") for p in PARAMS}


def owner_cmd(cmd, tmp, tag, change=True, seconds=None):
    """jitread cmd on CPU 1, changing jitmod's settings (serve always does,
    by its duty cycle) or not, for seconds or until ended."""
    args = [kmod.jitread(), cmd, "-q", "-c", str(CPU)]
    if cmd == "serve":
        args += ["--listen", "127.0.0.1:0"]
    elif change:
        args += ["-T", "3us" if tag == "a" else "4us"]
    if cmd == "record":
        args += ["-o", os.path.join(tmp, f"{tag}.rec")]
    if seconds:
        args += ["-d", f"{seconds}s"]
    return args


def start_owner(cmd, tmp):
    """A started, ready and owning jitmod's settings: (process, its
    settings)."""
    ready = os.path.join(tmp, "a.ready")
    if os.path.exists(ready):
        os.unlink(ready)
    p = subprocess.Popen(owner_cmd(cmd, tmp, "a") + ["--ready-file", ready],
                         stderr=subprocess.PIPE, text=True)
    kmod.await_ready(p, ready, f"jitread {cmd}")
    now = settings()
    want = ({"runtime_us": "100000", "warmup_us": "20000"}
            if cmd == "serve" else {"threshold_ns": "3000"})
    for k, v in want.items():
        if now[k] != v:
            p.kill()
            p.wait()
            raise Fail(f"jitread {cmd} running: {k}={now[k]}, not {v}")
    if not os.path.exists(SAVED):
        p.kill()
        p.wait()
        raise Fail(f"jitread {cmd} changed settings but saved nothing")
    return p, now


def run_b(args, timeout=120):
    p = subprocess.run(args, capture_output=True, text=True, check=False,
                       timeout=timeout)
    return p.returncode, p.stderr


def check_first(when, first):
    now = settings()
    if now != first:
        raise Fail(f"{when}: jitmod's settings {now}, not {first}")
    if os.path.exists(SAVED):
        raise Fail(f"{when}: {SAVED} is left")


def pair(a, b, tmp, first):
    p, during = start_owner(a, tmp)
    try:
        rc, err = run_b(owner_cmd(b, tmp, "b", seconds=5))
        lines = err.strip().splitlines()
        if rc != BUSY or len(lines) != 1 or \
                f"jitread {a} (pid {p.pid})" not in err:
            raise Fail(f"{b} beside {a}: exit {rc}, {err!r}")
        log(f"{b} beside {a}: {lines[0]}")
        if settings() != during:
            raise Fail(f"{b} changed jitmod's settings while {a} owned them")
        if b != "serve":
            rc, err = run_b(owner_cmd(b, tmp, "c", change=False, seconds=1))
            if rc:
                raise Fail(f"{b} without changes beside {a}: exit {rc}: "
                           f"{err}")
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
    if p.returncode:
        raise Fail(f"{a}: exit {p.returncode}: {err}")
    check_first(f"after {a} ended", first)


def killed(a, tmp, first):
    p, _ = start_owner(a, tmp)
    p.kill()
    p.wait()
    if settings() == first:
        raise Fail(f"{a} killed: its settings are already gone")
    rc, err = run_b(owner_cmd("hist", tmp, "b", change=False, seconds=1))
    if rc or "left when it was killed" not in err or \
            f"jitread {a} (pid {p.pid})" not in err:
        raise Fail(f"hist after {a} was killed: exit {rc}, {err!r}")
    log(err.strip())
    check_first(f"after {a} was killed and hist ran", first)


def reloaded(tmp, first):
    p, _ = start_owner("hist", tmp)
    p.kill()
    p.wait()
    kmod.rmmod("jitmod")
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=7000,
                period_us=FIRST["period_us"],
                runtime_us=FIRST["runtime_us"])
    fresh = settings()
    rc, err = run_b(owner_cmd("hist", tmp, "b", change=False, seconds=1))
    if rc or "put back" in err:
        raise Fail(f"hist after a reload: exit {rc}, {err!r}")
    check_first("after the reload and hist", fresh)
    kmod.rmmod("jitmod")
    kmod.insmod("jitmod", cpus=CPU, **FIRST)
    check_first("loaded again", first)


def run_dir_private():
    st = os.stat(RUN_DIR)
    if st.st_uid != 0 or st.st_mode & 0o777 != 0o700:
        raise Fail(f"{RUN_DIR}: uid {st.st_uid}, mode {oct(st.st_mode)}")


def body():
    kmod.insmod("jitmod", cpus=CPU, **FIRST)
    first = settings()
    cmds = ("serve", "hist", "record")
    pairs = [(a, b) for a in cmds for b in cmds if a != b]
    cases = jt.Cases(len(pairs) + len(cmds) + 2)
    with tempfile.TemporaryDirectory() as tmp:
        for a, b in pairs:
            cases.run(f"{b} while {a} owns", pair, a, b, tmp, first)
        for a in cmds:
            cases.run(f"{a} killed", killed, a, tmp, first)
        cases.run("killed, then jitmod reloaded", reloaded, tmp, first)
        cases.run("run directory is root's alone", run_dir_private)
    cases.finish()
    kmod.rmmod("jitmod")


if __name__ == "__main__":
    sys.exit(jt.run(body))
