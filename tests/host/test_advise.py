# SPDX-License-Identifier: GPL-2.0
"""jitread advise: from a report's evidence and an audit to ranked fixes.

Reports are made from recordings (jitread report --json), and audits are
written as jitread audit --json writes them, so that each rule's evidence
and condition is set exactly: the fixes must name this system's IRQ,
pid and CPUs, rank by the measured share, and a quiet CPU must get none.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

MS = 1000000
RUNTIME = 10000 * MS


def audit(nohz=False, irqbalance=0, tasks="", kthreads="", timer_mig=1,
          isolcpus="1", kf=None, platform=None, cpu=None):
    """An audit of CPU 1 as jitread audit --json writes it; kf (kernel
    features), platform (system keys) and cpu (CPU 1's keys) are added
    where given, as an older jitread left them out."""
    a = _audit(nohz, irqbalance, tasks, kthreads, timer_mig, isolcpus)
    if kf is not None:
        a["system"]["kernel_features"] = dict(ALL_KF, **kf)
    a["system"].update(platform or {})
    a["cpus"][0].update(cpu or {})
    return a


ALL_KF = {"no_hz_full": True, "rcu_nocb_cpu": True, "trace_events": True,
          "csd_events": True, "ftrace_filter": True, "thp": True}


def _audit(nohz, irqbalance, tasks, kthreads, timer_mig, isolcpus):
    return {"audit_version": 1,
            "system": {"cmdline": "", "isolcpus": isolcpus,
                       "nohz_full": "1" if nohz else "", "rcu_nocbs": "",
                       "irqaffinity": "", "clocksource": "tsc",
                       "workqueue_cpumask": "ff", "thp": "madvise",
                       "managed_irq": False, "skew_tick": False,
                       "tsc_reliable": True, "irqbalance_pid": irqbalance,
                       "vm.stat_interval": 1,
                       "kernel.timer_migration": timer_mig,
                       "kernel.nmi_watchdog": 0,
                       "sched_rt_runtime_us": 950000,
                       "sched_rt_period_us": 1000000},
            "cpus": [{"cpu": 1, "isolated": True, "nohz_full": nohz,
                      "rcu_nocb": nohz, "in_workqueue_cpumask": True,
                      "nr_irqs": 1, "irqs": [{"irq": 24,
                                              "name": "virtio0-input",
                                              "count": 50}],
                      "nr_kthreads": 1, "kthreads": kthreads,
                      "nr_tasks": 1, "tasks": tasks, "governor": "",
                      "cur_khz": 0, "idle_states": "", "idle_latency_us": 0,
                      "pm_qos_resume_latency_us": "0",
                      "smt_siblings": "1", "sibling_busy_pct": -1}],
            "warnings": 0, "checks": []}


def mistuned(n=50):
    """CPU 1: a device IRQ, vmstat_update in a kworker and the tick,
    every 100 ms."""
    recs, t = [], 10 * MS
    for _ in range(n):
        t += 100 * MS
        recs += [jrrec.irq(1, 20000, "virtio0-input", irq_no=24, vector=0,
                           ts=t),
                 jrrec.detail(1, "work", "vmstat_update", "thread",
                              wall_ns=9000, pid=80, ts=t + 1),
                 jrrec.thread(1, 10000, "kworker/1:1", 80, ts=t + 2),
                 jrrec.detail(1, "hrtimer", "tick_sched_timer", "irq",
                              wall_ns=1000, ts=t + 3),
                 jrrec.irq(1, 3000, "local_timer", ts=t + 4)]
    recs.append(jrrec.summary(1, RUNTIME, n * 33000, 20000))
    return recs


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class AdviseCase(unittest.TestCase):
    """A report from records, and jitread advise on it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, recs, with_audit=None):
        rec = os.path.join(self.dir, "r.rec")
        out = os.path.join(self.dir, "r.json")
        jrrec.write(rec, recs, params="cpus=1 prio=0 details=work,tick")
        rc, _, err = jrcli.jitread("report", rec, "-q", "--json", out)
        self.assertEqual(rc, 0, err)
        if with_audit is not None:
            with open(out) as f:
                d = json.load(f)
            d["audit"] = with_audit
            with open(out, "w") as f:
                json.dump(d, f)
        return out

    def advise(self, report, aud=None, *extra):
        args = ["advise", report, "-q", "--json", "-"]
        if aud is not None:
            path = os.path.join(self.dir, "a.json")
            with open(path, "w") as f:
                json.dump(aud, f)
            args += ["--audit", path]
        rc, out, err = jrcli.jitread(*args, *extra)
        self.assertEqual(rc, 0, err)
        return json.loads(out)


class Advise(AdviseCase):
    """What the rules give, and how they rank."""

    def test_mistuned_cpu_gets_each_fix_ranked(self):
        v = self.advise(self.report(mistuned()), audit())
        got = [(a["rule"], a["fix"]) for a in v["advice"]]
        self.assertEqual(got, [
            ("irq-affinity", "echo 0 > /proc/irq/24/smp_affinity_list"),
            ("vmstat", "sysctl -w vm.stat_interval=120"),
            ("nohz-full", "boot with nohz_full=1 rcu_nocbs=1 (and "
             "isolcpus=domain,managed_irq,1 to keep tasks and managed "
             "IRQs away)")])
        irq = v["advice"][0]
        self.assertEqual(irq["gain"]["total_ns"], 50 * 20000)
        self.assertAlmostEqual(irq["gain"]["ppm"], 100.0, places=3)
        self.assertAlmostEqual(irq["gain"]["share"], 20 / 33, places=4)
        self.assertEqual(irq["evidence"],
                         [{"row": "irq:24 virtio0-input", "count": 50,
                           "total_ns": 1000000}])
        self.assertEqual(v["advice"][1]["evidence"][0]["row"],
                         "thread:kworker/1:1[80] > work:vmstat_update")
        self.assertEqual(v["housekeeping"], "0")

    def test_a_row_is_evidence_once(self):
        """vmstat_update is not also a generic work item, and the tick's
        own hrtimer is no timer advice."""
        v = self.advise(self.report(mistuned()), audit())
        rules = [a["rule"] for a in v["advice"]]
        self.assertNotIn("work-item", rules)
        self.assertNotIn("timer-callback", rules)

    def test_ipi_names_its_function_and_sender(self):
        """An IPI detail (jitread user's BPF) gives its function and the
        CPU that asked; one whose sender was not seen says so."""
        recs, t = [], 10 * MS
        for i in range(20):
            t += 100 * MS
            recs += [jrrec.detail(1, "ipi",
                                  "remote_function@generic_exec_single",
                                  "irq", wall_ns=5000, dep=0, ts=t),
                     jrrec.irq(1, 6000, "call_function_single", vector=251,
                               ts=t + 1),
                     jrrec.detail(1, "ipi", "flush_tlb_func", "irq",
                                  wall_ns=1000, dep=-1, ts=t + 2),
                     jrrec.irq(1, 2000, "call_function", vector=252,
                               ts=t + 3)]
        recs.append(jrrec.summary(1, RUNTIME, 20 * 8000, 6000))
        v = self.advise(self.report(recs), audit())
        got = [(a["rule"], a["what"]) for a in v["advice"]]
        self.assertEqual(got, [
            ("ipi-function", "CPU 0 makes CPU 1 run remote_function by IPI"),
            ("ipi-function",
             "another CPU makes CPU 1 run flush_tlb_func by IPI")])
        self.assertIn("csd:csd_queue_cpu -f 'cpu == 1'",
                      v["advice"][0]["fix"])
        self.assertEqual(v["advice"][0]["verify"],
                         "a new run has no ipi:remote_function row")

    def test_quiet_cpu_gets_nothing_to_do(self):
        """A nohz_full CPU whose only rows are the hardware's and a
        rare tick: no advice, and --fail-advice passes."""
        recs = [jrrec.gap(1, 3000), jrrec.gap(1, 4000),
                jrrec.irq(1, 2000, "local_timer"),
                jrrec.irq(1, 2000, "local_timer"),
                jrrec.summary(1, RUNTIME, 11000, 4000)]
        rep = self.report(recs)
        v = self.advise(rep, audit(nohz=True), "--fail-advice")
        self.assertEqual(v["advice"], [])
        self.assertEqual(v["cpus"][0]["advice"], 0)
        path = os.path.join(self.dir, "a.json")
        rc, out, _ = jrcli.jitread("advise", rep, "--audit", path)
        self.assertEqual(rc, 0)
        self.assertIn("CPU 1: nothing to do", out)

    def test_too_little_evidence_is_no_advice(self):
        recs = [jrrec.irq(1, 20000, "virtio0-input", irq_no=24, vector=0),
                jrrec.summary(1, RUNTIME, 20000, 20000)]
        rep = self.report(recs)
        self.assertEqual(self.advise(rep, audit())["advice"], [])
        v = self.advise(rep, audit(), "--min-count", "1")
        self.assertEqual([a["rule"] for a in v["advice"]], ["irq-affinity"])
        v = self.advise(rep, audit(), "--min-count", "1", "--min-ppm", "3")
        self.assertEqual(v["advice"], [])

    def test_conditions_come_from_the_audit(self):
        """irqbalance shares the IRQ's evidence; a task the audit lists
        as a user task gets taskset for its pid; a nohz_full CPU gets no
        nohz advice; RCU keeping the tick names rcu_nocbs."""
        recs = mistuned()
        recs[-1:-1] = [jrrec.thread(1, 50000, "myapp", 4242),
                       jrrec.thread(1, 50000, "myapp", 4242),
                       jrrec.detail(1, "tick", "", "irq", dep=1 << 4),
                       jrrec.irq(1, 30000, "local_timer"),
                       jrrec.detail(1, "tick", "", "irq", dep=1 << 4),
                       jrrec.irq(1, 30000, "local_timer")]
        v = self.advise(self.report(recs),
                        audit(nohz=True, irqbalance=77, tasks="sshd myapp"))
        by = {a["rule"]: a for a in v["advice"]}
        self.assertIn("irqbalance", by)
        self.assertIn("irq-affinity", by)
        self.assertNotIn("nohz-full", by)
        self.assertEqual(by["task-affinity"]["fix"].split(";")[0],
                         "taskset -pc 0 4242")
        self.assertIn("rcu_nocbs=1", by["tick-rcu"]["fix"])
        self.assertEqual(by["tick-rcu"]["gain"]["count"], 2)

    def test_rcuc_only_where_callbacks_are_not_offloaded(self):
        """rcuc on an offloaded CPU (PREEMPT_RT runs RCU's core work
        there) is no reason to boot with rcu_nocbs."""
        recs = mistuned()
        recs[-1:-1] = [jrrec.thread(1, 40000, "rcuc/1", 17)] * 3
        rep = self.report(recs)
        got = [a["rule"] for a in self.advise(rep, audit())["advice"]]
        self.assertIn("rcu-nocbs", got)
        got = [a["rule"] for a in self.advise(rep, audit(nohz=True))
               ["advice"]]
        self.assertNotIn("rcu-nocbs", got)

    def test_audit_from_the_report(self):
        rep = self.report(mistuned(), with_audit=audit(nohz=True))
        v = self.advise(rep)
        self.assertEqual(v["audit"], "from the report")
        self.assertNotIn("nohz-full", [a["rule"] for a in v["advice"]])

    def test_fail_advice_and_bad_input(self):
        rep = self.report(mistuned())
        path = os.path.join(self.dir, "a.json")
        with open(path, "w") as f:
            json.dump(audit(), f)
        rc, _, err = jrcli.jitread("advise", rep, "-q", "--audit", path,
                                   "--fail-advice")
        self.assertEqual(rc, 4, err)
        self.assertEqual(err.strip(), "jitread: advise: 3 piece(s) of advice")
        jrcli.refused(self, ["advise"], 2, "needs a JSON report")
        jrcli.refused(self, ["advise", os.path.join(self.dir, "none.json")],
                      1, "No such file")
        with open(path, "w") as f:
            f.write("{\"audit_version\": 9}")
        jrcli.refused(self, ["advise", rep, "--audit", path], 1,
                      "not an audit of audit_version 1")
        jrcli.refused(self, ["advise", rep, "--min-ppm", "-1"], 2,
                      "--min-ppm")

    def test_cpu_numbers_from_elsewhere_are_checked(self):
        """A report or an audit from another machine is untrusted: a CPU
        number that jitread would never write (its arrays hold 4096) is
        refused in one line naming the field, for advise and diff."""
        rep = self.report(mistuned())
        with open(rep) as f:
            d = json.load(f)
        d["cpus"][0]["cpu"] = 5000
        bad = os.path.join(self.dir, "bad.json")
        with open(bad, "w") as f:
            json.dump(d, f)
        jrcli.refused(self, ["advise", bad], 1,
                      "cpu: not a CPU number below 4096")
        jrcli.refused(self, ["diff", bad, rep], 1,
                      "cpu: not a CPU number below 4096")
        a = audit()
        a["cpus"][0]["cpu"] = 99999
        path = os.path.join(self.dir, "a.json")
        with open(path, "w") as f:
            json.dump(a, f)
        jrcli.refused(self, ["advise", rep, "--audit", path], 1,
                      "audit: cpus: cpu: not a CPU number below 4096")


def repeat(n, *make):
    """n rounds, 100 ms apart, of the records each make(ts) gives."""
    recs = []
    for i in range(n):
        t = 10 * MS + i * 100 * MS
        for k, m in enumerate(make):
            recs.append(m(t + k))
    return recs


def needing(rule):
    """Records that are evidence for rule, and the audit keys it needs
    besides the kernel feature: (records, audit kwargs)."""
    if rule == "nohz-full":
        return repeat(20, lambda t: jrrec.irq(1, 30000, "local_timer",
                                              ts=t)), {}
    if rule == "tick-rcu":
        return repeat(20, lambda t: jrrec.detail(1, "tick", "", "irq",
                                                 dep=1 << 4, ts=t),
                      lambda t: jrrec.irq(1, 30000, "local_timer",
                                          ts=t)), {"nohz": True}
    if rule == "rcu-nocbs":
        return repeat(20, lambda t: jrrec.thread(1, 30000, "rcuc/1", 17,
                                                 ts=t)), {}
    if rule == "khugepaged":
        return repeat(20, lambda t: jrrec.thread(1, 30000, "khugepaged",
                                                 55, ts=t)), {}
    if rule == "work-item":
        return repeat(20, lambda t: jrrec.detail(1, "work", "my_work_fn",
                                                 "thread", wall_ns=20000,
                                                 pid=80, ts=t),
                      lambda t: jrrec.thread(1, 30000, "kworker/1:1", 80,
                                             ts=t)), {}
    if rule == "timer-callback":
        return repeat(20, lambda t: jrrec.detail(1, "timer", "my_timer_fn",
                                                 "softirq", wall_ns=20000,
                                                 ts=t),
                      lambda t: jrrec.softirq(1, 30000, "TIMER", ts=t)), {}
    if rule == "ipi-function":
        return repeat(20, lambda t: jrrec.detail(1, "ipi", "flush_tlb_func",
                                                 "irq", wall_ns=20000,
                                                 dep=0, ts=t),
                      lambda t: jrrec.irq(1, 30000, "call_function",
                                          vector=252, ts=t)), {}
    if rule == "governor":
        return repeat(20, lambda t: jrrec.gap(1, 30000, ts=t)), {
            "cpu": {"governor": "powersave"}}
    raise ValueError(rule)


# rule: (the feature its fix needs, what its fix says on a kernel with
# it, what it says instead without it, and what it must then not say;
# None: no fix at all, when the instead needs a feature as well)
NEEDS = {
    "nohz-full": ("no_hz_full", "boot with nohz_full=1 rcu_nocbs=1",
                  "boot a kernel built with CONFIG_NO_HZ_FULL=y",
                  "nohz_full="),
    "tick-rcu": ("rcu_nocb_cpu", "boot with rcu_nocbs=1",
                 "boot a kernel built with CONFIG_RCU_NOCB_CPU=y",
                 "rcu_nocbs="),
    "rcu-nocbs": ("rcu_nocb_cpu", "boot with rcu_nocbs=1",
                  "boot a kernel built with CONFIG_RCU_NOCB_CPU=y",
                  "rcu_nocbs="),
    "khugepaged": ("thp", "echo madvise > /sys/kernel/mm/transparent_",
                   "taskset -pc 0 55", "transparent_hugepage"),
    "work-item": ("trace_events", "-e workqueue:workqueue_queue_work",
                  "trace-cmd record -p function -l __queue_work", " -e "),
    "timer-callback": ("trace_events", "-e timer:timer_start",
                       "-l add_timer -l mod_timer", " -e "),
    "ipi-function": ("csd_events", "-e csd:csd_queue_cpu",
                     "-l smp_call_function_single", "csd:"),
    "governor": ("performance_governor", "frequency-set -g performance",
                 "cpuinfo_max_freq", "-g performance"),
}


class Feasible(AdviseCase):
    """Each rule whose fix needs a kernel option (or cpufreq's
    performance governor), on a kernel with it and without it."""

    def one(self, rule, have, unknown=False, ftrace=True):
        recs, kw = needing(rule)
        recs.append(jrrec.summary(1, RUNTIME, 20 * 30000, 30000))
        feat = NEEDS[rule][0]
        cpu = dict(kw.pop("cpu", {}))
        kf = {"ftrace_filter": ftrace}
        if feat == "performance_governor":
            cpu[feat] = have
        else:
            kf[feat] = have
        a = audit(kf=kf, cpu=cpu, **kw)
        if unknown:
            a = audit(cpu=dict(cpu, performance_governor=None), **kw)
            a["system"].pop("kernel_nohz_full", None)
        v = self.advise(self.report(recs), a)
        got = [x for x in v["advice"] if x["rule"] == rule]
        self.assertEqual(len(got), 1, [x["rule"] for x in v["advice"]])
        return got[0]

    def test_with_the_option_the_fix_itself(self):
        for rule, (feat, fix, _, _) in NEEDS.items():
            with self.subTest(rule=rule):
                x = self.one(rule, True)
                self.assertIn(fix, x["fix"])
                self.assertEqual((x["feasible"], x["lacks"], x["unknown"]),
                                 (True, [], []))
                self.assertIn(feat, x["needs"])

    def test_without_it_what_to_change_instead(self):
        for rule, (feat, fix, instead, never) in NEEDS.items():
            with self.subTest(rule=rule):
                x = self.one(rule, False)
                self.assertIn(instead, x["fix"])
                self.assertNotIn(never, x["fix"])
                self.assertEqual((x["feasible"], x["lacks"]),
                                 (True, [feat]))

    def test_without_it_or_its_instead_no_fix(self):
        for rule in ("work-item", "timer-callback", "ipi-function"):
            with self.subTest(rule=rule):
                x = self.one(rule, False, ftrace=False)
                self.assertEqual((x["fix"], x["feasible"]), ("", False))
                self.assertEqual(sorted(x["lacks"]),
                                 sorted([NEEDS[rule][0], "ftrace_filter"]))

    def test_unknown_is_said(self):
        x = self.one("nohz-full", None, unknown=True)
        self.assertIn("nohz_full=1", x["fix"])
        self.assertEqual(x["unknown"], ["no_hz_full"])
        rep = self.report(needing("nohz-full")[0] +
                          [jrrec.summary(1, RUNTIME, 600000, 30000)])
        path = os.path.join(self.dir, "a.json")
        with open(path, "w") as f:
            json.dump(audit(kf={"no_hz_full": False}), f)
        rc, out, _ = jrcli.jitread("advise", rep, "--audit", path)
        self.assertEqual(rc, 0)
        self.assertIn("   kernel:   lacks NO_HZ_FULL, which the usual fix "
                      "needs: the fix above is what to change instead\n",
                      out)
        self.assertNotIn("nohz_full=", out.split("fix:")[1].split("\n")[0])


def hardware(n=20):
    """CPU 1: 80 % hw:unknown, 10 % tick, 10 % that no event explains."""
    return repeat(n, lambda t: jrrec.gap(1, 400000, ts=t),
                  lambda t: jrrec.irq(1, 50000, "local_timer", ts=t)) + [
        jrrec.summary(1, RUNTIME, n * 500000, 400000)]


class Hardware(AdviseCase):
    """Noise that is mostly hw:unknown is said first, with its share,
    and explained for the platform the audit found."""

    def test_mostly_hardware_first_and_coverage(self):
        a = audit(kf={"no_hz_full": False},
                  platform={"virtual": True, "hypervisor": "KVM",
                            "cpu_vendor": "AuthenticAMD"},
                  cpu={"steal_ms": 5870})
        rep = self.report(hardware())
        v = self.advise(rep, a)
        first = v["advice"][0]
        self.assertEqual((first["rule"], first["kind"]),
                         ("hw-hypervisor", "outside"))
        self.assertAlmostEqual(first["gain"]["share"], 0.8, places=6)
        self.assertIn("virtual machine (KVM)", first["what"])
        self.assertIn("5870 ms of steal since boot", first["caveat"])
        nohz = [x for x in v["advice"] if x["rule"] == "nohz-full"]
        self.assertEqual(len(nohz), 1)
        self.assertNotIn("nohz_full=", nohz[0]["fix"])
        cov = v["cpus"][0]["coverage"]
        self.assertEqual(cov["noise_ns"], 20 * 500000)
        self.assertAlmostEqual(cov["fixes"], 0.1, places=6)
        self.assertAlmostEqual(cov["outside"], 0.8, places=6)
        self.assertAlmostEqual(cov["uncovered"], 0.1, places=6)
        self.assertEqual(list(cov["uncovered_by_class"]), ["unattributed"])
        path = os.path.join(self.dir, "a.json")
        with open(path, "w") as f:
            json.dump(a, f)
        rc, out, _ = jrcli.jitread("advise", rep, "--audit", path)
        self.assertEqual(rc, 0)
        ranked = [ln for ln in out.splitlines() if re.match(r"\d+\. ", ln)]
        self.assertTrue(ranked[0].startswith("1. [hw-hypervisor, outside] "
                                             "CPU 1: "), ranked)
        self.assertIn("   gain:     80.00% of CPU 1's noise", out)
        self.assertIn("\nCPU 1: the fixes cover 10.0% of its noise, "
                      "remedies outside the OS 80.0%; no rule covers "
                      "10.0%: unattributed 10.0%\n", out)

    def test_platform_names_the_explanation(self):
        rep = self.report(hardware())
        for plat, rule, says in (
                ({"virtual": False, "cpu_vendor": "AuthenticAMD"},
                 "hw-firmware", "has no SMI counter the OS can read"),
                ({"virtual": False, "cpu_vendor": "GenuineIntel"},
                 "hw-firmware", "MSR 0x34 counts SMIs"),
                ({"virtual": True, "hypervisor": "KVM"},
                 "hw-hypervisor", "nothing it can read"),
                ({}, "hw-unknown", "does not say whether this is a "
                                   "virtual machine")):
            with self.subTest(rule=rule, says=says):
                v = self.advise(rep, audit(platform=plat))
                self.assertEqual(v["advice"][0]["rule"], rule)
                self.assertIn(says, v["advice"][0]["caveat"])

    def test_uncovered_by_class(self):
        """What no rule takes is named by class: a softirq that no rule
        knows, beside the rows the fixes cover."""
        recs = mistuned()
        recs[-1:-1] = repeat(50, lambda t: jrrec.softirq(1, 6000, "SCHED",
                                                         ts=t))
        recs[-1] = jrrec.summary(1, RUNTIME, 50 * 40000, 20000)
        v = self.advise(self.report(recs), audit())
        cov = v["cpus"][0]["coverage"]
        self.assertAlmostEqual(cov["fixes"] + cov["outside"] +
                               cov["uncovered"], 1.0, places=5)
        self.assertAlmostEqual(cov["uncovered_by_class"]["softirq"],
                               6 / 40, places=6)
        # the rows hold 1.95 ms of the 2 ms of noise
        self.assertAlmostEqual(cov["uncovered_by_class"]["unattributed"],
                               0.05 / 2, places=6)
        self.assertEqual(len(cov["uncovered_by_class"]), 2)


STUBBED = ("systemctl", "pgrep", "cat", "sysctl", "taskset", "trace-cmd",
           "cpupower", "touch", "rm", "id", "reboot", "curl", "sh", "bash")
BUILTINS = ("echo",)


def hostile(canary):
    """Texts that would run /usr/bin/touch CANARY (a name in the shell's
    directory) if a shell read them; short enough for a record's name."""
    t = f"/usr/bin/touch${{IFS}}{canary}"
    return [f"$({t})", f"`{t}`", f";{t};", f"|{t}", f"&&{t}", f"'$({t})'",
            f"\"$({t})\"", f"\n{t}\n"]


def every_command_rule(canary):
    """Records for every rule that prints a command, their fields
    hostile where a report can make them so: (records, params)."""
    bad = hostile(canary)
    recs = []

    def rows(*make):
        recs.extend(repeat(20, *make))

    rows(lambda t: jrrec.irq(1, 20000, "virtio0" + bad[0], irq_no=24,
                             vector=0, ts=t),
         lambda t: jrrec.detail(1, "work", "vmstat_update", "thread",
                                wall_ns=9000, pid=80, ts=t),
         lambda t: jrrec.thread(1, 10000, "kworker/1:1", 80, ts=t),
         lambda t: jrrec.irq(1, 3000, "local_timer", ts=t),
         lambda t: jrrec.thread(1, 9000, "kworker/u8:1", 81, ts=t),
         lambda t: jrrec.detail(1, "timer", "my_timer_fn", "softirq",
                                wall_ns=9000, ts=t),
         lambda t: jrrec.softirq(1, 10000, "TIMER", ts=t),
         lambda t: jrrec.rec(jrrec.NMI, 1, (8000,),
                             name="perf_event_nmi_handler", ts=t),
         lambda t: jrrec.thread(1, 9000, "khugepaged", 55, ts=t),
         lambda t: jrrec.thread(1, 9000, "kthr", 56, ts=t),
         lambda t: jrrec.thread(1, 9000, "app", 4242, ts=t),
         lambda t: jrrec.thread(1, 9000, "app" + bad[2], 4243, ts=t),
         lambda t: jrrec.detail(1, "ipi", "flush_tlb_func", "irq",
                                wall_ns=5000, dep=0, ts=t),
         lambda t: jrrec.irq(1, 6000, "call_function_single", vector=251,
                             ts=t),
         lambda t: jrrec.gap(1, 30000, ts=t))
    # what a report from elsewhere can make hostile: a pid, a function
    for i, b in enumerate(bad):
        rows(lambda t, b=b: jrrec.detail(1, "work", "fn" + b, "thread",
                                         wall_ns=9000, pid=90 + i, ts=t),
             lambda t, i=i: jrrec.thread(1, 10000, f"kworker/1:{i + 2}",
                                         90 + i, ts=t),
             lambda t, b=b: jrrec.detail(1, "timer", "tfn" + b, "softirq",
                                         wall_ns=9000, ts=t),
             lambda t: jrrec.softirq(1, 10000, "TIMER", ts=t))
    recs.append(jrrec.summary(1, RUNTIME, 20 * 400000, 30000))
    return recs


def every_condition(kf):
    """An audit in which every rule's condition holds."""
    return audit(irqbalance=77, tasks="app sshd", kthreads="kthr",
                 timer_mig=0, kf=kf,
                 platform={"kernel.nmi_watchdog": 1},
                 cpu={"governor": "powersave", "performance_governor": True,
                      "idle_states": "POLL C6", "idle_latency_us": 100,
                      "smt_siblings": "1,3", "sibling_busy_pct": 50})


class Paste(AdviseCase):
    """Every command every rule can print, with hostile text in every
    field a report can set, pasted into a shell: only the program the
    command names runs, and nothing the report wrote."""

    def sandbox(self):
        stubs = os.path.join(self.dir, "stubs")
        os.makedirs(stubs)
        log = os.path.join(self.dir, "ran.log")
        stub = os.path.join(stubs, ".stub")
        with open(stub, "w") as f:
            f.write(f"#!/bin/sh\necho \"${{0##*/}}\" >> {log}\n")
        os.chmod(stub, 0o755)
        for name in STUBBED:
            os.symlink(stub, os.path.join(stubs, name))
        return stubs, log

    def paste(self, cmd, stubs, log):
        """cmd in sh, with only the stubs on PATH, /proc and /sys out of
        reach (a user namespace's own tmpfs); the programs it ran."""
        if os.path.exists(log):
            os.unlink(log)
        inner = ("mount -t tmpfs none /proc && mount -t tmpfs none /sys "
                 f"&& cd {self.dir} && PATH={stubs} exec /bin/sh -c \"$1\"")
        subprocess.run(["unshare", "-U", "-r", "-m", "--propagation",
                        "private", "/bin/sh", "-c", inner, "paste", cmd],
                       capture_output=True, check=False, timeout=30)
        if not os.path.exists(log):
            return []
        with open(log) as f:
            return f.read().split()

    def test_only_the_named_program_runs(self):
        if not shutil.which("unshare"):
            self.skipTest("unshare (util-linux) missing")
        canary = os.path.join(self.dir, "C")
        stubs, log = self.sandbox()
        recs = every_command_rule("C")
        path = os.path.join(self.dir, "r.rec")
        out = os.path.join(self.dir, "r.json")
        jrrec.write(path, recs, params="cpus=1 prio=1 details=work,tick")
        rc, _, err = jrcli.jitread("report", path, "-q", "--json", out)
        self.assertEqual(rc, 0, err)
        # a pid is a number in a recording, but any text in a JSON report
        with open(out) as f:
            d = json.load(f)
        src = d["cpus"][0]["sources"]
        app = next(x for x in src if x["source"] == "thread:app[4242]")
        for b in hostile("C"):
            for comm in ("app", "kthr", "khugepaged"):
                src.append(dict(app, source=f"thread:{comm}[4{b}]",
                                detail=[]))
        with open(out, "w") as f:
            json.dump(d, f)
        with open(os.path.join(jrcli.TOP, "user", "tune",
                               "jr_advise_rules.c")) as f:
            text = f.read()
        with_cmds = set(re.findall(
            r'^\t\{ \.id = "([a-z-]+)",(?:[^{]|\{[a-z]+\})*`', text, re.M))
        self.assertGreater(len(with_cmds), 10, "no rule with a command read")
        printed, refused = set(), 0
        for kf in ({}, {k: False for k in ALL_KF if k != "ftrace_filter"}):
            v = self.advise(out, every_condition(kf))
            for a in v["advice"]:
                if a.get("no_command"):
                    refused += 1
                    self.assertEqual(a["commands"], [], a)
                    self.assertIn("is not", a["no_command"])
                for cmd in a["commands"]:
                    printed.add(a["rule"])
                    first = cmd.split()[0]
                    ran = self.paste(cmd, stubs, log)
                    want = [] if first in BUILTINS else [first]
                    self.assertEqual(ran, want, f"{a['rule']}: {cmd}")
                    self.assertFalse(os.path.exists(canary), cmd)
        self.assertGreaterEqual(refused, 2 * 4 * len(hostile("C")))
        self.assertEqual(sorted(with_cmds - printed), [],
                         "rules whose commands the test never pasted")


class RulesDocumented(unittest.TestCase):
    def test_every_rule_is_in_advise_rst(self):
        """advise.rst lists each rule of the table, in its order, then
        the user thread's, in the order they are given."""
        tune = os.path.join(jrcli.TOP, "user", "tune")
        with open(os.path.join(tune, "jr_advise_rules.c")) as f:
            ids = re.findall(r'^\t\{ \.id = "([a-z-]+)",', f.read(), re.M)
        with open(os.path.join(tune, "jr_advise_user.c")) as f:
            users = re.findall(r'jr_uadv_new\(v, c->cpu, "([a-z-]+)"\)',
                               f.read())
        self.assertEqual(len(users), 4)
        ids += users
        with open(os.path.join(jrcli.TOP, "Documentation",
                               "advise.rst")) as f:
            doc = re.findall(r"^``([a-z-]+)``", f.read(), re.M)
        self.assertGreater(len(ids), 15)
        self.assertEqual(doc, ids)


if __name__ == "__main__":
    unittest.main()
