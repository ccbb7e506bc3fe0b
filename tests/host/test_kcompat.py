# SPDX-License-Identifier: GPL-2.0
"""The kernel API variants come from the tree built against.

include/jitmod_kcompat.sh greps a tree's headers and Module.symvers;
include/jitmod_kcompat.h turns what it finds into jit_* names.  Two
made-up trees, one with each variant of every probed API, must give
opposite answers; the kernel matrix that scripts/kernels.sh fetched must
give the variants those kernels are known to have, and make modules-all
must have built all three modules for each of them.
"""

import os
import subprocess
import tempfile
import unittest

import jitpy
from jitpy.vm import runner as jitvm

TOP = jitpy.TOP
PROBE = os.path.join(TOP, "include", "jitmod_kcompat.sh")
BUILD = os.path.join(TOP, "build")

ALL = {"JIT_HAVE_SWITCH_PREV_STATE", "JIT_HAVE_ASSIGN_STR_DST",
       "JIT_HAVE_HRTIMER_SETUP", "JIT_HAVE_TIMER_DELETE_SYNC",
       "JIT_HAVE_RDMSRQ", "JIT_HAVE_IRQ_STAT_COUNTS", "JIT_HAVE_HK_TYPE",
       "JIT_HAVE_RCU_MOMENTARY_EQS", "JIT_HAVE_SETATTR_NOCHECK",
       "JIT_HAVE_KTHREAD_ON_CPU"}

# path: (the old variant's text, the new one's)
HEADERS = {
    "include/trace/events/sched.h":
        ("TP_PROTO(bool preempt, struct task_struct *prev)",
         "TP_PROTO(bool preempt, unsigned int prev_state)"),
    "include/trace/stages/stage6_event_callback.h":
        ("#define __assign_str(dst, src)", "#define __assign_str(dst)"),
    "include/linux/hrtimer.h":
        ("extern void hrtimer_init(struct hrtimer *timer);",
         "extern void hrtimer_setup(struct hrtimer *timer);"),
    "include/linux/timer.h":
        ("extern int del_timer_sync(struct timer_list *timer);",
         "extern int timer_delete_sync(struct timer_list *timer);"),
    "arch/x86/include/asm/msr.h":
        ("int rdmsrl_safe_on_cpu(unsigned int cpu);",
         "int rdmsrq_safe_on_cpu(unsigned int cpu);"),
    "arch/x86/include/asm/hardirq.h":
        ("unsigned int __nmi_count;", "unsigned int counts[IRQ_COUNT_MAX];"),
    "include/linux/sched/isolation.h":
        ("HK_FLAG_DOMAIN = (1 << 5),", "HK_TYPE_DOMAIN,"),
    "include/linux/rcutree.h":
        ("void rcu_momentary_dyntick_idle(void);",
         "void rcu_momentary_eqs(void);"),
}
SYMVERS = ("0x1\tsched_set_fifo\tvmlinux\tEXPORT_SYMBOL_GPL\t\n",
           "0x1\tsched_setattr_nocheck\tvmlinux\tEXPORT_SYMBOL_GPL\t\n"
           "0x2\tkthread_create_on_cpu\tvmlinux\tEXPORT_SYMBOL\t\n")


def probe(src, obj, out):
    subprocess.run(["sh", PROBE, src, obj, out], check=True)
    with open(out) as f:
        return {ln.split()[1] for ln in f if ln.startswith("#define")}


def matrix():
    """(suite, flavour, release, state, tree or reason) per kernel."""
    return jitvm.kernel_matrix() or []


class Probe(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def tree(self, name, new, split=False):
        """A made-up tree with each API's old or new variant; split puts
        the arch headers in the object tree, as a separate O= build
        keeps them."""
        src = os.path.join(self.dir, name)
        obj = src + "-obj" if split else src
        for path, variants in HEADERS.items():
            root = obj if split and path.startswith("arch/") else src
            os.makedirs(os.path.dirname(os.path.join(root, path)),
                        exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(variants[new] + "\n")
        os.makedirs(obj, exist_ok=True)
        with open(os.path.join(obj, "Module.symvers"), "w") as f:
            f.write(SYMVERS[new])
        return src, obj

    def test_each_variant_from_the_headers(self):
        old = probe(*self.tree("old", 0), os.path.join(self.dir, "o.h"))
        new = probe(*self.tree("new", 1), os.path.join(self.dir, "n.h"))
        self.assertEqual(old, set())
        self.assertEqual(new, ALL)

    def test_headers_in_the_object_tree(self):
        got = probe(*self.tree("split", 1, split=True),
                    os.path.join(self.dir, "s.h"))
        self.assertEqual(got, ALL)

    def test_rewritten_only_when_it_changes(self):
        src, obj = self.tree("t", 1)
        out = os.path.join(self.dir, "gen.h")
        probe(src, obj, out)
        os.utime(out, (1, 1))
        probe(src, obj, out)
        self.assertEqual(os.stat(out).st_mtime, 1)
        with open(os.path.join(obj, "Module.symvers"), "w") as f:
            f.write(SYMVERS[0])
        self.assertNotIn("JIT_HAVE_SETATTR_NOCHECK", probe(src, obj, out))
        self.assertNotEqual(os.stat(out).st_mtime, 1)


# what each kernel series is known to have (Debian's own trees)
KNOWN = {
    "5.10.": ({"JIT_HAVE_TIMER_DELETE_SYNC"},
              {"JIT_HAVE_SWITCH_PREV_STATE", "JIT_HAVE_SETATTR_NOCHECK",
               "JIT_HAVE_KTHREAD_ON_CPU", "JIT_HAVE_HK_TYPE",
               "JIT_HAVE_RCU_MOMENTARY_EQS", "JIT_HAVE_ASSIGN_STR_DST"}),
    "6.12.": ({"JIT_HAVE_SWITCH_PREV_STATE", "JIT_HAVE_ASSIGN_STR_DST",
               "JIT_HAVE_HK_TYPE", "JIT_HAVE_SETATTR_NOCHECK"},
              {"JIT_HAVE_HRTIMER_SETUP", "JIT_HAVE_RDMSRQ",
               "JIT_HAVE_IRQ_STAT_COUNTS"}),
    "7.": ({"JIT_HAVE_RDMSRQ", "JIT_HAVE_IRQ_STAT_COUNTS",
            "JIT_HAVE_HRTIMER_SETUP", "JIT_HAVE_ASSIGN_STR_DST"}, set()),
}


class Matrix(unittest.TestCase):
    def test_matrix_was_fetched(self):
        rows = matrix()
        if not rows:
            self.skipTest("no build/kernels/status.tsv: run make kernels")
        for suite, flavour, rel, state, what in rows:
            with self.subTest(kernel=f"{suite} {flavour}"):
                if state != "ok":
                    self.skipTest(f"{suite} {flavour}: {what}")
                self.assertTrue(os.path.isfile(
                    os.path.join(what, "Module.symvers")), what)

    def test_variants_and_modules_per_kernel(self):
        rows = [r for r in matrix() if r[3] == "ok"]
        if not rows:
            self.skipTest("no kernel of the matrix fetched: run make kernels")
        for _, _, rel, _, _ in rows:
            with self.subTest(kernel=rel):
                out = os.path.join(BUILD, "modules", rel)
                gen = os.path.join(out, "module", "jitmod_kcompat_gen.h")
                if not os.path.exists(gen):
                    self.skipTest(f"{rel}: not built: run make modules-all")
                with open(gen) as f:
                    got = {ln.split()[1] for ln in f
                           if ln.startswith("#define")}
                for series, (has, lacks) in KNOWN.items():
                    if rel.startswith(series):
                        self.assertLessEqual(has, got, rel)
                        self.assertFalse(lacks & got, rel)
                for m in ("module/jitmod.ko", "jitinject/jitinject.ko",
                          "jitbench/jitbench.ko"):
                    self.assertTrue(os.path.isfile(os.path.join(out, m)),
                                    f"{rel}: no {m}")


if __name__ == "__main__":
    unittest.main()
