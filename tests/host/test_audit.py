# SPDX-License-Identifier: GPL-2.0
"""jitread audit on a crafted /proc and /sys (--sysroot): a mistuned
machine warns on each of its faults with the evidence (the IRQ routed to
the CPU and its count, the unbound kthread, the task, the governor, the
deep idle state, the sysctls), a tuned one gets none and --fail-warn
tells them apart; then on this machine, against /proc itself."""

import json
import os
import re
import tempfile
import unittest

from tests.host import jrcli

VERDICT = 4
KTHREAD_FLAGS = 0x00200000 | 0x8040     # PF_KTHREAD among others
TASK_FLAGS = 0x00400100


def stat_line(pid, comm, flags):
    return f"{pid} ({comm}) S 2 0 0 0 -1 {flags} 0 0 0 0 1 2 0 0 20 0\n"


def status(comm, allowed):
    return f"Name:\t{comm}\nCpus_allowed_list:\t{allowed}\n"


def mistuned():
    """A 4-CPU machine with CPUs 2-3 isolated and much left undone."""
    f = {
        "proc/cmdline": "BOOT_IMAGE=/vmlinuz root=/dev/vda "
                        "isolcpus=managed_irq,domain,2-3 nohz_full=2-3 "
                        "irqaffinity=0-1 skew_tick=1\n",
        "proc/interrupts":
            "           CPU0       CPU1       CPU2       CPU3\n"
            "  0:         40          0          0          0  IO-APIC "
            "  2-edge      timer\n"
            " 24:       1000          0        500          0  PCI-MSI "
            "512000-edge      virtio0-input.0\n"
            " 25:         10          5          0          0  PCI-MSI "
            "512001-edge      virtio0-output.0\n"
            "NMI:          0          0          0          0   "
            "Non-maskable interrupts\n",
        "proc/irq/0/effective_affinity_list": "0\n",
        "proc/irq/24/effective_affinity_list": "2\n",
        "proc/irq/25/effective_affinity_list": "0-1\n",
        "proc/100/stat": stat_line(100, "kworker/u8:1", KTHREAD_FLAGS),
        "proc/100/status": status("kworker/u8:1", "0-3"),
        "proc/101/stat": stat_line(101, "ksoftirqd/2", KTHREAD_FLAGS),
        "proc/101/status": status("ksoftirqd/2", "2"),
        "proc/200/stat": stat_line(200, "my app) (x", TASK_FLAGS),
        "proc/200/status": status("my app) (x", "0-3"),
        "proc/201/stat": stat_line(201, "pinned", TASK_FLAGS),
        "proc/201/status": status("pinned", "0-1"),
        "proc/300/comm": "irqbalance\n",
        "proc/300/stat": stat_line(300, "irqbalance", TASK_FLAGS),
        "proc/300/status": status("irqbalance", "0-1"),
        "proc/sys/vm/stat_interval": "1\n",
        "proc/sys/kernel/timer_migration": "1\n",
        "proc/sys/kernel/nmi_watchdog": "1\n",
        "proc/sys/kernel/sched_rt_runtime_us": "950000\n",
        "proc/sys/kernel/sched_rt_period_us": "1000000\n",
        "sys/devices/system/cpu/isolated": "2-3\n",
        "sys/devices/system/cpu/nohz_full": "2-3\n",
        "sys/devices/system/cpu/online": "0-3\n",
        "sys/devices/system/clocksource/clocksource0/current_clocksource":
            "hpet\n",
        "sys/devices/virtual/workqueue/cpumask": "f\n",
        "sys/kernel/mm/transparent_hugepage/enabled":
            "[always] madvise never\n",
    }
    for cpu, gov, c6_off in ((2, "powersave", 0), (3, "performance", 1)):
        d = f"sys/devices/system/cpu/cpu{cpu}"
        f[f"{d}/cpufreq/scaling_governor"] = gov + "\n"
        f[f"{d}/cpufreq/scaling_cur_freq"] = "2400000\n"
        for k, (name, lat, off) in enumerate((("POLL", 0, 0), ("C1", 2, 0),
                                              ("C6", 133, c6_off))):
            f[f"{d}/cpuidle/state{k}/name"] = name + "\n"
            f[f"{d}/cpuidle/state{k}/latency"] = f"{lat}\n"
            f[f"{d}/cpuidle/state{k}/disable"] = f"{off}\n"
        f[f"{d}/power/pm_qos_resume_latency_us"] = "0\n"
        f[f"{d}/topology/thread_siblings_list"] = f"{cpu}\n"
    return f


def tuned():
    f = mistuned()
    f.update({
        "proc/irq/24/effective_affinity_list": "0\n",
        "proc/100/status": status("kworker/u8:1", "0-1"),
        "proc/200/status": status("my app) (x", "0-1"),
        "proc/sys/vm/stat_interval": "10\n",
        "proc/sys/kernel/nmi_watchdog": "0\n",
        "proc/sys/kernel/sched_rt_runtime_us": "-1\n",
        "sys/devices/system/clocksource/clocksource0/current_clocksource":
            "tsc\n",
        "sys/devices/virtual/workqueue/cpumask": "3\n",
        "sys/kernel/mm/transparent_hugepage/enabled":
            "always [madvise] never\n",
        "sys/devices/system/cpu/cpu2/cpufreq/scaling_governor":
            "performance\n",
        "sys/devices/system/cpu/cpu2/cpuidle/state2/disable": "1\n",
    })
    for k in ("proc/300/comm", "proc/300/stat", "proc/300/status"):
        del f[k]
    return f


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class Audit(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def root(self, files):
        root = os.path.join(self.tmp.name, str(len(os.listdir(
            self.tmp.name))))
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return root

    def audit(self, root, *extra, code=0):
        rc, out, err = jrcli.jitread("audit", "--sysroot", root, "--json",
                                     "-", *extra)
        self.assertEqual(rc, code, err)
        return json.loads(out), err

    @staticmethod
    def check(d, cpu, ident):
        return next(c for c in d["checks"]
                    if c["cpu"] == cpu and c["id"] == ident)

    def test_mistuned_machine_warns_with_evidence(self):
        d, _ = self.audit(self.root(mistuned()))
        self.assertEqual([c["cpu"] for c in d["cpus"]], [2, 3])
        sysw = {c["id"] for c in d["checks"]
                if c["cpu"] == -1 and c["status"] == "warn"}
        self.assertEqual(sysw, {"clocksource", "irqbalance", "thp",
                                "vm.stat_interval", "kernel.nmi_watchdog",
                                "sched_rt_runtime_us"})
        self.assertIn("pid 300", self.check(d, -1, "irqbalance")["text"])
        cpu2 = d["cpus"][0]
        self.assertEqual((cpu2["isolated"], cpu2["nohz_full"],
                          cpu2["rcu_nocb"]), (True, True, True))
        self.assertEqual(cpu2["irqs"], [{"irq": 24,
                                         "name": "virtio0-input.0",
                                         "count": 500}])
        self.assertEqual((cpu2["nr_kthreads"], cpu2["kthreads"]),
                         (1, "kworker/u8:1"))
        self.assertEqual((cpu2["nr_tasks"], cpu2["tasks"]),
                         (1, "my app) (x"))
        self.assertEqual(cpu2["idle_latency_us"], 133)
        warn2 = {c["id"] for c in d["checks"]
                 if c["cpu"] == 2 and c["status"] == "warn"}
        self.assertEqual(warn2, {"irqs", "kthreads", "tasks", "workqueue",
                                 "governor", "cpuidle"})
        self.assertIn("24 virtio0-input.0 (500 here)",
                      self.check(d, 2, "irqs")["text"])
        self.assertEqual(self.check(d, 3, "irqs")["status"], "ok")
        self.assertEqual(self.check(d, 3, "cpuidle")["status"], "ok")
        self.assertEqual(self.check(d, 3, "governor")["status"], "ok")
        self.assertEqual(d["system"]["isolcpus"], "managed_irq,domain,2-3")
        self.assertTrue(d["system"]["managed_irq"])
        self.assertEqual(d["warnings"], 6 + 6 + 3)

    def test_tuned_machine_has_nothing_to_warn(self):
        d, _ = self.audit(self.root(tuned()), "--fail-warn")
        self.assertEqual(d["warnings"], 0,
                         [c for c in d["checks"] if c["status"] == "warn"])
        d, err = self.audit(self.root(mistuned()), "--fail-warn",
                            code=VERDICT)
        self.assertEqual(err.strip(), "jitread: audit: 15 warning(s)")

    def test_kernel_without_nohz_full(self):
        """A kernel built without NO_HZ_FULL (Debian's 5.10) has no
        sysfs nohz_full file and ignores nohz_full=: the check says so."""
        files = mistuned()
        del files["sys/devices/system/cpu/nohz_full"]
        d, _ = self.audit(self.root(files))
        self.assertFalse(d["system"]["kernel_nohz_full"])
        self.assertEqual(d["system"]["nohz_full"], "2-3")
        k = self.check(d, 2, "nohz_full")
        self.assertEqual(k["status"], "warn")
        self.assertIn("built without NO_HZ_FULL", k["text"])
        d, _ = self.audit(self.root(mistuned()))
        self.assertTrue(d["system"]["kernel_nohz_full"])
        self.assertNotIn("NO_HZ_FULL", self.check(d, 2, "nohz_full")["text"])

    def test_kernel_features_from_files_then_config(self):
        """An option's file decides where its filesystem is there, else
        /boot/config-RELEASE, else it is unknown (null)."""
        files = mistuned()
        files.update({
            "sys/module/rcutree/parameters/rcu_nocb_gp_stride": "-1\n",
            "sys/kernel/tracing/events/workqueue/workqueue_queue_work/id":
                "1\n",
            "sys/kernel/tracing/set_ftrace_filter": "",
        })
        d, _ = self.audit(self.root(files))
        self.assertEqual(d["system"]["kernel_features"], {
            "no_hz_full": True, "rcu_nocb_cpu": True, "trace_events": True,
            "csd_events": False, "ftrace_filter": True, "thp": True})
        self.assertIn("kernel has: NO_HZ_FULL yes, RCU_NOCB_CPU yes",
                      self.check(d, -1, "kernel_features")["text"])
        files = mistuned()
        for k in ("sys/devices/system/cpu/nohz_full",
                  "sys/kernel/mm/transparent_hugepage/enabled"):
            del files[k]
        files.update({
            "sys/kernel/mm/ksm/run": "0\n",
            "sys/module/rcutree/parameters/rcu_fanout_leaf": "16\n",
            "proc/sys/kernel/osrelease": "6.1.0-test\n",
            "boot/config-6.1.0-test": "CONFIG_RCU_NOCB_CPU=y\n"
                                      "# CONFIG_DYNAMIC_FTRACE is not set\n"
                                      "CONFIG_EVENT_TRACING=y\n",
        })
        d, _ = self.audit(self.root(files))
        self.assertEqual(d["system"]["kernel_features"], {
            "no_hz_full": False, "rcu_nocb_cpu": False, "trace_events": True,
            "csd_events": None, "ftrace_filter": False, "thp": False})
        self.assertFalse(d["system"]["kernel_nohz_full"])
        del files["boot/config-6.1.0-test"]
        d, _ = self.audit(self.root(files))
        self.assertEqual(d["system"]["kernel_features"]["trace_events"],
                         None)

    def test_platform_steal_and_governors(self):
        """The hypervisor flag makes a virtual machine, named by its
        clocksource; /proc/stat gives steal; cpufreq's list says whether
        performance is offered."""
        files = mistuned()
        files.update({
            "proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\n"
                            "flags\t\t: fpu tsc hypervisor avx\n\n",
            "sys/devices/system/clocksource/clocksource0/"
            "available_clocksource": "kvm-clock tsc acpi_pm\n",
            "proc/stat": "cpu  9 9 9 9 9 9 9 9 0 0\n"
                         "cpu2 1 2 3 4 5 6 7 42 0 0\n"
                         "cpu3 1 2 3 4 5 6 7 0 0 0\nintr 5\n",
            "sys/devices/system/cpu/cpu2/cpufreq/"
            "scaling_available_governors": "powersave performance\n",
            "sys/devices/system/cpu/cpu3/cpufreq/"
            "scaling_available_governors": "schedutil powersave\n",
        })
        d, _ = self.audit(self.root(files))
        self.assertEqual((d["system"]["virtual"], d["system"]["hypervisor"],
                          d["system"]["cpu_vendor"]),
                         (True, "KVM", "GenuineIntel"))
        self.assertEqual([(c["steal_ms"], c["performance_governor"])
                          for c in d["cpus"]], [(420, True), (0, False)])
        self.assertIn("steal 420 ms", self.check(d, 2, "steal")["text"])
        self.assertIn("virtual machine (KVM)",
                      self.check(d, -1, "platform")["text"])
        files["proc/cpuinfo"] = files["proc/cpuinfo"].replace(
            " hypervisor", "")
        d, _ = self.audit(self.root(files))
        self.assertEqual((d["system"]["virtual"], d["system"]["hypervisor"]),
                         (False, ""))
        del files["proc/cpuinfo"], files["proc/stat"]
        d, _ = self.audit(self.root(files))
        self.assertIsNone(d["system"]["virtual"])
        self.assertEqual([c["steal_ms"] for c in d["cpus"]], [None, None])

    def test_text_is_a_checklist(self):
        rc, out, _ = jrcli.jitread("audit", "--sysroot",
                                   self.root(mistuned()), "-c", "3")
        self.assertEqual(rc, 0)
        self.assertIn("boot: isolcpus=managed_irq,domain,2-3 nohz_full=2-3 "
                      "rcu_nocbs=- irqaffinity=0-1 skew_tick", out)
        self.assertIn("\nCPU 3\n  [ok  ] isolated", out)
        self.assertIn("[warn] irqbalance runs (pid 300)", out)
        self.assertNotIn("CPU 2", out)
        self.assertTrue(out.endswith("\n9 warning(s)\n"), out)

    def test_bad_input(self):
        jrcli.refused(self, ["audit", "--sysroot",
                             os.path.join(self.tmp.name, "none")], 1,
                      "not a directory")
        empty = self.root({"proc/cmdline": "quiet\n"})
        jrcli.refused(self, ["audit", "--sysroot", empty], 1,
                      "no CPU to audit")
        jrcli.refused(self, ["audit", "-T", "5"], 2,
                      "not an option of 'jitread audit'")


CHECK_ROW = re.compile(r'JR_(SYS|CPU)_(?:CHECK|FLAG)\("([^"]+)"')


def check_table():
    """(id, per CPU) of each row of the audit's table, in its order."""
    with open(os.path.join(jrcli.TOP, "user", "tune",
                           "jr_audit_check.c")) as f:
        return [(m.group(2), m.group(1) == "CPU")
                for m in CHECK_ROW.finditer(f.read())]


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class AuditTable(unittest.TestCase):
    """The checks are a table: what the audit prints follows it, and the
    manual names every row."""

    def test_checks_follow_the_table(self):
        rows = check_table()
        self.assertGreaterEqual(len(rows), 20)
        rc, out, err = jrcli.jitread("audit", "-c", "0,1", "--json", "-",
                                     "-q")
        self.assertEqual(rc, 0, err)
        got = [(c["id"], c["cpu"]) for c in json.loads(out)["checks"]]
        want = [(i, -1) for i, cpu in rows if not cpu]
        for n in (0, 1):
            want += [(i, n) for i, cpu in rows if cpu]
        # steal is left out where /proc/stat cannot tell it
        self.assertEqual([g for g in got if g[0] != "steal"],
                         [w for w in want if w[0] != "steal"])

    def test_manual_names_every_check(self):
        text = ""
        for name in os.listdir(os.path.join(jrcli.TOP, "Documentation")):
            if not name.endswith(".rst"):
                continue    # the pages, not their images
            with open(os.path.join(jrcli.TOP, "Documentation", name)) as f:
                text += f.read()
        missing = [i for i, _ in check_table() if f"``{i}``" not in text]
        self.assertEqual(missing, [])


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK),
                     "user/jitread not built (make user)")
class AuditHere(unittest.TestCase):
    """This machine, read by the test itself for comparison."""

    def test_this_machine(self):
        rc, out, err = jrcli.jitread("audit", "-c", "0", "--json", "-", "-q")
        self.assertEqual(rc, 0, err)
        d = json.loads(out)
        with open("/proc/cmdline") as f:
            self.assertEqual(d["system"]["cmdline"], f.read().strip())
        with open("/sys/devices/system/clocksource/clocksource0/"
                  "current_clocksource") as f:
            self.assertEqual(d["system"]["clocksource"], f.read().strip())
        with open("/proc/sys/vm/stat_interval") as f:
            self.assertEqual(d["system"]["vm.stat_interval"],
                             int(f.read()))
        cpu0 = d["cpus"][0]
        # this test's own process may run on CPU 0 unless it is pinned
        if 0 in os.sched_getaffinity(0):
            self.assertGreater(cpu0["nr_tasks"], 0)
        self.assertEqual({c["cpu"] for c in d["checks"]}, {-1, 0})


def main():
    unittest.main()


if __name__ == "__main__":
    main()
