# SPDX-License-Identifier: GPL-2.0
"""The plots of a jitread survey (survey_version 1):

  heatmap.*      noise per rank over time: each rank's first gaps, on rank
                 0's clock, summed into time bins (ns of gap per bin)
  ranks.*        each rank's gap percentile distribution, the worst ranks
                 labelled

Each function returns its Figure; the tests read the data back from it.
"""

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402

from jitpy.plot import jitplot  # noqa: E402

BINS = 100


def heat(data, bins=BINS):
    """(ranks, t0_ns, bin_ns, rows): rows[i][b] is rank ranks[i]'s gap time
    in bin b, over the span every listed rank's timeline covers."""
    ranks = [r for r in data["ranks"] if r["ok"] and r.get("timeline")]
    if not ranks:
        return [], 0, 1, []
    t0 = min(r["timeline"][0][0] for r in ranks)
    t1 = max(r["timeline"][-1][0] for r in ranks)
    width = max(1, (t1 - t0) // bins + 1)
    rows = []
    for r in ranks:
        row = [0] * bins
        for ts, dur in r["timeline"]:
            row[min(bins - 1, (ts - t0) // width)] += dur
        rows.append(row)
    return [r["rank"] for r in ranks], t0, width, rows


def plot_heatmap(data):
    ranks, _, width, rows = heat(data)
    fig, ax = plt.subplots(figsize=(10, 1 + 0.3 * max(4, len(ranks))))
    if rows:
        cells = [jitplot.us(row) for row in rows]
        top = max(max(row) for row in cells)
        # an empty bin is drawn at half a ns, below any gap's time
        empty = 0.5 / jitplot.US
        im = ax.imshow([[v or empty for v in row] for row in cells],
                       aspect="auto", interpolation="nearest",
                       norm=LogNorm(vmin=empty, vmax=max(2 * empty, top)),
                       extent=(0, len(rows[0]) * width / 1e9,
                               len(rows) - 0.5, -0.5))
        fig.colorbar(im, ax=ax, label="gap time per bin (us)")
        ax.set_yticks(range(len(ranks)))
        ax.set_yticklabels([f"rank {r}" for r in ranks])
    ax.set_xlabel("time on rank 0's clock (s)")
    ax.set_title("noise per rank over time")
    fig.tight_layout()
    return fig


def plot_ranks(data):
    fig, ax = plt.subplots(figsize=(8, 5))
    worst = set(data.get("worst_ranks", [])[:3])
    for r in data["ranks"]:
        if not r["ok"] or not r["gap"]["count"]:
            continue
        xs, ys = jitplot.percentile_points(r["gap"])
        ax.plot(xs, jitplot.us(ys), label=f"rank {r['rank']}" +
                (" (worst)" if r["rank"] in worst else ""),
                linewidth=2 if r["rank"] in worst else 1)
    jitplot.log_axes(ax)
    ax.set_ylabel("gap (us)")
    ax.set_title("gap percentiles per rank")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def plots_for(data):
    return [("heatmap", plot_heatmap), ("ranks", plot_ranks)]
