# SPDX-License-Identifier: GPL-2.0
"""Plot a jitread JSON report (jitread --json): kernel vs user.

    python3 -m jitpy.plot REPORT.json [-o DIR] [--format png,svg]

writes, for whatever the report holds:
  percentiles.*  gap percentile distribution, log x = 1/(1-p), log y,
                 one line per side (the HdrHistogram / perf-workshop chart)
  noise.*        noise time per class and per top source, per side
  timeline.*     every kept gap per CPU over time, coloured by class; a
                 CPU's first 20000 gaps are kept, and a line and its
                 title say where a longer run was cut
  pipeline.*     the four pipeline latency distributions
  classes.*, cpus.*, heatmap.*
                 per CPU: each class's percentiles, the sides' lines
                 apart; a stacked bar of time by class and by source;
                 gap time over time, a row per CPU (jitpy/plot/percpu.py)

A jitread survey's JSON (survey_version) gives heatmap.* and ranks.*
instead (jitpy/plot/survey.py).

    python3 -m jitpy.plot A.json B.json ... [--labels A,B,...] [--cpu N]

overlays N runs, one line each, as the tuning steps of a jitter hunt are
shown side by side: overlay.* (the gap distribution of each run's primary
side, all CPUs or CPU N) and, when every run has a runtime, the rate of
gaps above each value per second of runtime.

Each plot_* function returns its Figure; the tests read the plotted data
back from the Figure's artists and compare it with the JSON.
"""

import argparse
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from jitpy import abi as jitabi  # noqa: E402
from jitpy.formats import report as jrjson  # noqa: E402
from jitpy.formats import survey as jrsurvey  # noqa: E402

CLASSES = jitabi.CLASSES
COLOURS = dict(zip(CLASSES, ("tab:red", "tab:orange", "tab:purple",
                             "tab:blue", "tab:brown", "tab:pink",
                             "tab:gray")))
TOP_SOURCES = 8
US = 1000.0  # the plots' time unit, in ns: every axis of a duration is us


def us(values):
    """ns values in us, as the axes show them."""
    return [v / US for v in values]


def percentile_points(hist):
    """(x, y) of a histogram's distribution: x = 1/(1-p), y = ns.

    One point per slot, at the slot's highest value and the fraction of
    values at or below it.  The last slot (p = 1) is placed at x = count,
    where HdrHistogram's plots end.
    """
    total = hist["count"]
    xs, ys, cum = [], [], 0
    for value, count in hist.get("slots", []):
        cum += count
        p = cum / total
        xs.append(1.0 / (1.0 - p) if cum < total else float(total))
        ys.append(value)
    return xs, ys


def log_axes(ax):
    ticks = [1, 10, 100, 1000, 10000, 100000, 1000000]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ticks)
    ax.set_xticklabels(["0%", "90%", "99%", "99.9%", "99.99%", "99.999%",
                        "99.9999%"])
    ax.set_xlabel("percentile")
    ax.grid(True, which="both", alpha=0.3)


def plot_percentiles(data):
    """Gap distribution per side, all CPUs merged."""
    fig, ax = plt.subplots(figsize=(9, 5))
    for name, side in jrjson.sides(data).items():
        hist = side["all_cpus"]["gap"]
        if hist["count"]:
            xs, ys = percentile_points(hist)
            ax.plot(xs, us(ys), marker=".", label=f"{name} "
                    f"({hist['count']} gaps)")
    log_axes(ax)
    ax.set_ylabel("gap (us)")
    ax.set_title("gap percentile distribution, all CPUs")
    ax.legend()
    return fig


def class_totals(side):
    """{class: total ns} over every CPU of one side."""
    out = dict.fromkeys(CLASSES, 0)
    for cpu in side["cpus"]:
        for s in cpu["sources"]:
            out[s["class"]] += s["total_ns"]
    return out


def top_sources(side, n=TOP_SOURCES):
    """[(source, total ns)], largest first, summed over CPUs."""
    tot = {}
    for cpu in side["cpus"]:
        for s in cpu["sources"]:
            tot[s["source"]] = tot.get(s["source"], 0) + s["total_ns"]
    return sorted(tot.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def plot_noise(data):
    """Noise time per class (left) and per top source (right), per side."""
    sides = jrjson.sides(data)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    width = 0.8 / len(sides)
    for i, (name, side) in enumerate(sides.items()):
        tot = class_totals(side)
        xs = [k + i * width for k in range(len(CLASSES))]
        left.bar(xs, [tot[c] / 1e3 for c in CLASSES], width, label=name)
    left.set_xticks([k + width * (len(sides) - 1) / 2
                     for k in range(len(CLASSES))])
    left.set_xticklabels(CLASSES, rotation=30)
    left.set_ylabel("noise (us)")
    left.set_title("noise time per class")
    left.legend()
    labels, vals, cols = [], [], []
    for i, (name, side) in enumerate(sides.items()):
        for src, total in top_sources(side):
            labels.append(f"{name}: {src}")
            vals.append(total / 1e3)
            cols.append(f"C{i}")
    right.barh(range(len(vals)), vals, color=cols)
    right.set_yticks(range(len(vals)))
    right.set_yticklabels(labels, fontsize=7)
    right.invert_yaxis()
    right.set_xlabel("noise (us)")
    right.set_title("top sources")
    fig.tight_layout()
    return fig


def timeline_cut(cpu):
    """Where a CPU's timeline was cut: (the last kept gap's time in s,
    the gaps left out), or None when it holds every gap.  jitread keeps
    the first JR_TL_MAX gaps of each CPU."""
    tl = cpu.get("timeline", {})
    gaps, dropped = tl.get("gaps", []), tl.get("dropped", 0)
    if not dropped:
        return None
    return (gaps[-1][0] / 1e9 if gaps else 0.0), dropped


def plot_timeline(data):
    """Every kept gap: x = time in the run, y = duration, one row per CPU;
    a CPU whose timeline was cut has a line where, and says so."""
    rows = [(name, cpu) for name, side in jrjson.sides(data).items()
            for cpu in side["cpus"]]
    fig, axes = plt.subplots(max(len(rows), 1), 1, sharex=True,
                             figsize=(10, 1.8 * max(len(rows), 1)),
                             squeeze=False)
    for ax, (name, cpu) in zip(axes[:, 0], rows):
        gaps = cpu.get("timeline", {}).get("gaps", [])
        for cls in CLASSES:
            pts = [(t / 1e9, d / US) for t, d, c in gaps if c == cls]
            if pts:
                ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=4,
                           color=COLOURS[cls], label=cls)
        ax.set_yscale("log")
        ax.set_ylabel(f"{name}\nCPU {cpu['cpu']} (us)", fontsize=8)
        cut = timeline_cut(cpu)
        if cut:
            ax.axvline(cut[0], color="black", linestyle=":", linewidth=1)
            ax.set_title(f"the first {len(gaps)} gaps, to {cut[0]:.3f} s; "
                         f"{cut[1]} later gaps not drawn", fontsize=7,
                         loc="left")
        if gaps:
            ax.legend(fontsize=6, loc="upper right", markerscale=2)
    axes[-1, 0].set_xlabel("time in run (s)")
    fig.suptitle("gaps over time")
    return fig


def plot_pipeline(data):
    """The four pipeline histograms as percentile distributions."""
    fig, ax = plt.subplots(figsize=(9, 5))
    for name, hist in data["pipeline"]["histograms"].items():
        if hist["count"]:
            xs, ys = percentile_points(hist)
            ax.plot(xs, us(ys), marker=".", label=name)
    log_axes(ax)
    ax.set_ylabel("latency (us)")
    p = data["pipeline"]
    ax.set_title(f"pipeline, wait {p['wait']}"
                 f"{', shared CPUs' if p['shared'] else ''}")
    ax.legend()
    return fig


def exceedance_points(hist, runtime_ns):
    """(x, y) of gaps per second above each slot's value."""
    xs, ys, above = [], [], hist["count"]
    for value, count in hist.get("slots", []):
        above -= count
        if above:
            xs.append(value)
            ys.append(above * 1e9 / runtime_ns)
    return xs, ys


def run_view(data, cpu=None):
    """(gap histogram, runtime ns) of a report's primary side: all CPUs,
    or one (None when the report does not have it)."""
    if cpu is None:
        runtime = sum(c["summary"]["runtime_ns"] for c in data["cpus"])
        return data["all_cpus"]["gap"], runtime
    for c in data["cpus"]:
        if c["cpu"] == cpu:
            return c["classes"]["gap"], c["summary"]["runtime_ns"]
    return None, 0


def plot_overlay(runs, cpu=None):
    """runs: [(label, report)]; one line per run in each panel."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5))
    where = "all CPUs" if cpu is None else f"CPU {cpu}"
    for label, data in runs:
        hist, runtime = run_view(data, cpu)
        if not hist or not hist["count"]:
            continue
        xs, ys = percentile_points(hist)
        left.plot(xs, us(ys), marker=".", label=f"{label} "
                  f"({hist['count']} gaps)")
        if runtime:
            xs, ys = exceedance_points(hist, runtime)
            right.step(us(xs), ys, where="post", label=label)
    log_axes(left)
    left.set_ylabel("gap (us)")
    left.set_title(f"gap percentile distribution, {where}")
    left.legend()
    right.set_xlabel("gap (us)")
    right.set_ylabel("gaps above, per s of runtime")
    right.set_title(f"how often each gap length is exceeded, {where}")
    right.grid(True, which="both", alpha=0.3)
    if any(len(ln.get_xdata()) for ln in right.lines):
        right.set_xscale("log")
        right.set_yscale("log")
        right.legend()
    else:
        right.text(0.5, 0.5, "no run has gaps of two lengths",
                   ha="center", transform=right.transAxes)
    fig.tight_layout()
    return fig


def plots_for(data):
    """[(name, function)] that this report has data for."""
    from jitpy.plot import percpu
    out = [("percentiles", plot_percentiles), ("noise", plot_noise),
           ("timeline", plot_timeline)] + percpu.plots_for()
    if "pipeline" in data:
        out.append(("pipeline", plot_pipeline))
    return out


def save(fig, out, name, formats):
    for f in formats:
        path = os.path.join(out, f"{name}.{f}")
        fig.savefig(path, dpi=100)
        print(path)
    plt.close(fig)


def is_survey_file(path):
    try:
        with open(path) as f:
            return jrsurvey.is_survey(json.load(f))
    except (OSError, ValueError):
        return False


def plot_survey(path, out, formats):
    from jitpy.plot import survey
    try:
        data = jrsurvey.load(path)
    except jrsurvey.SurveyError as e:
        print(f"jitplot: {e}", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    for name, fn in survey.plots_for(data):
        save(fn(data), out, name, formats)
    return 0


def main():
    """Parse arguments, write every plot, print the paths."""
    ap = argparse.ArgumentParser(prog="python3 -m jitpy.plot",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("reports", nargs="+", metavar="report")
    ap.add_argument("-o", "--out", default="out")
    ap.add_argument("--format", default="png,svg")
    ap.add_argument("--labels", help="overlay: a label per report, "
                    "comma-separated (default: the file names)")
    ap.add_argument("--cpu", type=int, help="overlay: this CPU alone")
    args = ap.parse_args()
    formats = [f for f in args.format.split(",") if f]
    for f in formats:
        if f not in ("png", "svg"):
            ap.error(f"unknown format '{f}' (png, svg)")
    labels = args.labels.split(",") if args.labels else [
        os.path.basename(r) for r in args.reports]
    if len(labels) != len(args.reports):
        ap.error(f"{len(labels)} labels for {len(args.reports)} reports")
    if len(args.reports) == 1 and is_survey_file(args.reports[0]):
        return plot_survey(args.reports[0], args.out, formats)
    try:
        runs = [(lab, jrjson.load(r)) for lab, r in zip(labels,
                                                        args.reports)]
    except jrjson.ReportError as e:
        print(f"jitplot: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    if len(runs) > 1:
        save(plot_overlay(runs, args.cpu), args.out, "overlay", formats)
        return 0
    for name, fn in plots_for(runs[0][1]):
        save(fn(runs[0][1]), args.out, name, formats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
