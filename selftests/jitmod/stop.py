#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stop_us and stop_total_us freeze sampling and keep the trace.

Each case injects one IPI that spins well past the limit on the sampled
CPU.  The limits sit far above TCG's own hiccups (a few ms) so that only
the injection can trip them.  After the stop: a jitmod:stop event with the
reason and the value, no summary or gap afterwards, `enable` reads 0, the
trace is still readable, and writing enable=1 samples again.

A case whose instance sees no summary in 10 s before the injection has
tested nothing: under QEMU's TCG, enabling the events patches kernel text
and a vCPU can run the old translation, events off, for a while.  It logs
the instance's buffer and the sampler's state, and is made again once.
"""

import sys
import time

import jittest as jt
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1


def case(reason, inject_us, **limits):
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=200000,
                runtime_us=200000, **limits)
    kmod.insmod("jitinject", cpu=CPU)
    limit_ns = 1000 * next(iter(limits.values()))
    with tracefs.Instance(f"stop-{reason}") as inst:
        if not sysio.wait_for(lambda: "summary:" in inst.text(), 10):
            log(f"{reason}: no summary in 10 s; the instance's CPU {CPU} "
                "buffer: " + " ".join(sysio.read(
                    f"{inst.path}/per_cpu/cpu{CPU}/stats").split()))
            jt.diagnose(CPU)
            raise jt.Again("no summary before the injection")
        if sysio.read(f"{kmod.JIT_PARAMS}/enable") != "1":
            raise Fail("stopped before the injection: "
                       + inst.text().splitlines()[-1])
        injector.fire("ipi", inject_us)
        if not sysio.wait_for(lambda: "stop:" in inst.text(), 10):
            raise Fail(f"{reason}: no jitmod:stop after a {inject_us} us "
                       "IPI")
        time.sleep(1)
        evs = trace.parse(inst.text())
        stops = [e for e in evs if e.name == "stop"]
        st = stops[0]
        log(f"{reason}: {st}")
        if len(stops) != 1:
            raise Fail(f"{len(stops)} stop events, want 1")
        if st.f["reason"] != reason:
            raise Fail(f"reason {st.f['reason']}, want {reason}")
        if not st.ns("value_ns") > limit_ns == st.ns("limit_ns"):
            raise Fail(f"value/limit wrong for limit {limit_ns}: {st}")
        if st.ns("value_ns") < inject_us * 1000:
            raise Fail(f"value below the injected {inject_us} us: {st}")
        # The stopped period still gets its summary (its runtime_ns is what
        # was sampled, which the long gap can stretch past the period's
        # runtime_us); then nothing.
        after = [e for e in evs[evs.index(st) + 1:]
                 if e.name in ("summary", "gap")]
        if after and after[0].name == "summary":
            after = after[1:]
        if after:
            raise Fail(f"sampling went on after the stop: {after[:2]}")
        if sysio.read(f"{kmod.JIT_PARAMS}/enable") != "0":
            raise Fail("enable does not read 0 after a stop")
        if not any(e.name == "irq_noise" and e.ns("duration_ns") >=
                   inject_us * 1000 for e in evs):
            raise Fail("the trace before the stop lost the culprit")
        inst.clear()
        sysio.write(f"{kmod.JIT_PARAMS}/enable", 1)
        if not sysio.wait_for(lambda: "summary:" in inst.text(), 10):
            raise Fail("enable=1 after a stop did not resume sampling")
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")


def body():
    jt.attempts(lambda _n: case("single", 80000, stop_us=40000), 2,
                after_fail=kmod.unload, retry=(), what="single")
    jt.attempts(lambda _n: case("total", 100000, stop_total_us=60000), 2,
                after_fail=kmod.unload, retry=(), what="total")


if __name__ == "__main__":
    sys.exit(jt.run(body))
