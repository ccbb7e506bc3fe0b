# SPDX-License-Identifier: GPL-2.0
"""make bench's arithmetic and matching, on canned inputs (no guest)."""

import os
import tempfile
import unittest

import jitpy
from jitpy.bench import attach as bench_attach
from jitpy.bench import guest as bench_guest
from jitpy.bench import observer as bench_observer
from jitpy.bench import report as bench_report
from jitpy.bench import user as bench_user
from jitpy.guest import trace

TOP = jitpy.TOP


def loop(ns, mn):
    return {"ns_per_iter": ns, "min_delta_ns": mn, "iterations": 1}


def guest():
    res = {
        "bare": [loop(40, 28), loop(44, 29), loop(42, 28)],
        "jitmod": [loop(46, 30), loop(48, 31), loop(47, 30)],
        "probe_cost": [{"ns": 150}, {"ns": 140}, {"ns": 160}],
        "osnoise": [{"ns_per_iter": v, "ns_per_iter_probed": v + 150,
                     "threshold_floor_ns": 1000} for v in (170, 180, 175)],
    }
    agree = []
    for tool, ns in (("jitmod", 210000), ("osnoise", 215000)):
        for rep in range(3):
            agree.append({"tool": tool, "class": "ipi", "d_us": 200,
                          "seen": True, "ns": ns + rep})
    # one NMI osnoise missed, and NMI durations 100 us apart
    agree += [{"tool": "jitmod", "class": "nmi", "d_us": 200, "seen": True,
               "ns": 205000}] * 2
    agree += [{"tool": "osnoise", "class": "nmi", "d_us": 200, "seen": True,
               "ns": 305000},
              {"tool": "osnoise", "class": "nmi", "d_us": 200, "seen": False,
               "ns": None}]
    over = {"none": [{"median_ns": v} for v in (7000, 7100, 7050)],
            "jitmod": [{"median_ns": v} for v in (7150, 7160, 7140)],
            "osnoise": [{"median_ns": v} for v in (7200, 7250, 7300)],
            "spin": [{"median_ns": v} for v in (7100, 7120, 7110)]}
    return {"kernel": "6.1.0-rt", "cpus": 3, "rounds": 3, "seconds": 2,
            "resolution": res, "agreement": agree, "overhead": over}


def results():
    return {"date": "2026-11-21T00:00:00", "host": "test", "guest": guest(),
            "user": {"jitread_ns_per_iter": [10, 11],
                     "oslat_ns_per_iter": [25, 27]},
            "reader": {"jitread_events": 1000, "jitread_s": 0.01,
                       "tracecmd_events": 990, "tracecmd_s": 0.1},
            "pipeline": {"skipped": "no"}}


class Figures(unittest.TestCase):
    def setUp(self):
        self.res = results()
        self.res["figures"] = bench_report.figures(self.res)
        self.figs = {f["id"]: f for f in self.res["figures"]}

    def test_ratios_are_of_medians(self):
        f = self.figs["kernel_ns_per_iter_vs_bare"]
        self.assertEqual((f["value"], f["reference"]), (47, 42))
        self.assertAlmostEqual(f["ratio"], 47 / 42)
        self.assertIsNone(f["met"])
        f = self.figs["kernel_ns_per_iter_vs_osnoise"]
        self.assertAlmostEqual(f["ratio"], 47 / 175)
        self.assertIn("150.0 ns", f["note"])

    def test_no_osnoise_ratio_when_the_calibration_fails(self):
        r = self.res["guest"]["resolution"]
        for x in r["osnoise"]:
            x["ns_per_iter"] = -400
        f = {f["id"]: f for f in bench_report.resolution_figures(r)}
        f = f["kernel_ns_per_iter_vs_osnoise"]
        self.assertIsNone(f["ratio"])
        self.assertIsNone(f["met"])
        self.assertIn("NOT judged", f["note"])
        g = {f["id"]: f for f in bench_report.resolution_figures(r)}
        self.assertEqual(g["kernel_min_gap_vs_osnoise"]["reference"], 1000)

    def test_loop_ratio_is_the_median_of_rounds(self):
        rounds = [{"bare": 10, "jitmod": j} for j in
                  (11.0, 11.2, 11.4, 11.1, 11.3, 12.5, 11.0)]
        f = bench_report.loop_figures(rounds)[0]
        self.assertAlmostEqual(f["value"], 1.12)
        self.assertTrue(f["met"])
        self.assertIn("1.100 to 1.250: NOT apart from 1.23", f["note"])
        rounds[5]["jitmod"] = 12.0
        f = bench_report.loop_figures(rounds)[0]
        self.assertIn("1.100 to 1.200: apart from 1.23", f["note"])
        rounds = [{"bare": 10, "jitmod": 12.3}] * 7
        self.assertFalse(bench_report.loop_figures(rounds)[0]["met"])

    def test_icount_figures_count_instructions(self):
        """The deterministic half: the loop's ratio judged against the
        goal, interrupts off against on, and the probes' cost as the
        difference of the two IPI round trips; each marked icount."""
        ic = {"loop": [{"bare": 20.0, "jitmod": 22.0},
                       {"bare": 20.0, "jitmod": 22.2},
                       {"bare": 20.0, "jitmod": 24.0}],
              "irqs_off": {"on": {"ns_per_iter": 22.0, "self_ns_per_s": 900,
                                  "irqs_off": [0, 0]},
                           "off": {"ns_per_iter": 21.0,
                                   "self_ns_per_s": 400, "irqs_off": [1]}},
              "probes": {"bare": [{"median_ns": 3000}, {"median_ns": 3100}],
                         "jitmod": [{"median_ns": 3700},
                                    {"median_ns": 3600}]}}
        res = dict(self.res, icount=ic)
        figs = {f["id"]: f for f in bench_report.figures(res)}
        f = figs["icount_loop_ratio"]
        self.assertAlmostEqual(f["ratio"], 22.2 / 20.0)
        self.assertTrue(f["met"])
        self.assertIn("1.1000 to 1.2000", f["note"])
        self.assertEqual(f["where"], bench_report.ICOUNT)
        f = figs["icount_irqs_off_loop"]
        self.assertAlmostEqual(f["ratio"], 21.0 / 22.0)
        self.assertIn("400 ns a second with interrupts off", f["note"])
        f = figs["icount_probes_ipi"]
        self.assertEqual(f["value"], 3650 - 3050)
        ic["loop"][1]["jitmod"] = 23.5
        f = {f["id"]: f for f in bench_report.icount_figures(ic)}
        self.assertFalse(f["icount_loop_ratio"]["met"])
        self.assertNotIn("icount_loop_ratio", {
            f["id"] for f in bench_report.figures(
                dict(self.res, icount={"skipped": "no QEMU 10"}))})

    def test_serve_cost_per_hour_and_what_it_adds(self):
        duty = {"runtime_us": 100000, "period_us": 1000000,
                "warmup_us": 20000}
        s = {"serve": {"seconds": 30, "cpu_s": 0.5, "scrapes": 3,
                       "scrape_s": 15, "duty": duty,
                       "irqs": {"LOC": 60, "IWI": 2}},
             "alone": {"seconds": 60, "irqs": {"LOC": 120, "RES": 1}}}
        cpu, ipi = bench_report.serve_figures(s)
        self.assertEqual((cpu["value"], cpu["unit"]), (60.0, "s/h"))
        self.assertIn("100 ms of every 1000 ms after a 20 ms warm-up",
                      cpu["note"])
        # LOC the same rate in both; IWI +240/h; RES -60/h counts nothing
        self.assertEqual(ipi["value"], 240)
        self.assertFalse(ipi["met"])
        self.assertIn("IWI +240, RES -60;", ipi["note"])
        # one more wake-up than jitmod alone, at 1 per s: a boundary
        s["serve"]["irqs"] = {"RES": 31}
        s["alone"]["irqs"] = {"RES": 60}
        ipi = bench_report.serve_figures(s)[1]
        self.assertEqual((ipi["value"], ipi["met"]), (0, True))
        self.assertIn("RES +120;", ipi["note"])
        s["serve"]["irqs"] = {"RES": 32}
        self.assertEqual(bench_report.serve_figures(s)[1]["value"], 240)
        s["serve"].update(irqs={"LOC": 60}, start_irqs={"CAL": 3087},
                          first_scrape_irqs={"CAL": 9, "LOC": 1},
                          stop_irqs={})
        ipi = bench_report.serve_figures(s)[1]
        self.assertEqual((ipi["value"], ipi["met"]), (0, True))
        self.assertIn("once, not per hour: start CAL 3087; first scrape "
                      "CAL 9; stop none", ipi["note"])
        self.assertIn("<=0", "\n".join(bench_report.figure_table([ipi])))

    def test_pipeline_run_judged_is_the_one_with_steady_floors(self):
        runs = [{"floors": f, "accumulator_p50_ns": a} for f, a in
                (([60, 175], 280), ([175, 170], 250), ([170, 90], 200))]
        self.assertEqual(bench_user.steadiest(runs), 1)
        line = bench_report.runs_lines({"runs": runs, "judged": 1})[0]
        self.assertIn("280 ns (60, 175), 250 ns (175, 170), 200 ns (170, "
                      "90); judged: run 2,", line)
        self.assertEqual(bench_report.runs_lines({"runs": runs[:1],
                                                  "judged": 0}), [])

    def test_pipeline_slow_messages_by_step(self):
        p = {"cpus": "0-1", "wait": "yield,spin,yield", "shared": True,
             "produced": 10, "verdict": "verified: all", "runs": [],
             "judged": 0, "floor_p50_runs_ns": [80],
             "floor_ns": {k: 80 for k in bench_report.FIGS},
             "cost_ns": {"rdtsc": 9, "lfence_rdtsc": 12, "pause": 30},
             "transit": {}, "slow_ns": 10000,
             "slow": {"accumulator": {"publish": 1, "poll": 20, "stamp": 3},
                      "journaller": {"publish": 0, "poll": 5, "stamp": 7}}}
        self.assertIn("messages over 10 us in transit, by the step that "
                      "held them (publication, poll, stamp): accumulator "
                      "1, 20, 3; journaller 0, 5, 7",
                      bench_report.pipeline_lines(p))

    def test_attach_loss_is_the_median_round_and_cost_per_event(self):
        rs = [{"bare": 2.0, "attached": 1.98, "events": 1000, "ns": 1e9,
               "bpf_ns": 1e6},
              {"bare": 2.0, "attached": 2.0, "events": 1000, "ns": 1e9,
               "bpf_ns": 3e6},
              {"bare": 2.0, "attached": 1.9, "events": 2000, "ns": 1e9,
               "bpf_ns": 4e6}]
        f = bench_attach.figures(rs)
        self.assertAlmostEqual(f["loss"], 0.01)
        # the probes' time over the events: 1000, 3000 and 2000 ns
        self.assertAlmostEqual(f["ns_per_event"], 2000)
        self.assertAlmostEqual(f["bpf_share"], 0.003)
        self.assertAlmostEqual(f["events_per_s"], 1000)
        text = "\n".join(bench_attach.lines(f))
        self.assertIn("+1.00% (rounds +0.00% to +5.00%; goal <= 1%: met)",
                      text)
        self.assertIn("event: 2000 ns", text)
        self.assertIn("took 0.300% of one CPU", text)
        self.assertNotIn("straddle", text)
        rs[0]["attached"] = 2.1
        f = bench_attach.figures(rs)
        text = "\n".join(bench_attach.lines(f))
        self.assertIn("straddle zero", text)
        rs[1]["attached"] = 1.9
        self.assertIn("NOT met", "\n".join(bench_attach.lines(
            bench_attach.figures(rs))))
        for r in rs:
            r["events"] = 0
        self.assertIn("no event recorded", "\n".join(bench_attach.lines(
            bench_attach.figures(rs))))

    def test_classifier_ratios_are_median_rounds_and_cost_per_run(self):
        def rnd(on, off, progs):
            return {"on": {"gaps_per_s": on, "noise": on / 1e4},
                    "off": {"gaps_per_s": off, "noise": off / 1e4},
                    "progs": progs, "ns": 1e9}
        rs = [rnd(1010, 1000, {"jr_switch": (1000, 10)}),
              rnd(1030, 1000, {"jr_switch": (3000, 10)}),
              rnd(990, 1000, {"jr_switch": (2000, 10),
                              "jr_timer_entry": (500, 5)})]
        f = bench_observer.figures(rs)
        self.assertAlmostEqual(bench_report.med(f["gaps"]), 1.01)
        # each round's ns over its runs: 100, 300 and 200 ns
        self.assertAlmostEqual(f["per_run_ns"]["jr_switch"], 200)
        self.assertAlmostEqual(f["runs_per_s"]["jr_switch"], 10)
        # a program a round did not load counts as no runs there
        self.assertAlmostEqual(f["runs_per_s"]["jr_timer_entry"], 0)
        self.assertAlmostEqual(f["share"], 2.5e-6)
        text = "\n".join(bench_observer.lines(f))
        self.assertIn("gap rate with / without: 1.010 (rounds 0.990 to "
                      "1.030; goal within 5%: met)", text)
        self.assertIn("jr_switch: 200 ns a run, 10 runs/s", text)
        self.assertNotIn("jr_timer_entry", text)
        for r in rs:
            r["on"]["noise"] *= 1.1
        self.assertIn("noise with / without: 1.111", "\n".join(
            bench_observer.lines(bench_observer.figures(rs))))
        self.assertIn("NOT met", "\n".join(
            bench_observer.lines(bench_observer.figures(rs))))

    def test_smallest_gap_is_held_to_osnoise_floor(self):
        f = self.figs["kernel_min_gap_vs_osnoise"]
        self.assertEqual((f["value"], f["reference"]), (30, 1000))

    def test_overhead_ratio_and_missed_goal(self):
        f = self.figs["overhead_added_ipi"]
        self.assertEqual((f["value"], f["reference"]), (100, 200))
        self.assertTrue(f["met"])
        self.res["guest"]["overhead"]["jitmod"] = [{"median_ns": 7500}]
        f = bench_report.overhead_figures(self.res["guest"]["overhead"])[0]
        self.assertFalse(f["met"])

    def test_hooks_figure_is_net_of_the_bare_loop(self):
        f = self.figs["overhead_hooks_ipi"]
        self.assertEqual((f["value"], f["reference"]), (40, 200))
        self.assertIn("bare rdtsc loop 7110 ns",
                      self.figs["overhead_added_ipi"]["note"])

    def test_probes_only_and_round_ranges_in_the_note(self):
        """The bisect's parts: the probes alone have their own median, and
        every state's range of round medians is shown."""
        o = self.res["guest"]["overhead"]
        o["probes"] = [{"median_ns": v} for v in (7010, 7090, 7020)]
        note = bench_report.overhead_figures(o)[0]["note"]
        self.assertIn("jitmod probes only 7020 ns", note)
        self.assertIn("rounds ranged none 7000-7100, spin 7100-7120, "
                      "probes 7010-7090, jitmod 7140-7160, "
                      "osnoise 7200-7300", note)

    def test_no_ratio_when_osnoise_adds_nothing(self):
        o = self.res["guest"]["overhead"]
        o["osnoise"] = [{"median_ns": 6900}]
        f = bench_report.overhead_figures(o)[0]
        self.assertIsNone(f["ratio"])
        self.assertIn("nothing measurable", f["note"])

    def test_higher_is_better_figures(self):
        f = self.figs["reader_events_per_s_vs_tracecmd"]
        self.assertAlmostEqual(f["ratio"], (1000 / 0.01) / (990 / 0.1))
        self.assertTrue(f["met"])
        f = self.figs["agreement_seen"]
        self.assertEqual((f["value"], f["reference"]), (5, 4))
        self.assertTrue(f["met"])

    def test_text_flags_tcg_and_explains_each_disagreement(self):
        t = bench_report.text(self.res)
        row = [ln for ln in t.splitlines()
               if ln.startswith("kernel loop ns/iteration: jitmod / bare")]
        self.assertTrue(row and row[0].endswith(bench_report.TCG), t)
        self.assertIn(bench_report.NATIVE, [ln for ln in t.splitlines()
                                            if ln.startswith("user")][0])
        self.assertIn("differs: see nmi", t)
        self.assertNotIn("differs: see ipi", t)
        self.assertIn(f"  nmi: {bench_report.EXPLAIN['nmi']}", t)
        self.assertIn("# pipeline: not run: no", t)

    def test_late_jitread_is_reported(self):
        g = self.res["guest"]
        g["late_jitread"] = {"rc": 0, "out": "", "instances": []}
        self.assertIn("other guest parts: ok", bench_report.text(self.res))
        g["late_jitread"] = {"rc": 1, "out": "jitread: reading the trace "
                             "failed: Input/output error", "instances": []}
        self.assertIn("FAILED, exit 1: jitread: reading",
                      bench_report.text(self.res))
        g["late_jitread"] = {"rc": -9, "out": "", "instances": [],
                             "hung": {"state": "D"}}
        self.assertIn("HUNG (state D)", bench_report.text(self.res))

    def test_task_state_reads_a_live_process(self):
        st = bench_guest.task_state(os.getpid())
        self.assertIn(st["state"], "RS")
        self.assertIn(str(os.getpid()), st)
        self.assertIn("wchan", st[str(os.getpid())])

    def test_plot_draws_each_ratio(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.png")
            captured = {}
            real = plt.close
            plt.close = lambda f=None: captured.setdefault(
                "figs", []).append(f)
            try:
                bench_report.plot(self.res, path)
            finally:
                plt.close = real
            self.assertGreater(os.path.getsize(path), 5000)
        fig = [f for f in captured["figs"] if hasattr(f, "axes")][0]
        bars = [p.get_width() for p in fig.axes[0].patches]
        want = [f["ratio"] for f in bench_report.figures(self.res)
                if f["ratio"] is not None]
        self.assertEqual(len(bars), len(want))
        for b, w in zip(bars, want):
            self.assertAlmostEqual(b, w)

    def test_ratios_a_decade_apart_on_a_log_axis(self):
        """1.0 and 1.2 beside 215 on a log axis; near ratios linear."""
        def scale(ratios):
            res = dict(self.res, figures=[
                dict(what=f"r{r}", where="native", ratio=r, goal=None,
                     met=None) for r in ratios])
            ax = bench_report.ratio_figure(res).axes[0]
            self.assertEqual([p.get_width() for p in ax.patches], ratios)
            return ax.get_xscale(), ax.get_xlabel()
        self.assertEqual(scale([1.0, 1.2, 215.0]),
                         ("log", "ratio, log scale (dashed: goal)"))
        self.assertEqual(scale([1.0, 1.2, 9.9]),
                         ("linear", "ratio (dashed: goal)"))
        self.assertEqual(scale([0.5, 5.0])[0], "log")


JITMOD_TRACE = """\
 jitmod/1-160 [001] ..... 10.000001: irq_noise: irq=-1 vector=251 \
name=call_function_single duration_ns=201000
 jitmod/1-160 [001] ..... 10.000002: irq_noise: irq=-1 vector=236 \
name=local_timer duration_ns=7000
 jitmod/1-160 [001] ..... 10.000003: nmi_noise: handler=jinj_nmi \
duration_ns=52000
 jitmod/1-160 [001] ..... 10.000004: softirq_noise: vec=1 [TIMER] \
duration_ns=1004000
 jitmod/1-160 [001] ..... 10.000005: thread_noise: comm=jitinject/1 \
pid=99 duration_ns=50500
"""
OSNOISE_TRACE = """\
 osnoise/1-170 [001] d.h.. 20.000001: irq_noise: call_function_single:251 \
start 20.000000100 duration 202000 ns
 osnoise/1-170 [001] d.h.. 20.000002: irq_noise: local_timer:236 start \
20.000000200 duration 6000 ns
 osnoise/1-170 [001] d.... 20.000003: nmi_noise: start 20.000000300 \
duration 61000 ns
 osnoise/1-170 [001] d.... 20.000004: thread_noise: ktimers/1:16 start \
20.000000400 duration 1010000 ns
 osnoise/1-170 [001] d.... 20.000005: thread_noise: jitinject/1:99 start \
20.000000500 duration 51000 ns
"""


class Matching(unittest.TestCase):
    def match(self, fn, text, cls):
        return fn(cls, trace.parse(text))

    def test_jitmod_events_by_class(self):
        m = bench_guest.jitmod_match
        self.assertEqual(self.match(m, JITMOD_TRACE, "ipi"),
                         [("irq_noise", 201000)])
        self.assertEqual(self.match(m, JITMOD_TRACE, "hrtimer"),
                         [("irq_noise", 7000)])
        self.assertEqual(self.match(m, JITMOD_TRACE, "nmi"),
                         [("nmi_noise", 52000)])
        self.assertEqual(self.match(m, JITMOD_TRACE, "softirq"),
                         [("softirq_noise", 1004000)])
        self.assertEqual(self.match(m, JITMOD_TRACE, "thread"),
                         [("thread_noise", 50500)])

    def test_osnoise_events_by_class(self):
        m = bench_guest.osnoise_match
        self.assertEqual(self.match(m, OSNOISE_TRACE, "ipi"),
                         [("irq_noise", 202000)])
        self.assertEqual(self.match(m, OSNOISE_TRACE, "nmi"),
                         [("nmi_noise", 61000)])
        self.assertEqual(self.match(m, OSNOISE_TRACE, "softirq"),
                         [("thread_noise", 1010000)])
        self.assertEqual(self.match(m, OSNOISE_TRACE, "thread"),
                         [("thread_noise", 51000)])

    def test_schedule_covers_every_class_and_duration(self):
        s = bench_guest.schedule(2)
        self.assertEqual(len(s), 2 * len(bench_guest.CLASSES) *
                         len(bench_guest.DURATIONS_US))
        self.assertEqual({c for c, _ in s}, set(bench_guest.CLASSES))

    def test_tracecmd_event_lines_are_counted(self):
        lines = ["cpus=3",
                 "   jitmod/1-161   [001]    66.600254: gap: "
                 "duration_ns=1026 class=hw:unknown",
                 "CPU 1 is empty"]
        self.assertEqual(sum(1 for ln in lines
                             if bench_report.TC_EVENT.search(ln)), 1)


if __name__ == "__main__":
    unittest.main()
