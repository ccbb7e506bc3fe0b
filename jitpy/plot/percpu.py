# SPDX-License-Identifier: GPL-2.0
"""The per-CPU plots of a jitread report, kernel against user where the
report holds both sides (jitread compare):

  classes.*   each class's gap percentiles, one axis per CPU: a solid
              line for the first side, dashed for the second
  cpus.*      a stacked bar per CPU and side, of noise time per second
              of runtime: by class (left) and by the top sources of the
              report (right, the rest as "other")
  heatmap.*   gap time per CPU over time, a row per side and CPU, from
              the kept timeline (the first gaps of each CPU)

Each function returns its Figure; the tests read the data back from it.
"""

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from jitpy.formats import report as jrjson  # noqa: E402
from jitpy.plot import heat as jitheat, jitplot  # noqa: E402

TOP = 5  # sources in the stacked bars; the rest are "other"
STYLES = ("-", "--")


def rows(data):
    """[(side, cpu)]: every CPU of every side, side by side per CPU."""
    out = [(name, cpu) for name, side in jrjson.sides(data).items()
           for cpu in side["cpus"]]
    return sorted(out, key=lambda r: r[1]["cpu"])


def per_s(ns, cpu):
    """ns as us per second of the CPU's runtime (0 without one)."""
    run = cpu["summary"]["runtime_ns"]
    return ns * 1e9 / run / jitplot.US if run else 0.0


def plot_classes(data):
    """Each class's percentiles per CPU, the sides' lines apart."""
    sides = list(jrjson.sides(data))
    cpus = sorted({c["cpu"] for _, c in rows(data)})
    fig, axes = plt.subplots(1, max(len(cpus), 1), squeeze=False,
                             figsize=(6 * max(len(cpus), 1), 5))
    for ax, n in zip(axes[0], cpus):
        for name, cpu in rows(data):
            if cpu["cpu"] != n:
                continue
            for cls, hist in cpu["classes"].items():
                if not hist["count"]:
                    continue
                xs, ys = jitplot.percentile_points(hist)
                ax.plot(xs, jitplot.us(ys), STYLES[sides.index(name) % 2],
                        color=jitplot.COLOURS.get(cls, "black"),
                        marker=".", label=f"{name} {cls} ({hist['count']})")
        jitplot.log_axes(ax)
        ax.set_ylabel("gap or event (us)")
        ax.set_title(f"CPU {n}: percentiles per class")
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def top_sources(data, n=TOP):
    """The n sources with the most time per second on any CPU and side."""
    best = {}
    for _, cpu in rows(data):
        for s in cpu["sources"]:
            v = per_s(s["total_ns"], cpu)
            best[s["source"]] = max(best.get(s["source"], 0), v)
    return [k for k, _ in sorted(best.items(),
                                 key=lambda kv: (-kv[1], kv[0]))[:n]]


def bar_values(data):
    """(labels, {class: [us/s per bar]}, {source or "other": [...]})."""
    labels, by_cls, by_src = [], {}, {}
    tops = top_sources(data)
    bars = rows(data)
    for k in jitplot.CLASSES:
        by_cls[k] = []
    for k in tops + ["other"]:
        by_src[k] = []
    for name, cpu in bars:
        labels.append(f"CPU {cpu['cpu']}\n{name}")
        cls = dict.fromkeys(jitplot.CLASSES, 0.0)
        src = dict.fromkeys(tops + ["other"], 0.0)
        for s in cpu["sources"]:
            v = per_s(s["total_ns"], cpu)
            cls[s["class"]] += v
            src[s["source"] if s["source"] in tops else "other"] += v
        for k, v in cls.items():
            by_cls[k].append(v)
        for k, v in src.items():
            by_src[k].append(v)
    return labels, by_cls, by_src


def plot_cpus(data):
    """A stacked bar per CPU and side: by class, and by top source."""
    labels, by_cls, by_src = bar_values(data)
    fig, (left, right) = plt.subplots(1, 2, figsize=(
        max(10, 1.6 * len(labels) + 4), 5))
    for ax, stack, title in ((left, by_cls, "by class"),
                             (right, by_src, "by source")):
        bottom = [0.0] * len(labels)
        for i, (name, vals) in enumerate(stack.items()):
            if not any(vals):
                continue
            colour = jitplot.COLOURS.get(name, f"C{i % 10}")
            ax.bar(range(len(labels)), vals, bottom=bottom, label=name,
                   color=colour)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("noise (us per s of runtime)")
        ax.set_title(f"where each CPU's time went, {title}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def heat(data, bins=jitheat.BINS):
    """(labels, bin_ns, rows): a row per side and CPU with a timeline."""
    kept = [(name, cpu) for name, cpu in rows(data)
            if cpu.get("timeline", {}).get("gaps")]
    _, width, out = jitheat.bin_rows(
        [cpu["timeline"]["gaps"] for _, cpu in kept], bins)
    return [f"CPU {c['cpu']} {name}" for name, c in kept], width, out


def plot_heatmap(data):
    labels, width, cells = heat(data)
    fig, ax = plt.subplots(figsize=(10, 1 + 0.3 * max(4, len(labels))))
    if cells:
        jitheat.draw(fig, ax, labels, width, cells)
    ax.set_xlabel("time in the side's run (s)")
    ax.set_title(f"noise per CPU over time, {data.get('hostname', '')}")
    fig.tight_layout()
    return fig


def plots_for():
    return [("classes", plot_classes), ("cpus", plot_cpus),
            ("heatmap", plot_heatmap)]
