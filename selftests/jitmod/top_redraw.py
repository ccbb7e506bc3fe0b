#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""top and hwnoise redraw one screen in place on a terminal, as rtla's
top does, and append plain frames when stdout is not one.

Each runs 4 s against jitmod on CPU 1:
 - in a tmux pane: afterwards the pane, its history and all
   (capture-pane -S -), holds one frame, the last (3 s or more), with a
   row for the CPU.  tmux keeps in its history what a clear screen wipes
   (scroll-on-clear), so a frame drawn after one would be seen there;
 - piped: at least 2 frames, each with the CPU's row, and no escape
   sequence in the output.
Times are in us by default, as rtla's are; with -u ns in whole ns.
"""

import os
import re
import shutil
import sys
import tempfile

import jittest as jt
from jitpy.guest import kmod, sysio
from jitpy.guest.sysio import Fail, Skip, log

CPU = 1
RUN = "4s"
PANE = ("-x", "132", "-y", "40")
FRAME = re.compile(r"^jitread (top|hwnoise): (\d+) s, \d+ events; "
                   r"last second, (\w+)$", re.M)


def rows(text):
    return [ln for ln in text.splitlines() if ln.split()[:1] == [str(CPU)]]


def unit_rows(text, unit):
    """The CPU's rows whose runtime is written as unit's are: to the ns
    in us, whole in ns."""
    form = r"\d+\.\d{3}" if unit == "us" else r"\d+"
    at = 2 if "periods" in text else 1   # hwnoise has periods first
    return [r for r in rows(text)
            if re.fullmatch(form, r.split()[at])]


def in_tmux(tmp, cmd):
    """cmd's exit code and what its tmux pane holds, history and all."""
    tmux = ["tmux", "-L", f"jitmod-{os.getpid()}"]
    done = os.path.join(tmp, "done")
    if os.path.exists(done):
        os.unlink(done)
    # The exit code lands whole: the shell's redirection creates the
    # file before echo writes to it, so it is written aside and renamed.
    line = (" ".join(cmd) + f"; echo $? > {done}.new; mv {done}.new {done};"
            " exec sleep 600")
    sysio.sh(tmux + ["new-session", "-d", *PANE, line])
    try:
        if not sysio.wait_for(lambda: os.path.exists(done), 60):
            raise Fail(f"{cmd} did not end within 60 s in tmux")
        with open(done) as f:
            rc = int(f.read())
        _, pane = sysio.sh(tmux + ["capture-pane", "-p", "-S", "-", "-E",
                                   "-"])
    finally:
        sysio.sh(tmux + ["kill-server"], check=False)
    return rc, pane


def redraws(tmp, jr, sub):
    cmd = [jr, sub, "-c", str(CPU), "-d", RUN]
    rc, pane = in_tmux(tmp, cmd)
    frames = FRAME.findall(pane)
    log(f"{sub} in tmux: exit {rc}, frames in the pane and its history: "
        f"{frames}")
    if rc or len(frames) != 1 or int(frames[0][1]) < 3 or \
            frames[0][2] != "us" or not unit_rows(pane, "us"):
        raise Fail(f"{sub} in tmux (exit {rc}) left: {pane.strip()[-600:]}")
    rc, out = sysio.sh(cmd + ["-u", "ns"], check=False)
    frames = FRAME.findall(out)
    log(f"{sub} piped, -u ns: exit {rc}, {len(frames)} frames, "
        f"{len(unit_rows(out, 'ns'))} rows")
    if rc or len(frames) < 2 or {f[2] for f in frames} != {"ns"} or \
            len(unit_rows(out, "ns")) != len(frames):
        raise Fail(f"{sub} piped (exit {rc}) printed: {out[-600:]}")
    if "\033" in out:
        raise Fail(f"{sub} piped printed an escape sequence: {out!r}")


def body():
    if not shutil.which("tmux"):
        raise Skip("tmux missing (make deps)")
    jr = kmod.jitread()
    kmod.insmod("jitmod", cpus=CPU)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cases = jt.Cases(2)
            for sub in ("top", "hwnoise"):
                cases.run(sub, redraws, tmp, jr, sub)
            cases.finish()
    finally:
        kmod.rmmod("jitmod")


if __name__ == "__main__":
    sys.exit(jt.run(body))
