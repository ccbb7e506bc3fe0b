# SPDX-License-Identifier: GPL-2.0
"""The runner's watch for a vCPU stuck on a stale QEMU translation."""

import re
import socket
import threading
import unittest

from jitpy.vm import unstick as ju

SITE = 0xffffffff81a50ee3        # where CPU 0 looped, in __schedule
INT3_ENTRY = 0xffffffff81c00ba0
NMI_EXIT = 0xffffffff81a46ffe
RSP = 0xffa00000004ab858


def regs_text(cpus):
    """'info registers -a' as QEMU 7.2 prints it, cut to what is read."""
    out = []
    for n, (rip, cpl, hlt) in enumerate(cpus):
        out += [f"CPU#{n}",
                "RAX=0000000000000000 RBX=ff1100003e832c00",
                f"RSI=0000000000000010 RDI=ff11000007164200 "
                f"RBP=ffa00000004ab8a0 RSP={RSP:016x}",
                f"RIP={rip:016x} RFL=00000082 [--S----] CPL={cpl} II=0 "
                f"A20=1 SMM=0 HLT={hlt}",
                "CR0=80050033 CR2=000055a813ee1090 CR3=00000000086e0000"]
    return "\n".join(out) + "\n"


class FakeStub:
    """A gdb stub that acks every packet with OK, on a local port."""

    def __init__(self, port):
        self.packets = []
        self.srv = socket.create_server(("127.0.0.1", port))
        self.th = threading.Thread(target=self._serve, daemon=True)
        self.th.start()

    def _serve(self):
        conn, _ = self.srv.accept()
        buf = b""
        with conn:
            while True:
                m = re.search(rb"\$([^#]*)#([0-9a-f]{2})", buf)
                if m is None:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    buf += chunk
                    continue
                data = m.group(1).decode()
                ok = int(m.group(2), 16) == sum(m.group(1)) % 256
                buf = buf[m.end():]
                self.packets.append(data if ok else f"BADSUM {data}")
                if data == "?":
                    conn.sendall(b"+" + ju.rsp_packet("T02thread:01;"))
                    continue
                # QEMU may also tell of the stop before the answer
                conn.sendall(b"+" + ju.rsp_packet("T02thread:01;") +
                             ju.rsp_packet("OK"))
                if data == "D":
                    return

    def close(self):
        self.th.join(5)
        self.srv.close()


class FakeQmp:
    """QEMU's monitor as the watch uses it, over a scripted guest."""

    def __init__(self, rips, stack, memory):
        self.rips, self.stack, self.memory = rips, stack, memory
        self.log, self.stub, self.tick = [], None, 0

    def hmp(self, line):
        self.log.append(line)
        if line == "info registers -a":
            rip = self.rips[self.tick % len(self.rips)]
            self.tick += 1
            return regs_text([(rip, 0, 0), (0xffffffff81a59feb, 0, 1)])
        m = re.fullmatch(r"gdbserver tcp:127.0.0.1:(\d+)", line)
        if m:
            self.stub = FakeStub(int(m.group(1)))
        return ""

    def qmp(self, command):
        self.log.append(command)

    def read_qwords(self, addr, n):
        self.log.append(f"stack {addr:x}")
        return (self.stack + [0] * n)[:n]

    def read_bytes(self, addr, n):
        return bytes([self.memory.get(addr, 0x90)])

    def close(self):
        pass


def frame(rip):
    """A kernel exception frame as it sits on the stack, and some noise."""
    return [0xffffffff8103c9df, rip, ju.KERNEL_CS, 0x82, RSP + 0x40, 0x18]


class Parse(unittest.TestCase):
    def test_registers(self):
        r = ju.parse_registers(regs_text([(SITE, 0, 0), (0x401000, 3, 0),
                                          (0xffffffff81a59feb, 0, 1)]))
        self.assertEqual(sorted(r), [0, 1, 2])
        self.assertEqual(r[0], {"rip": SITE, "rsp": RSP, "kernel": True,
                                "halted": False})
        self.assertFalse(r[1]["kernel"])
        self.assertTrue(r[2]["halted"])
        self.assertEqual(ju.parse_registers("no cpus here"), {})

    def test_stack_extent(self):
        # near the top of a stack, stop before the guard page after it
        self.assertEqual(ju.stack_qwords(0xffa0000000003fb8), 9)
        self.assertEqual(ju.stack_qwords(0xffa0000000128000),
                         ju.STACK_QWORDS)
        self.assertEqual(ju.stack_qwords(0xffa0000000127ff8), 1)

    def test_rsp_framing(self):
        self.assertEqual(ju.rsp_packet("OK"), b"$OK#9a")
        self.assertEqual(ju.rsp_packet("D"), b"$D#44")
        self.assertEqual(ju.rsp_reply(b"+$OK#9a"), "OK")
        self.assertEqual(ju.rsp_reply(b"+$E01#a6"), "E01")
        self.assertIsNone(ju.rsp_reply(b"+$OK#9"))


class Judge(unittest.TestCase):
    def sample(self, rip, kernel=True, halted=False):
        return {"rip": rip, "rsp": RSP, "kernel": kernel, "halted": halted}

    def test_stuck_at(self):
        loop = [self.sample(r) for r in
                ([SITE, INT3_ENTRY, SITE, NMI_EXIT] * ju.WINDOW)[:ju.WINDOW]]
        self.assertEqual(ju.stuck_at(loop), {SITE, INT3_ENTRY, NMI_EXIT})
        self.assertIsNone(ju.stuck_at(loop[:-1]), "window not full")
        busy = [self.sample(SITE + 16 * i) for i in range(ju.WINDOW)]
        self.assertIsNone(ju.stuck_at(busy), "a vCPU that gets about")
        idle = loop[:-1] + [self.sample(SITE, halted=True)]
        self.assertIsNone(ju.stuck_at(idle), "halted once")
        user = loop[:-1] + [self.sample(0x401000, kernel=False)]
        self.assertIsNone(ju.stuck_at(user), "user mode once")

    def test_trapped_at(self):
        at = {SITE, INT3_ENTRY}
        mem = {SITE: 0xe9}.get
        # as pushed by int3: the address after the breakpoint
        self.assertEqual(ju.trapped_at(frame(SITE + 1), at, mem), SITE)
        self.assertIsNone(ju.trapped_at(frame(SITE), at, mem),
                          "an interrupt's frame (or a rewound one)")
        self.assertIsNone(ju.trapped_at(frame(SITE + 1), at,
                                        {SITE: 0xcc}.get),
                          "the int3 is really there: not stale")
        self.assertIsNone(ju.trapped_at(frame(SITE + 1), {INT3_ENTRY},
                                        mem), "not where it was seen")
        self.assertIsNone(ju.trapped_at([SITE + 1, 0x33, 0x246], at, mem),
                          "a user-mode CS is no kernel frame")
        self.assertIsNone(ju.trapped_at([0] * 8, at, mem))


class Watch(unittest.TestCase):
    def run_watch(self, fake, polls):
        said = []
        w = ju.Unsticker("unused", said.append, connect=lambda _: fake)
        self.run_watch_more(w, polls)
        return w, said

    @staticmethod
    def run_watch_more(w, polls):
        for _ in range(polls):
            w.next = 0.0
            w.poll()

    def test_frees_a_looping_vcpu(self):
        fake = FakeQmp([SITE, INT3_ENTRY, SITE, NMI_EXIT], frame(SITE + 1),
                       {SITE: 0xe9})
        w, said = self.run_watch(fake, ju.WINDOW)
        self.assertIsNotNone(fake.stub, fake.log)
        fake.stub.close()
        self.assertEqual(fake.stub.packets, ["?", f"M{SITE:x},1:e9", "D"])
        self.assertEqual(w.fixes, 1)
        self.assertEqual(len(said), 1, said)
        self.assertIn(f"0x{SITE:x}", said[0])
        self.assertRegex(said[0], r", \d+\.\d s after it was first seen ")
        self.assertEqual(fake.log.count("stop"), 2, "two probes agree")
        self.assertEqual(fake.log.count("cont"), 3, "and one after")
        self.assertEqual(fake.log[-2:], ["gdbserver none", "cont"])

    def test_leaves_a_spinner_alone(self):
        # a sampler loop: always at one place, no int3 frame on its stack
        fake = FakeQmp([SITE], [0] * 16, {SITE: 0xe9})
        w, said = self.run_watch(fake, 3 * ju.WINDOW)
        self.assertIsNone(fake.stub)
        self.assertEqual((w.fixes, said), (0, []))
        self.assertEqual(fake.log.count("stop"), ju.PROBES,
                         "probed once, then left alone")
        self.assertIn(SITE, w.backoff)
        w.close()
        self.assertEqual(said, ["vCPU watch: probed a vCPU that sat still "
                                "1 times, freed 0"])

    def test_frees_at_a_place_a_spinner_shared(self):
        # it spun at SITE and failed the probes, then met the stale int3
        # there: the window shows SITE and the int3 entry, and is probed
        fake = FakeQmp([SITE], [0] * 16, {SITE: 0xe9})
        w, said = self.run_watch(fake, ju.WINDOW)
        self.assertIn(SITE, w.backoff)
        fake.rips = [SITE, INT3_ENTRY, SITE, NMI_EXIT]
        fake.stack = frame(SITE + 1)
        self.run_watch_more(w, ju.WINDOW)
        self.assertEqual(w.fixes, 1, fake.log)
        fake.stub.close()
        self.assertEqual(fake.stub.packets, ["?", f"M{SITE:x},1:e9", "D"])

    def test_frees_before_the_guest_watchdogs(self):
        # the guest's clocks run through the window, whose last sample can
        # come one period late, and through the gaps between probes; a
        # probe's stop stops them.  The remote tick runs every
        # REMOTE_TICK_S, so a stall longer than the rest trips its warning
        worst = ju.SAMPLE_S * (ju.WINDOW + 1) + \
            (ju.PROBES - 1) * ju.PROBE_GAP_S
        self.assertLess(worst, ju.REMOTE_TICK_WARN_S - ju.REMOTE_TICK_S)

    def test_the_window_still_sieves(self):
        # a vCPU seen at more places than the window can hold is busy, not
        # stuck: the window must be able to show it
        self.assertGreaterEqual(ju.WINDOW, 2 * ju.MAX_DISTINCT)

    def test_not_before_the_window(self):
        fake = FakeQmp([SITE], frame(SITE + 1), {SITE: 0xe9})
        self.run_watch(fake, ju.WINDOW - 1)
        self.assertNotIn("stop", fake.log)


if __name__ == "__main__":
    unittest.main()
