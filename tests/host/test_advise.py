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
import tempfile
import unittest

from jitpy.formats import recording as jrrec
from tests.host import jrcli

MS = 1000000
RUNTIME = 10000 * MS


def audit(nohz=False, irqbalance=0, tasks="", kthreads="", timer_mig=1,
          isolcpus="1"):
    """An audit of CPU 1 as jitread audit --json writes it."""
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
class Advise(unittest.TestCase):
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


class RulesDocumented(unittest.TestCase):
    def test_every_rule_is_in_advise_rst(self):
        """advise.rst lists each rule of the table, in its order."""
        with open(os.path.join(jrcli.TOP, "user", "tune",
                               "jr_advise_rules.c")) as f:
            ids = re.findall(r'^\t\{ "([a-z-]+)",', f.read(), re.M)
        with open(os.path.join(jrcli.TOP, "Documentation",
                               "advise.rst")) as f:
            doc = re.findall(r"^``([a-z-]+)``", f.read(), re.M)
        self.assertGreater(len(ids), 15)
        self.assertEqual(doc, ids)


if __name__ == "__main__":
    unittest.main()
