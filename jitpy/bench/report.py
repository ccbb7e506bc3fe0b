# SPDX-License-Identifier: GPL-2.0
"""make bench: turn the raw measurements into figures, a table and a plot.

Kept apart from bench.py so that the arithmetic can be tested on canned
inputs (tests/host/test_bench.py) without a guest.
"""

import re
import statistics

# a trace-cmd report line that is an event: "... [001] 12.345: gap: ..."
TC_EVENT = re.compile(r"\[\d+\]\s+\d+\.\d+: \w+:")
TCG = "TCG: relative only"
ICOUNT = "icount: instructions"
NATIVE = "native"
# What each tool files an injection under, and why they may differ.
EXPLAIN = {
    "hrtimer": "both time the local_timer vector from its entry to its exit "
               "tracepoint; a difference is the cost of the other tracer's "
               "hooks that run inside that window",
    "ipi": "both time the call_function_single vector between the same "
           "tracepoints; as for hrtimer",
    "softirq": "on PREEMPT_RT softirqs run in threads: osnoise files the "
               "TIMER softirq as thread noise of ktimers/N or ksoftirqd/N "
               "(the whole thread run, switch included), jitmod as "
               "softirq:TIMER, net of the thread that carries it",
    "nmi": "jitmod's NMI window opens at its own first-in-chain NMI "
           "handler and closes at the last nmi_handler tracepoint, so the "
           "NMI entry and exit code stay in the gap's unexplained rest; "
           "osnoise times from its nmi_enter hook to nmi_exit",
    "thread": "both charge a preempting thread from the sched_switch away "
              "from the sampler to the switch back",
}

PIPE_GOAL = 2.0  # accumulator transit p50 / the hand-off floor's p50
FIGS = ("min", "50", "99", "99.99", "max")


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fig(fid, what, value, ref, goal=None, lower_is_better=True, where=TCG,
        unit="ns", note=""):
    r = ratio(value, ref)
    met = None
    if goal is not None and r is not None:
        met = r <= goal if lower_is_better else r >= goal
    return {"id": fid, "what": what, "value": value, "reference": ref,
            "unit": unit, "ratio": r, "goal": goal,
            "goal_kind": "<=" if lower_is_better else ">=", "met": met,
            "where": where, "note": note}


def resolution_figures(r):
    bare = med(x["ns_per_iter"] for x in r["bare"])
    jm = med(x["ns_per_iter"] for x in r["jitmod"])
    osn = med(x["ns_per_iter"] for x in r["osnoise"])
    cost = med(x["ns"] for x in r["probe_cost"])
    jm_min = min(x["min_delta_ns"] for x in r["jitmod"])
    bare_min = min(x["min_delta_ns"] for x in r["bare"])
    floor = r["osnoise"][0]["threshold_floor_ns"]
    osn_gap = max(floor, osn) if osn is not None else floor
    opt = all(x.get("optimized", True) for x in r["probe_cost"] +
              r["osnoise"])
    raw = med(x["ns_per_iter_probed"] for x in r["osnoise"])
    osn_note = (f"osnoise's turns counted by a kprobe whose own cost, "
                f"{cost:.1f} ns a call, was measured and taken off"
                f"{'' if opt else ' (a probe was NOT optimized: suspect)'}")
    if osn is not None and osn <= 0:
        osn_note = (f"NOT judged: the kprobe cost {cost:.1f} ns a call in "
                    f"jitbench's loop but osnoise's whole probed turn took "
                    f"{raw:.1f} ns, so the calibration does not transfer")
        osn = None
    return [
        fig("kernel_ns_per_iter_vs_bare", "kernel loop ns/iteration: jitmod "
            "/ bare rdtsc kthread", jm, bare,
            note="the resolution rounds' medians; the goal is judged on "
                 "the per-round ratios below"),
        fig("kernel_ns_per_iter_vs_osnoise", "kernel loop ns/iteration: "
            "jitmod / osnoise", jm, osn, goal=0.5, note=osn_note),
        fig("kernel_min_gap_vs_bare", "smallest gap seen: jitmod / bare "
            "kthread", jm_min, bare_min, goal=1.2),
        fig("kernel_min_gap_vs_osnoise", "smallest detectable gap: jitmod "
            "/ osnoise", jm_min, osn_gap, goal=0.5,
            note=f"osnoise cannot go below its {floor} ns threshold "
                 "(tracing_thresh is set in whole us); jitmod's threshold "
                 "goes to 1 ns, so its floor is one loop turn"),
    ]


LOOP_GOAL = 1.15
LOOP_BEFORE = 1.23  # the ratio an earlier bench read, to be told apart


def loop_figures(rounds):
    """jitmod's loop against the bare one: the median of the per-round
    ratios, and their spread."""
    ratios = sorted(r["jitmod"] / r["bare"] for r in rounds)
    m = statistics.median(ratios)
    apart = ratios[-1] < LOOP_BEFORE
    return [fig("kernel_loop_ratio_rounds", "kernel loop ns/iteration, "
                "per-round ratio: jitmod / bare rdtsc kthread", m, 1.0,
                goal=LOOP_GOAL, unit="x",
                note=f"median of {len(ratios)} alternating rounds, "
                     f"{ratios[0]:.3f} to {ratios[-1]:.3f}: "
                     f"{'' if apart else 'NOT '}apart from "
                     f"{LOOP_BEFORE}")]


def icount_figures(i):
    """The deterministic-time half: each figure counts instructions (one
    a nanosecond of guest time), so one round would do; the rounds show
    that they agree."""
    out = []
    if isinstance(i.get("loop"), list) and i["loop"]:
        ratios = sorted(r["jitmod"] / r["bare"] for r in i["loop"])
        bare = med(r["bare"] for r in i["loop"])
        out.append(fig("icount_loop_ratio", "kernel loop instructions/"
                       "iteration: jitmod / bare rdtsc kthread",
                       med(r["jitmod"] for r in i["loop"]), bare,
                       goal=LOOP_GOAL, where=ICOUNT, unit="instr",
                       note=f"{len(ratios)} ABBA rounds, ratios "
                            f"{ratios[0]:.4f} to {ratios[-1]:.4f}"))
    off = i.get("irqs_off", {})
    if "on" in off and "off" in off:
        on, o = off["on"], off["off"]
        out.append(fig("icount_irqs_off_loop", "kernel loop instructions/"
                       "iteration, interrupts off / on", o["ns_per_iter"],
                       on["ns_per_iter"], where=ICOUNT, unit="instr",
                       note=f"jitmod's own slow path: {o['self_ns_per_s']:.0f}"
                            f" ns a second with interrupts off, "
                            f"{on['self_ns_per_s']:.0f} with them on; "
                            f"summaries' irqs_off {sorted(set(o['irqs_off']))}"
                            f" and {sorted(set(on['irqs_off']))}"))
    pr = i.get("probes", {})
    if pr.get("bare") and pr.get("jitmod"):
        bare = med(x["median_ns"] for x in pr["bare"])
        jm = med(x["median_ns"] for x in pr["jitmod"])
        out.append(fig("icount_probes_ipi", "instructions jitmod's probes "
                       "add to an IPI on the sampled CPU", jm - bare, None,
                       where=ICOUNT, unit="instr",
                       note=f"median synchronous IPI round trip to CPU 1: "
                            f"{jm:.0f} while jitmod samples it, {bare:.0f} "
                            "while jitbench's bare loop spins there"))
    return out


def agreement_rows(rows):
    """(class, D) -> per tool: seen, of, median ns."""
    out = {}
    for r in rows:
        k = (r["class"], r["d_us"])
        t = out.setdefault(k, {}).setdefault(r["tool"], {"seen": 0, "of": 0,
                                                         "ns": []})
        t["of"] += 1
        if r["seen"]:
            t["seen"] += 1
            t["ns"].append(r["ns"])
    for k, tools in out.items():
        for t in tools.values():
            t["median_ns"] = med(t.pop("ns"))
    return out


def disagrees(d_us, a, b):
    """Seen counts differ, or the medians differ by over 20 % of D."""
    if a["seen"] != b["seen"]:
        return True
    if a["median_ns"] is None or b["median_ns"] is None:
        return False
    return abs(a["median_ns"] - b["median_ns"]) > 0.2 * d_us * 1000


def agreement_figures(rows):
    agg = agreement_rows(rows)
    seen = {t: sum(v[t]["seen"] for v in agg.values() if t in v)
            for t in ("jitmod", "osnoise")}
    total = sum(v["jitmod"]["of"] for v in agg.values() if "jitmod" in v)
    return [fig("agreement_seen", "injections filed under their class: "
                "jitmod / osnoise", seen["jitmod"], seen["osnoise"],
                goal=1.0, lower_is_better=False, unit="injections",
                note=f"of {total} each")]


def overhead_figures(o):
    """Two readings of one measurement; see Documentation/benchmarks.rst.

    As the goal is worded, each tracer's added cost is against a CPU 1
    that spins without reading the TSC.  Under TCG a vCPU reading the TSC
    tens of millions of times a second slows every other vCPU, so the
    second figure takes jitmod against a bare rdtsc loop instead: what its
    hooks add.  osnoise's loop reads the clock about a tenth as often, and
    its figure keeps that share.
    """
    none = med(x["median_ns"] for x in o["none"])
    jm = med(x["median_ns"] for x in o["jitmod"])
    osn = med(x["median_ns"] for x in o["osnoise"])
    spin = med(x["median_ns"] for x in o.get("spin", [])) \
        if o.get("spin") else None
    add_o = osn - none
    note = (f"median IPI round trip: idle-spinning CPU 1 {none:.0f} ns, "
            f"jitmod {jm:.0f} ns, osnoise {osn:.0f} ns")
    if spin is not None:
        note += f", bare rdtsc loop {spin:.0f} ns"
    if o.get("probes"):
        note += (", jitmod probes only "
                 f"{med(x['median_ns'] for x in o['probes']):.0f} ns")
    note += "; rounds ranged " + ", ".join(
        f"{k} {min(x['median_ns'] for x in o[k]):.0f}-"
        f"{max(x['median_ns'] for x in o[k]):.0f}"
        for k in ("none", "spin", "probes", "jitmod", "osnoise") if o.get(k))
    if add_o <= 0:
        note += "; osnoise added nothing measurable, so no ratio"
        add_o = None
    out = [fig("overhead_added_ipi", "cost added to an IPI on an unsampled "
               "CPU: jitmod / osnoise", jm - none, add_o, goal=1.5,
               note=note)]
    if spin is not None:
        out.append(fig("overhead_hooks_ipi", "the same, jitmod net of a "
                       "bare rdtsc loop: jitmod / osnoise", jm - spin, add_o,
                       goal=1.5, note="jitmod against a CPU 1 that reads "
                       "the TSC as often; osnoise against the idle spinner"))
    return out


# the rows of /proc/interrupts by which work on one CPU interrupts another:
# irq_work (a ring buffer waking its reader), reschedule, function call
# and TLB shootdown IPIs
IPI_ROWS = ("IWI", "RES", "CAL", "TLB")


def per_hour(n, secs):
    return n * 3600 / secs


def serve_figures(s):
    """jitread serve's CPU time per hour, and what it adds to the sampled
    CPU's interrupts per hour against jitmod alone at the same duty."""
    sv, al, d = s["serve"], s["alone"], s["serve"]["duty"]
    rows = set(sv["irqs"]) | set(al["irqs"])
    scale = sv["seconds"] / al["seconds"]
    over = {r: sv["irqs"].get(r, 0) - al["irqs"].get(r, 0) * scale
            for r in rows}
    extra = {r: per_hour(n, sv["seconds"]) for r, n in over.items()}
    # jitmod's own wake-up comes once a period: a phase may hold one more
    # period boundary than the other, so one count over is not serve's
    caused = sum(extra[r] for r in IPI_ROWS if over.get(r, 0) > 1)
    shown = ", ".join(f"{r} {extra[r]:+.0f}" for r in sorted(extra)
                      if round(extra[r])) or "none"
    cpu = fig("serve_cpu_per_hour", "jitread serve CPU s per hour, on "
              "housekeeping CPUs", per_hour(sv["cpu_s"], sv["seconds"]),
              None, unit="s/h",
              note=f"default duty: {d['runtime_us'] // 1000} ms of every "
                   f"{d['period_us'] // 1000} ms after a "
                   f"{d['warmup_us'] // 1000} ms warm-up; jitread and its "
                   f"server process over {sv['seconds']:.0f} s, scraped "
                   f"{sv['scrapes']} times, every {sv['scrape_s']} s")
    ipi = fig("serve_ipis_on_sampled_cpu", "IPIs and irq_work per hour "
              "that serve adds on the sampled CPU", caused, None, unit="/h",
              note=f"per hour, serve's phase less jitmod alone at the same "
                   f"duty, each row of /proc/interrupts that differs: "
                   f"{shown}; counted: {', '.join(IPI_ROWS)}, each "
                   "when over by more than one (a phase may hold one more "
                   "period's wake-up)")
    ipi.update(goal=0, met=caused == 0)
    once = "; ".join(f"{what} " + (", ".join(
        f"{r} {sv[key][r]}" for r in IPI_ROWS if sv[key].get(r)) or "none")
        for what, key in (("start", "start_irqs"),
                          ("first scrape", "first_scrape_irqs"),
                          ("stop", "stop_irqs")) if key in sv)
    if once:
        ipi["note"] += f"; once, not per hour: {once}"
    return [cpu, ipi]


def user_figures(u):
    jr = statistics.mean(u["jitread_ns_per_iter"])
    osl = statistics.mean(u["oslat_ns_per_iter"])
    return [fig("user_ns_per_iter_vs_oslat", "user sampler ns/iteration: "
                "jitread / oslat", jr, osl, goal=0.5, where=NATIVE)]


def reader_figures(r):
    jr = r["jitread_events"] / r["jitread_s"]
    tc = r["tracecmd_events"] / r["tracecmd_s"]
    return [fig("reader_events_per_s_vs_tracecmd", "replay events/s: "
                "jitread --replay / trace-cmd report", jr, tc, goal=1.0,
                lower_is_better=False, where=NATIVE, unit="events/s",
                note=f"{r['jitread_events']} and {r['tracecmd_events']} "
                     "events of the same guest run, start-up included")]


def figures(res):
    out = []
    g = res.get("guest", {})
    if "resolution" in g:
        out += resolution_figures(g["resolution"])
    if isinstance(g.get("loop"), list) and g["loop"]:
        out += loop_figures(g["loop"])
    if "agreement" in g:
        out += agreement_figures(g["agreement"])
    if "overhead" in g:
        out += overhead_figures(g["overhead"])
    if "skipped" not in res.get("icount", {"skipped": 1}):
        out += icount_figures(res["icount"])
    if "skipped" not in g.get("serve", {"skipped": 1}):
        out += serve_figures(g["serve"])
    if "skipped" not in res.get("user", {"skipped": 1}):
        out += user_figures(res["user"])
    if "skipped" not in res.get("reader", {"skipped": 1}):
        out += reader_figures(res["reader"])
    return out


def num(x, unit=""):
    if x is None:
        return "-"
    return f"{x:,.1f}{unit}" if abs(x) < 100 else f"{x:,.0f}{unit}"


def figure_table(figs):
    lines = [f"{'figure':<58} {'jitmod':>11} {'reference':>11} "
             f"{'ratio':>7} {'goal':>7} {'met':>4}  where"]
    for f in figs:
        goal = "-" if f["goal"] is None else f"{f['goal_kind']}{f['goal']}"
        met = {None: "-", True: "yes", False: "NO"}[f["met"]]
        r = f"{f['ratio']:.3f}" if f["ratio"] is not None else "-"
        lines.append(f"{f['what']:<58} {num(f['value']):>11} "
                     f"{num(f['reference']):>11} {r:>7} {goal:>7} "
                     f"{met:>4}  {f['where']}")
        if f["note"]:
            lines.append(f"    {f['note']}")
    return lines


def agreement_table(rows):
    agg = agreement_rows(rows)
    lines = ["# agreement (TCG: relative only): each injection, the event "
             "each tool filed it under, median net us",
             f"{'class':<8} {'D us':>5} {'jitmod seen':>11} {'us':>8} "
             f"{'osnoise seen':>12} {'us':>8}  note"]
    explain = set()
    for (cls, d), t in sorted(agg.items(), key=lambda kv: (kv[0][1],
                                                           kv[0][0])):
        a, b = t.get("jitmod"), t.get("osnoise")
        if not a or not b:
            continue
        bad = disagrees(d, a, b)
        if bad:
            explain.add(cls)
        lines.append(
            f"{cls:<8} {d:>5} {a['seen']:>6}/{a['of']:<4} "
            f"{num(ratio(a['median_ns'], 1000)):>8} "
            f"{b['seen']:>7}/{b['of']:<4} "
            f"{num(ratio(b['median_ns'], 1000)):>8}  "
            f"{'differs: see ' + cls if bad else ''}")
    for cls in sorted(explain):
        lines.append(f"  {cls}: {EXPLAIN[cls]}")
    return lines


def text(res):
    out = [f"# jitmod bench, {res['date']}", f"# host: {res['host']}"]
    g = res.get("guest", {})
    if "kernel" in g:
        out.append(f"# guest: {g['kernel']}, {g['cpus']} vCPUs under "
                   f"QEMU TCG, {g['rounds']} rounds of {g['seconds']} s")
    out += figure_table(res["figures"])
    if "agreement" in g:
        out += agreement_table(g["agreement"])
    p = res.get("pipeline", {})
    if "transit" in p:
        out.append("# pipeline: native")
        out += pipeline_lines(p)
    if "late_jitread" in g:
        out.append(late_line(g["late_jitread"]))
    for k, v in res.items():
        if isinstance(v, dict) and "skipped" in v:
            out.append(f"# {k}: not run: {v['skipped']}")
    return "\n".join(out)


def late_line(late):
    """One line for the jitread run made after every other guest part
    (it has failed with EIO and hung there; the JSON keeps the evidence)."""
    head = "# jitread after the other guest parts:"
    if "skipped" in late:
        return f"{head} not run: {late['skipped']}"
    if "hung" in late:
        return (f"{head} HUNG (state {late['hung'].get('state', '?')}); "
                "its threads' stacks and the kernel log are in the JSON")
    if late["rc"]:
        return f"{head} FAILED, exit {late['rc']}: {late['out']}"
    return f"{head} ok"


# ratios further apart than this are drawn on a log axis, where 1.0 and
# 1.2 stay apart beside 215
LOG_SPAN = 10


def ratio_figure(res):
    """The Figure: one bar per ratio, with its goal; lower is better
    unless marked.  A log axis when the ratios span LOG_SPAN or more."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = [f for f in res["figures"] if f["ratio"] is not None]
    fig_, ax = plt.subplots(figsize=(9, 0.6 * len(figs) + 1.5))
    y = range(len(figs))
    colours = ["tab:green" if f["met"] else "tab:red" if f["met"] is False
               else "tab:grey" for f in figs]
    ax.barh(list(y), [f["ratio"] for f in figs], color=colours)
    for i, f in enumerate(figs):
        if f["goal"]:
            ax.plot([f["goal"]] * 2, [i - 0.4, i + 0.4], "k--")
    ax.set_yticks(list(y))
    ax.set_yticklabels([f"{f['what']} ({f['where']})" for f in figs],
                       fontsize=7)
    ax.invert_yaxis()
    ratios = [f["ratio"] for f in figs if f["ratio"] > 0]
    if ratios and max(ratios) >= LOG_SPAN * min(ratios):
        ax.set_xscale("log")
        ax.set_xlabel("ratio, log scale (dashed: goal)")
    else:
        ax.set_xlabel("ratio (dashed: goal)")
    ax.set_title(f"jitmod bench {res['date']}")
    fig_.tight_layout()
    return fig_


def plot(res, path):
    """ratio_figure(res), written to path."""
    import matplotlib.pyplot as plt

    fig_ = ratio_figure(res)
    fig_.savefig(path, dpi=100)
    plt.close(fig_)


def fig_name(k):
    """min, p50, ..., max"""
    return k if k in ("min", "max") else f"p{k}"


def runs_lines(p):
    """Each pipeline run's accumulator p50 between its floors, and which
    run is judged; nothing for a single run."""
    runs = p.get("runs", [])
    if len(runs) < 2:
        return []
    return ["runs, accumulator p50 (floor p50 before, after): " + ", ".join(
        f"{r['accumulator_p50_ns']:.0f} ns ({r['floors'][0]:.0f}, "
        f"{r['floors'][1]:.0f})" for r in runs) +
        f"; judged: run {p['judged'] + 1}, whose floors agree best"]


def pipeline_lines(p):
    """The pipeline's figures as printed: the floor, each transit figure
    and its ratio to the floor's, and the accumulator's p50 taken apart."""
    f, c = p["floor_ns"], p["cost_ns"]
    out = [f"# pipeline on CPUs {p['cpus']}, wait {p['wait']}"
           f"{' (shared CPUs)' if p['shared'] else ''}, "
           f"{p['produced']} messages, {p['verdict'].split(':')[0]}",
           "hand-off floor (one way, judged run): " +
           ", ".join(f"{fig_name(k)} {f[k]:.0f}" for k in FIGS) +
           " ns; p50 of each floor run: " +
           ", ".join(f"{x:.0f}" for x in p["floor_p50_runs_ns"]) + " ns",
           *runs_lines(p),
           f"timestamp: rdtsc {c['rdtsc']:.1f} ns, lfence+rdtsc "
           f"{c['lfence_rdtsc']:.1f} ns; pause {c['pause']:.1f} ns"]
    for name, h in p["transit"].items():
        figs = [(k, h["min_ns"] if k == "min" else h["max_ns"]
                 if k == "max" else h[f"p{k}_ns"]) for k in FIGS]
        out.append(f"{name}: " + ", ".join(
            f"{fig_name(k)} {v} ns ({v / f[k]:.2f}x)" for k, v in figs
            if v is not None))
    if "slow" in p:
        out.append(f"messages over {p['slow_ns'] / 1000:g} us in transit, "
                   "by the step that held them (publication, poll, "
                   "stamp): " + "; ".join(
                       f"{who} {s['publish']}, {s['poll']}, {s['stamp']}"
                       for who, s in p["slow"].items()))
    acc = p["transit"].get("accumulator transit")
    if acc:
        ratio = acc["p50_ns"] / f["50"]
        rest = acc["p50_ns"] - f["50"] - c["rdtsc"] - c["lfence_rdtsc"]
        out.append(f"accumulator p50 / floor p50: {ratio:.2f} (goal <= "
                   f"{PIPE_GOAL}: {'met' if ratio <= PIPE_GOAL else 'NOT met'}"
                   f"); beyond the floor: producer stamp {c['rdtsc']:.0f}, "
                   f"consumer stamp {c['lfence_rdtsc']:.0f}, the rest (the "
                   f"poll, up to a pause, and the slot's reads) {rest:.0f} "
                   "ns")
    return out
