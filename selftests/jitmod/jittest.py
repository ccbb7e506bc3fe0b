# SPDX-License-Identifier: GPL-2.0
"""Helpers for the Python jitmod selftests (the shell ones use lib.sh).

A test calls run(body): body raises Skip or Fail, or returns to pass; the
exit code follows kselftest (0 pass, 1 fail, 4 skip).  Every test also
fails on a bad kernel log, judged by the pattern in lib.sh.
"""

import importlib.util
import os
import re
import subprocess
import sys
import time

KSFT_PASS, KSFT_FAIL, KSFT_SKIP = 0, 1, 4
TRACEFS = "/sys/kernel/tracing"
HERE = os.path.dirname(os.path.abspath(__file__))
INJECT_PARAMS = "/sys/module/jitinject/parameters"
JIT_PARAMS = "/sys/module/jitmod/parameters"
CMD_TIMEOUT_S = 60
# the interference classes in jitmod's enum order
INTF = ("irq", "softirq", "nmi", "thread")

# "  task-pid  [cpu] flags  ts: event: body"
TRACE_LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]"
                        r"\s+\S+\s+(?P<ts>\d+\.\d+): (?P<event>\w+): "
                        r"(?P<body>.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")


class Skip(Exception):
    """This test cannot run here; the message says why."""


class Fail(Exception):
    """The thing under test is broken; the message says how."""


def log(msg):
    """A TAP diagnostic line."""
    print(f"# {msg}", flush=True)


def repo():
    """The checkout: tests run from build/ksft/jitmod or selftests/jitmod."""
    for up in ("../../..", "../.."):
        top = os.path.normpath(os.path.join(HERE, up))
        if os.path.exists(os.path.join(top, "module", "Kbuild")):
            return top
    raise Fail(f"cannot find the jitmod checkout above {HERE}")


def abi():
    """scripts/jitabi.py of the checkout: include/jitmod_abi.h's tables."""
    path = os.path.join(repo(), "scripts", "jitabi.py")
    spec = importlib.util.spec_from_file_location("jitabi", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ko(name):
    """Path of jitmod.ko or jitinject.ko built for the running kernel."""
    sub = "module" if name == "jitmod" else name
    env = os.environ.get(f"{name.upper()}_KO")
    path = env or os.path.join(repo(), "build", "modules", os.uname().release,
                               sub, f"{name}.ko")
    if not os.path.exists(path):
        raise Fail(f"{path} missing (make modules-all)")
    return path


def jitread():
    """Path of user/jitread in the checkout; Fail if it was not built."""
    path = os.path.join(repo(), "user", "jitread")
    if not os.access(path, os.X_OK):
        raise Fail(f"{path} missing (make user)")
    return path


def bad_dmesg_pattern():
    """JIT_BAD_DMESG from lib.sh, so shell and Python tests agree."""
    with open(os.path.join(HERE, "lib.sh")) as f:
        m = re.search(r"^JIT_BAD_DMESG='(.*)'$", f.read(), re.M)
    return re.compile(m.group(1))


def dump_blocked_tasks():
    """Ask the kernel to log every task in D state (sysrq w)."""
    try:
        write("/proc/sysrq-trigger", "w")
    except OSError:
        return
    time.sleep(0.5)
    out = subprocess.run(["dmesg"], capture_output=True, text=True,
                         check=False).stdout
    for line in out.splitlines()[-80:]:
        log(f"dmesg: {line}")


def diagnose(cpu):
    """Log what the sampler on cpu is doing, for a failure report."""
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if read(f"/proc/{pid}/comm") != f"jitmod/{cpu}":
                continue
            st = read(f"/proc/{pid}/stat").split()
            log(f"jitmod/{cpu} pid {pid} state {st[2]} wchan "
                f"{read(f'/proc/{pid}/wchan')} utime+stime "
                f"{int(st[13]) + int(st[14])}")
            for line in read(f"/proc/{pid}/stack").splitlines()[:8]:
                log(f"  {line}")
        except OSError:
            continue
    for name in ("parameters/enable", "parameters/period_us",
                 "parameters/runtime_us"):
        try:
            log(f"{name}: {read('/sys/module/jitmod/' + name)}")
        except OSError:
            pass


def sh(cmd, check=True, timeout=CMD_TIMEOUT_S):
    """Run a command; return (rc, output).

    A command stuck in the kernel (D state) cannot be killed, so on the
    time limit the blocked tasks go to the kernel log and the test fails
    without waiting for it: a hang becomes a diagnosable failure instead
    of eating the suite's time.
    """
    p = subprocess.Popen(cmd, shell=isinstance(cmd, str), text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        dump_blocked_tasks()
        raise Fail(f"'{cmd}' still running after {timeout} s; blocked "
                   "tasks are in the kernel log")
    if check and p.returncode:
        raise Fail(f"'{cmd}' failed ({p.returncode}): {out.strip()}")
    return p.returncode, out


def write(path, value):
    """Write a sysfs/tracefs file; raise OSError like the kernel said."""
    with open(path, "w") as f:
        f.write(f"{value}\n")


def read(path):
    with open(path) as f:
        return f.read().strip()


def loaded(name):
    with open("/proc/modules") as f:
        return any(line.split()[0] == name for line in f)


def insmod(name, **params):
    """Load jitmod or jitinject with params; Fail with kmod's message."""
    args = [f"{k}={v}" for k, v in params.items()]
    sh(["insmod", ko(name)] + args)


def rmmod(name, check=True):
    if loaded(name):
        return sh(["rmmod", name], check=check)
    return 0, ""


def require(min_cpus=2):
    """Skip unless modules can be loaded and tracefs is here."""
    if os.geteuid() != 0:
        raise Skip("needs root")
    if not os.path.exists("/proc/modules"):
        raise Skip(f"kernel {os.uname().release} cannot load modules "
                   "(run under scripts/jitvm.py)")
    if not os.path.isdir(f"{TRACEFS}/events"):
        sh(f"mount -t tracefs nodev {TRACEFS}", check=False)
    if not os.path.isdir(f"{TRACEFS}/events"):
        raise Skip("tracefs not available")
    if os.cpu_count() < min_cpus:
        raise Skip(f"needs {min_cpus} CPUs, have {os.cpu_count()}")
    ko("jitmod")
    rmmod("jitinject")
    rmmod("jitmod")


def inject(cls, us):
    """One injection on the injector's CPU; returns when it has run."""
    write(f"{INJECT_PARAMS}/inject", f"{cls} {us}")


def inject_late_ns():
    """How far the last injection's spins ran past their time.  They end by
    the clock, so a stall of the vCPU that straddles a spin's end (a busy
    host) lengthens it; an upper bound on a source's net time adds this."""
    return int(read(f"{INJECT_PARAMS}/late_ns"))


def inject_nested_ns():
    """How much of the last injection's source spin (the thread's, if the
    class has one, else the handler's) went to interrupts nested in it: the
    spin's loop steps in which the CPU's interrupt counts moved.  That time
    comes off the source's net time; a lower bound on it subtracts this."""
    return int(read(f"{INJECT_PARAMS}/nested_ns"))


def spin_floor_ns(d_ns):
    """The least net time an injection spun for d_ns can be charged: the
    injector spins by the clock, so interrupts nested in the spin (a tick,
    ~20-70 us under TCG) rightly come off its net time; at most D/10."""
    return d_ns - d_ns // 10


class Event:
    """One formatted trace line."""

    def __init__(self, m):
        self.task = m["task"]
        self.pid = int(m["pid"])
        self.cpu = int(m["cpu"])
        self.ts = float(m["ts"])
        self.name = m["event"]
        self.body = m["body"]
        self.f = dict(FIELD.findall(m["body"]))

    def num(self, key):
        """An integer field; gap's 'irq=2/1400ns' gives count 2."""
        return int(self.f[key].split("/")[0])

    def ns(self, key):
        """The ns part of a gap's 'irq=2/1400ns', or a plain *_ns field."""
        v = self.f[key]
        return int(v.split("/")[1][:-2]) if "/" in v else int(v)

    def __repr__(self):
        return f"[{self.cpu:03d}] {self.ts:.6f} {self.name}: {self.body}"


def parse_trace(text):
    """Events of a formatted trace, in order; other lines are dropped."""
    return [Event(m) for m in map(TRACE_LINE.match, text.splitlines()) if m]


def class_ns(gap, fields):
    """The net time of the classes in fields, summed, in gap."""
    return sum(gap.ns(f) for f in fields)


def gap_after(evs, src, field):
    """The gap event that holds src: the first later gap whose class time
    covers src's.  Usually the very next gap; but an interrupt that lands
    in the sampler's own slow path, after one gap was measured and before
    it was written, is emitted before that gap and belongs to the next one
    (seen with the hrtimer, armed by an IPI whose own gap was being
    written when it fired).  If no gap covers it, the first later gap that
    counted the class, so that the caller's message shows what was there."""
    later = [e for e in evs[evs.index(src) + 1:] if e.name == "gap" and
             e.num(field) >= 1]
    dur = src.ns("duration_ns")
    return next((e for e in later if e.ns(field) >= dur),
                later[0] if later else None)


class Instance:
    """A tracefs instance of our own with the jitmod events enabled.

    The clock is 'global' so that markers written from one CPU order
    correctly against events from another.  Create it after insmod: an
    instance only gets the events that existed when it was made.
    """

    def __init__(self, tag, events=("jitmod",)):
        self.path = f"{TRACEFS}/instances/jitmod-{tag}-{os.getpid()}"
        os.mkdir(self.path)
        write(f"{self.path}/trace_clock", "global")
        write(f"{self.path}/buffer_size_kb", 8192)
        for ev in events:
            write(f"{self.path}/events/{ev}/enable", 1)
        self.events = events

    def marker(self, text):
        write(f"{self.path}/trace_marker", text)

    def text(self):
        with open(f"{self.path}/trace") as f:
            return f.read()

    def clear(self):
        write(f"{self.path}/trace", "")

    def close(self):
        if not os.path.isdir(self.path):
            return
        for ev in self.events:
            # A module's events leave every instance when it is unloaded.
            if os.path.exists(f"{self.path}/events/{ev}"):
                write(f"{self.path}/events/{ev}/enable", 0)
        os.rmdir(self.path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def wait_for(pred, seconds, step=0.1):
    """Poll pred() until true; False after seconds."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return bool(pred())


def run(body):
    """Run a test body with kselftest exit codes and a dmesg check."""
    mark = f"jitmod-selftest: {os.path.basename(sys.argv[0])} {os.getpid()}"
    code = KSFT_PASS
    try:
        require()
        write("/dev/kmsg", mark)
        body()
        _, dmesg = sh("dmesg")
        since = dmesg[dmesg.rfind(mark):]
        pattern = bad_dmesg_pattern()
        bad = [ln for ln in since.splitlines() if pattern.search(ln)]
        if bad:
            raise Fail("kernel log: " + " | ".join(bad[:3]))
    except Skip as e:
        log(f"SKIP: {e}")
        code = KSFT_SKIP
    except (Fail, OSError) as e:
        log(f"FAIL: {e}")
        code = KSFT_FAIL
    finally:
        for m in ("jitinject", "jitmod"):
            try:
                if loaded(m) and rmmod(m, check=False)[0]:
                    log(f"cleanup: rmmod {m} failed")
            except Fail as e:
                log(f"cleanup: {e}")
                code = KSFT_FAIL
    return code
