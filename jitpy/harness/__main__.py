# SPDX-License-Identifier: GPL-2.0
"""python3 -m jitpy.harness: see jitpy/harness/check.py."""

import sys

from jitpy.harness import check

sys.exit(check.main())
