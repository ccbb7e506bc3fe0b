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

from jitpy.plot import heat as jitheat, jitplot  # noqa: E402


def heat(data, bins=jitheat.BINS):
    """(ranks, t0_ns, bin_ns, rows): rows[i][b] is rank ranks[i]'s gap time
    in bin b, over the span every listed rank's timeline covers."""
    ranks = [r for r in data["ranks"] if r["ok"] and r.get("timeline")]
    t0, width, rows = jitheat.bin_rows([r["timeline"] for r in ranks], bins)
    return [r["rank"] for r in ranks], t0, width, rows


def plot_heatmap(data):
    ranks, _, width, rows = heat(data)
    fig, ax = plt.subplots(figsize=(10, 1 + 0.3 * max(4, len(ranks))))
    if rows:
        jitheat.draw(fig, ax, [f"rank {r}" for r in ranks], width, rows)
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
