# SPDX-License-Identifier: GPL-2.0
"""python3 -m jitpy.plot REPORT.json -o DIR: see jitpy/plot/jitplot.py."""

import sys

from jitpy.plot import jitplot

sys.exit(jitplot.main())
