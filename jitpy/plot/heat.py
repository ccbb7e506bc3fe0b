# SPDX-License-Identifier: GPL-2.0
"""Heat maps of noise over time: rows of timelines ([ts_ns, dur_ns, ...]
pairs) summed into time bins, drawn on a log colour scale."""

from matplotlib.colors import LogNorm

from jitpy.plot import jitplot

BINS = 100


def bin_rows(timelines, bins=BINS):
    """(t0_ns, bin_ns, rows): rows[i][b] is timelines[i]'s gap time in
    bin b, over the span every timeline covers together."""
    if not timelines:
        return 0, 1, []
    t0 = min(tl[0][0] for tl in timelines)
    t1 = max(tl[-1][0] for tl in timelines)
    width = max(1, (t1 - t0) // bins + 1)
    rows = []
    for tl in timelines:
        row = [0] * bins
        for g in tl:
            row[min(bins - 1, (g[0] - t0) // width)] += g[1]
        rows.append(row)
    return t0, width, rows


def draw(fig, ax, labels, width, rows):
    """rows (ns per bin of width ns) as an image, a row per label, in us."""
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
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels)
