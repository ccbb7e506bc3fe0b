# SPDX-License-Identifier: GPL-2.0
"""Free a TCG vCPU that loops on a breakpoint the guest already removed.

What happens (QEMU 7.2, multi-threaded TCG, seen on the PREEMPT_RT guest
while jitmod is loaded and unloaded under injection): the kernel switches
a tracepoint's static branch with text_poke_bp(), which puts an int3 on
the site, syncs every CPU, then writes the final bytes.  A vCPU that ran
the site while the int3 was there can keep a translation holding it after
the final write.  Every later pass then traps; the kernel's int3 handler
sees that memory no longer holds an int3 ("removed after we hit it"),
backs up and returns to the same instruction, and the vCPU loops there.
The guest goes silent, or its own timeouts fire much later.

Seen twice in one 24-minute stress of lifecycle.py's cycles on rt: CPU 0
at __schedule+0x1d3, the sched_switch tracepoint's branch (memory held e9,
a jmp; interrupts off), during insmod; and CPU 0 at handle_softirqs+0xbb,
the softirq_exit branch (memory held a 5-byte nop), after rmmod.  Each
time, writing the same byte back through QEMU's gdb stub, which drops
QEMU's translations of that address, let the guest go on at once.

So the runner watches the vCPUs over QMP and, when one has been looping
like that, does exactly that rewrite and says so.  The guest's memory is
unchanged by it; a guest hung any other way stays hung.

It must free the vCPU before the guest's own watchdogs see the stall,
since any of their lines in the kernel log fails the test that was
running, though jitmod did nothing wrong.  The tightest is the remote
tick of a nohz_full CPU: a housekeeping CPU runs it every second
(REMOTE_TICK_S) and warns, once per boot, when the task it finds on the
nohz_full CPU was last accounted over 3 s ago (REMOTE_TICK_WARN_S,
sched_tick_remote() in kernel/sched/core.c).  A stuck housekeeping vCPU
delays that work, so a stall past about 2 s trips it; the soft-lockup
report (20 s at watchdog_thresh=10) and RCU's stall warning (21 s) come
much later.  The guest's clocks run on through the window of samples and
the gaps between probes, but not through a probe's stop or the rewrite
(under TCG a stop stops them); that time stays under the difference
REMOTE_TICK_WARN_S minus REMOTE_TICK_S, and the line that says what was
freed says how long after it was first seen stuck.
"""

import json
import re
import socket
import time

SAMPLE_S = 0.1
WINDOW = 8           # samples: 0.8 s of a vCPU that goes nowhere
MAX_DISTINCT = 4     # places it may be seen at meanwhile
PROBES = 6           # stopped looks at its stack, of which 2 must agree
BACKOFF_S = 60.0     # before places that failed the probes are all probed
STACK_QWORDS = 256
STACK_ALIGN = 16384  # x86-64 task and IRQ stacks: THREAD_SIZE, aligned
MAX_FIXES = 64       # per boot; a guest stalling more waits out its limit
INT3_OPCODE = 0xcc
KERNEL_CS = 0x10
KERNEL_TEXT = 0xffffffff80000000
REMOTE_TICK_S = 1.0  # how often a nohz_full CPU's remote tick runs
REMOTE_TICK_WARN_S = 3.0  # it warns of a task unaccounted for this long
PROBE_GAP_S = 0.05   # between two stopped looks

_CPU = re.compile(r"^CPU#(\d+)", re.M)
_REG = {k: re.compile(v) for k, v in (
    ("rip", r"RIP=([0-9a-f]{16}) "), ("rsp", r"RSP=([0-9a-f]{16})"),
    ("cpl", r"CPL=(\d)"), ("hlt", r"HLT=(\d)"))}


def parse_registers(text):
    """'info registers -a' -> {cpu: {rip, rsp, kernel, halted}}."""
    out = {}
    starts = [(m.start(), int(m.group(1))) for m in _CPU.finditer(text)]
    for i, (pos, cpu) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        m = {k: r.search(text[pos:end]) for k, r in _REG.items()}
        if all(m.values()):
            out[cpu] = {"rip": int(m["rip"].group(1), 16),
                        "rsp": int(m["rsp"].group(1), 16),
                        "kernel": m["cpl"].group(1) == "0",
                        "halted": m["hlt"].group(1) == "1"}
    return out


def stuck_at(samples):
    """The few kernel addresses a vCPU has been seen at for the whole
    window without halting, else None.  (Under TCG a running vCPU's RIP
    is exact only at some block exits, so a looping vCPU shows its
    instruction and bits of the int3 entry code, or the one alone.)"""
    if len(samples) < WINDOW:
        return None
    if any(not s["kernel"] or s["halted"] for s in samples):
        return None
    rips = frozenset(s["rip"] for s in samples)
    return rips if len(rips) <= MAX_DISTINCT else None


def stack_qwords(rsp):
    """How much of the stack above rsp to read: STACK_QWORDS, but not past
    the top of the 16 KiB-aligned stack it is on (a guard page follows)."""
    top = (rsp | (STACK_ALIGN - 1)) + 1
    return max(0, min(STACK_QWORDS, (top - rsp) // 8))


def frame_rips(stack):
    """RIPs of the kernel exception frames (RIP, CS, RFLAGS) on a stack."""
    return [stack[i] for i in range(len(stack) - 2)
            if stack[i] >= KERNEL_TEXT and stack[i + 1] == KERNEL_CS and
            stack[i + 2] & 0x2 and stack[i + 2] < 1 << 22]


def trapped_at(stack, at, byte_at):
    """The looping instruction, if the stack holds an int3 frame for it.
    int3 pushes the address after the breakpoint, so the frame's RIP is
    one past a place the vCPU was seen at, and memory there must no
    longer hold an int3.  (An interrupt's frame holds the interrupted
    address itself; the kernel's handler rewinds an int3 frame that way
    too before it returns, and such frames are not taken as evidence.)"""
    for rip in frame_rips(stack):
        if rip - 1 in at and byte_at(rip - 1) != INT3_OPCODE:
            return rip - 1
    return None


def rsp_packet(data):
    """A gdb remote-protocol packet: $data#checksum."""
    return f"${data}#{sum(data.encode()) % 256:02x}".encode()


def rsp_reply(buf):
    """The payload of the first complete packet in buf, else None."""
    m = re.search(rb"\$([^#]*)#[0-9a-fA-F]{2}", buf)
    return m.group(1).decode() if m else None


class Qmp:
    """A QMP connection that runs human-monitor commands."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.f = self.sock.makefile("rw")
        self.f.readline()
        self._call({"execute": "qmp_capabilities"})

    def _call(self, req):
        self.f.write(json.dumps(req) + "\n")
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if "return" in r or "error" in r:
                return r

    def qmp(self, command):
        r = self._call({"execute": command})
        if "error" in r:
            raise OSError(f"QMP {command}: {r['error'].get('desc')}")

    def hmp(self, line):
        r = self._call({"execute": "human-monitor-command",
                        "arguments": {"command-line": line}})
        return r.get("return", "")

    def _examine(self, addr, n, unit):
        """What 'x/N{unit}x' shows at addr, as ints; fewer where the
        mapping ends."""
        width = {"b": 2, "g": 16}[unit]
        out = []
        for line in self.hmp(f"x/{n}{unit}x 0x{addr:x}").splitlines():
            out += re.findall(rf"0x([0-9a-f]{{{width}}})\b",
                              line.partition(":")[2])
        return [int(v, 16) for v in out[:n]]

    def read_bytes(self, addr, n):
        out = self._examine(addr, n, "b")
        if len(out) != n:
            raise ValueError(f"cannot read {n} bytes at 0x{addr:x}")
        return bytes(out)

    def read_qwords(self, addr, n):
        """Up to n qwords from addr; fewer where the mapping ends."""
        return self._examine(addr, n, "g")

    def close(self):
        self.sock.close()


def free_port():
    """A local TCP port nobody listens on just now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _exchange(s, data, want_ok):
    """Send one packet and return the reply; stop notifications (T.., S..)
    that the stub sends when the guest stops are passed over."""
    s.sendall(rsp_packet(data))
    buf = b""
    while True:
        reply = rsp_reply(buf)
        if reply is not None:
            buf = buf[buf.index(b"#", buf.index(b"$")) + 3:]
            try:
                s.sendall(b"+")
            except OSError:
                pass    # the stub hangs up after the reply to D
            if not want_ok:
                return reply
            if reply[:1] not in ("T", "S"):
                break
            continue
        chunk = s.recv(4096)
        if not chunk:
            raise OSError(f"gdb stub closed the connection after {data}")
        buf += chunk
    if reply != "OK":
        raise OSError(f"gdb stub said {reply!r} to {data}")
    return reply


def rewrite_bytes(qmp, writes, port):
    """Write each (addr, value), value being what is there already,
    through the gdb stub, which drops QEMU's translations of it.  The
    stub stops the guest on attach; detaching resumes it, and so does the
    'cont' after, whatever happened in between."""
    qmp.hmp(f"gdbserver tcp:127.0.0.1:{port}")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            _exchange(s, "?", False)
            for a, v in writes:
                _exchange(s, f"M{a:x},1:{v:02x}", True)
            _exchange(s, "D", True)
    finally:
        qmp.hmp("gdbserver none")
        qmp.qmp("cont")


class Unsticker:
    """Sampled from the runner's wait loop; see the module docstring.

    Cheap samples (the VM keeps running) find a vCPU that has sat in the
    kernel at a few addresses for WINDOW samples.  Then up to PROBES short
    stops read its exact registers and stack; two must show a live int3
    frame for one of those addresses whose byte is no longer an int3.
    Only then is that byte rewritten.  Under TCG a stop also stops the
    guest's TSC, so the probes are no gap to the guest."""

    def __init__(self, qmp_path, say, connect=None):
        self.path, self.say = qmp_path, say
        self.connect = connect or Qmp
        self.qmp, self.next, self.fixes = None, 0.0, 0
        self.hist, self.backoff, self.probed = {}, {}, 0

    def poll(self):
        now = time.monotonic()
        if now < self.next or self.fixes >= MAX_FIXES:
            return
        self.next = now + SAMPLE_S
        if self.qmp is None:
            try:
                self.qmp = self.connect(self.path)
            except OSError:
                return      # QEMU not listening yet, or gone
        try:
            self._sample()
        except Exception as e:
            # the watch must never take the run down with it
            self.qmp.close()
            self.qmp = None
            self.say(f"vCPU watch: {e}; reconnecting")

    def _sample(self):
        regs = parse_registers(self.qmp.hmp("info registers -a"))
        for cpu, sample in regs.items():
            h = self.hist.setdefault(cpu, [])
            sample["t"] = time.monotonic()
            h.append(sample)
            del h[:-WINDOW]
            at = stuck_at(h)
            # a stuck vCPU can share a place with a spinner that failed
            # the probes (it spun there, then met the stale int3): only a
            # window wholly at such places is left alone
            if at is None or all(self.backoff.get(a, 0) > time.monotonic()
                                 for a in at):
                continue
            first = h[0]["t"]
            h.clear()
            self.probed += 1
            x = self._probe(cpu, at)
            if x is None:   # a legitimate spin, a sampler's say
                self.backoff.update(dict.fromkeys(
                    at, time.monotonic() + BACKOFF_S))
                continue
            byte = self.qmp.read_bytes(x, 1)[0]
            rewrite_bytes(self.qmp, [(x, byte)], free_port())
            self.fixes += 1
            self.say(f"vCPU {cpu} looped on an int3 at 0x{x:x} that the "
                     f"guest had already replaced with {byte:02x}: QEMU "
                     f"kept a stale translation of patched kernel text; "
                     f"rewrote the byte with itself to drop it, "
                     f"{time.monotonic() - first:.1f} s after it was first "
                     f"seen there ({self.fixes} so far)")

    def _probe(self, cpu, at):
        seen = []
        for _ in range(PROBES):
            self.qmp.qmp("stop")
            try:
                r = parse_registers(self.qmp.hmp("info registers -a"))
                r = r.get(cpu, {"rsp": 0})
                stack = self.qmp.read_qwords(r["rsp"], stack_qwords(r["rsp"]))
                x = trapped_at(stack, at,
                               lambda a: self.qmp.read_bytes(a, 1)[0])
            finally:
                self.qmp.qmp("cont")
            if x is not None:
                seen.append(x)
                if seen.count(x) >= 2:
                    return x
            time.sleep(PROBE_GAP_S)
        return None

    def close(self):
        if self.probed:
            self.say(f"vCPU watch: probed a vCPU that sat still "
                     f"{self.probed} times, freed {self.fixes}")
        if self.qmp is not None:
            self.qmp.close()
