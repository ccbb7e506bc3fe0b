# SPDX-License-Identifier: GPL-2.0
"""jitpy.guest.kspan: the kernel's own span of a noise source, read from
a formatted trace, which classify.py holds jitmod's net times to."""

import unittest

from jitpy.guest import kspan, trace

SW = ("sched_switch: prev_comm={a} prev_pid={ap} prev_prio=120 "
      "prev_state={st} ==> next_comm={b} next_pid={bp} next_prio=120")


def line(ts, event_body, task="jitmod/1-100"):
    return f"  {task} [001] d..2. {ts:.6f}: {event_body}"


def switch(ts, a, ap, b, bp):
    return line(ts, SW.format(a=a, ap=ap, b=b, bp=bp, st="S"))


def find(evs, name, n=0):
    return [e for e in evs if e.name == name][n]


class Thread(unittest.TestCase):
    # the injector (pid 448) runs twice; the second run is 2.3 ms long,
    # and its thread_noise is written before or after its switch-out
    def trace(self, noise_first):
        noise = line(10.0043, "thread_noise: comm=jitinject/1 pid=448 "
                     "duration_ns=2290000")
        out = switch(10.0043 + 1e-6, "jitinject/1", 448, "jitmod/1", 100)
        return trace.parse("\n".join([
            switch(10.0000, "jitmod/1", 100, "jitinject/1", 448),
            line(10.0001, "thread_noise: comm=jitinject/1 pid=448 "
                 "duration_ns=90000"),
            switch(10.0001, "jitinject/1", 448, "jitmod/1", 100),
            switch(10.0020, "jitmod/1", 100, "jitinject/1", 448),
        ] + ([noise, out] if noise_first else [out, noise])))

    def test_the_run_src_closes(self):
        for first in (True, False):
            evs = self.trace(first)
            self.assertEqual(kspan.thread(evs, find(evs, "thread_noise", 1),
                                          448), 2301000, first)
            self.assertEqual(kspan.thread(evs, find(evs, "thread_noise", 0),
                                          448), 100000, first)

    def test_other_pid_or_no_switch_in(self):
        evs = self.trace(True)
        self.assertIsNone(kspan.thread(evs, evs[1], 449))
        evs = trace.parse("\n".join([
            line(1.0, "thread_noise: comm=x pid=7 duration_ns=5"),
            switch(1.1, "x", 7, "jitmod/1", 100)]))
        self.assertIsNone(kspan.thread(evs, evs[0], 7))


class OutsideSoftirq(unittest.TestCase):
    # ktimers/1 (pid 30) runs the TIMER softirq from 5.000 to 5.004; a
    # FIFO thread preempts it from 5.001 to 5.003.  Its second run, 5.003
    # to 5.006, holds 1 ms of softirq and 2 ms of its own.
    def trace(self):
        return trace.parse("\n".join([
            switch(5.0000, "jitmod/1", 100, "ktimers/1", 30),
            line(5.0000, "softirq_entry: vec=1 [action=TIMER]"),
            switch(5.0010, "ktimers/1", 30, "jitinject/1", 448),
            switch(5.0030, "jitinject/1", 448, "ktimers/1", 30),
            line(5.0040, "softirq_exit: vec=1 [action=TIMER]"),
            line(5.0045, "softirq_entry: vec=9 [action=RCU]"),
            line(5.0050, "softirq_exit: vec=9 [action=RCU]"),
            line(5.0060, "thread_noise: comm=ktimers/1 pid=30 "
                 "duration_ns=2000000"),
            switch(5.0060, "ktimers/1", 30, "jitmod/1", 100),
        ]))

    def test_the_run_less_the_softirq(self):
        evs = self.trace()
        src = find(evs, "thread_noise")
        self.assertEqual(kspan.thread(evs, src, 30), 3000000)
        self.assertEqual(kspan.outside_softirq(evs, src, 30, 1), 2000000)
        self.assertEqual(kspan.outside_softirq(evs, src, 30, 9), 2500000)
        self.assertIsNone(kspan.outside_softirq(evs, src, 31, 1))


class Handlers(unittest.TestCase):
    def test_vector(self):
        evs = trace.parse("\n".join([
            line(2.0, "call_function_single_entry: vector=251"),
            line(2.5, "local_timer_entry: vector=236"),
            line(2.502, "irq_noise: irq=-1 vector=236 name=local_timer "
                 "duration_ns=2000000"),
            line(2.50201, "local_timer_exit: vector=236"),
            line(2.6, "call_function_single_exit: vector=251"),
        ]))
        self.assertEqual(kspan.vector(evs, evs[2], "local_timer"), 2010000)
        self.assertIsNone(kspan.vector(evs, evs[2], "reschedule"))

    def test_softirq_by_vec(self):
        evs = trace.parse("\n".join([
            line(3.0, "softirq_entry: vec=1 [action=TIMER]"),
            line(3.001, "softirq_entry: vec=9 [action=RCU]"),
            line(3.0015, "softirq_exit: vec=9 [action=RCU]"),
            line(3.004, "softirq_noise: vec=1 [TIMER] duration_ns=3500000"),
            line(3.004, "softirq_exit: vec=1 [action=TIMER]"),
        ]))
        self.assertEqual(kspan.softirq(evs, evs[3], 1), 4000000)

    def test_nmi_from_the_handler_before(self):
        evs = trace.parse("\n".join([
            line(4.0, "nmi_handler: jit_nmi_first() delta_ns: 3000 "
                 "handled: 0"),
            line(4.002, "nmi_noise: handler=jinj_nmi+0x0/0x90 "
                 "duration_ns=2001000"),
            line(4.002001, "nmi_handler: jinj_nmi() delta_ns: 2000000 "
                 "handled: 1"),
        ]))
        self.assertEqual(kspan.nmi(evs, evs[1], "jinj_nmi"), 2004000)

    def test_nmi_alone_is_its_own_delta(self):
        evs = trace.parse("\n".join([
            line(4.0, "gap: duration_ns=1"),
            line(4.002, "nmi_noise: handler=jinj_nmi duration_ns=2001000"),
            line(4.002001, "nmi_handler: jinj_nmi() delta_ns: 2000000 "
                 "handled: 1"),
        ]))
        self.assertEqual(kspan.nmi(evs, evs[1], "jinj_nmi"), 2000000)
        self.assertIsNone(kspan.nmi(evs, evs[1], "other"))

    def test_tolerance_grows_with_the_span(self):
        self.assertEqual(kspan.tolerance(0), kspan.TOL_NS)
        self.assertEqual(kspan.tolerance(10_000_000),
                         kspan.TOL_NS + 100_000)


class Filing(unittest.TestCase):
    def gap(self, irq, thread):
        return trace.parse(line(1.0, (
            f"gap: duration_ns=9000 class=irq hw_ns=0 irq=1/{irq}ns "
            f"softirq=0/0ns nmi=0/0ns thread=1/{thread}ns smi=0 "
            "steal_ns=0")))[0]

    def test_most_net_time_wins_and_a_tie_goes_to_enum_order(self):
        """trace.filing, which classify.py and accuracy.py hold jitmod's
        own filing to."""
        self.assertEqual(trace.filing(self.gap(100, 200)), "thread")
        self.assertEqual(trace.filing(self.gap(300, 200)), "irq")
        self.assertEqual(trace.filing(self.gap(200, 200)), "irq")


if __name__ == "__main__":
    unittest.main()
