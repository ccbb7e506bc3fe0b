# SPDX-License-Identifier: GPL-2.0
"""python3 -m jitpy.plot REPORT.json -o DIR: see jitpy/plot/jitplot.py."""

import sys


def main():
    """The plots, or one line naming the package a missing matplotlib
    comes in."""
    try:
        from jitpy.plot import jitplot
    except ImportError as e:
        if e.name != "matplotlib" and not (e.name or "").startswith(
                "matplotlib."):
            raise
        print("jitpy.plot: matplotlib is missing: install python3-matplotlib "
              "(apt-get install python3-matplotlib)", file=sys.stderr)
        return 1
    return jitplot.main()


sys.exit(main())
