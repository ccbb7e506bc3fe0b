# SPDX-License-Identifier: GPL-2.0
"""python3 -m jitpy.vm: see jitpy/vm/runner.py."""

import sys

from jitpy.vm import runner

sys.exit(runner.main())
