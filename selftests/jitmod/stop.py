#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stop_us and stop_total_us freeze sampling and keep the trace.

Each case injects one IPI that spins past the limit on the sampled CPU.
The limit is set above what the CPU shows on its own, which under TCG on
a loaded host can be a third of each period: jitmod first samples
without it for BASE_PERIODS periods, and the limit is the case's floor,
or, when higher, twice the longest gap (single) or one and a half times
the most noise in a period and 20 ms (total).  The injection alone
exceeds the limit: twice it (single), 40 ms more (total).  After the stop:
a jitmod:stop event with the reason and the value, no summary or gap
afterwards, `enable` reads 0, the trace is still readable, and writing
enable=1 samples again.

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
BASE_PERIODS = 3
# per case: its period, the summary field of the CPU's own worst, the
# parameter, and the limit and the injection (us) from that worst (ns)
CASES = {
    "single": (500000, "max_gap_ns", "stop_us",
               lambda w: max(40000, 2 * w // 1000), lambda lim: 2 * lim),
    "total": (1000000, "noise_ns", "stop_total_us",
              lambda w: max(60000, 3 * w // 2000 + 20000),
              lambda lim: lim + 40000),
}


def summaries(inst, n, what):
    """The instance's first n jitmod:summary events; Again if they do not
    come within 10 s each."""
    if not sysio.wait_for(lambda: inst.text().count("summary:") >= n,
                          10 * n):
        log(f"{what}: fewer than {n} summaries; the instance's CPU {CPU} "
            "buffer: " + " ".join(sysio.read(
                f"{inst.path}/per_cpu/cpu{CPU}/stats").split()))
        jt.diagnose(CPU)
        raise jt.Again(f"no summary before the injection ({what})")
    return [e for e in trace.parse(inst.text()) if e.name == "summary"][:n]


def case(reason):
    period_us, field, param, limit_of, inject_of = CASES[reason]
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=period_us,
                runtime_us=period_us)
    kmod.insmod("jitinject", cpu=CPU)
    with tracefs.Instance(f"stop-{reason}") as inst:
        worst = max(e.ns(field)
                    for e in summaries(inst, BASE_PERIODS, "baseline"))
        limit_us = limit_of(worst)
        inject_us = inject_of(limit_us)
        if inject_us > period_us * 9 // 10:
            raise jt.Again(f"{reason}: the CPU's own worst, {worst} ns, "
                           "leaves no room for an injection in a period")
        limit_ns = 1000 * limit_us
        log(f"{reason}: worst {field} of {BASE_PERIODS} periods {worst} "
            f"ns; limit {limit_us} us, injecting {inject_us} us")
        inst.clear()
        sysio.write(f"{kmod.JIT_PARAMS}/{param}", limit_us)
        summaries(inst, 1, "with the limit")
        if sysio.read(f"{kmod.JIT_PARAMS}/enable") != "1":
            raise jt.Again("stopped before the injection, on the CPU's "
                           "own noise: " + inst.text().splitlines()[-1])
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
    for reason in CASES:
        jt.attempts(lambda _n, r=reason: case(r), 2, after_fail=kmod.unload,
                    retry=(), what=reason)


if __name__ == "__main__":
    sys.exit(jt.run(body))
