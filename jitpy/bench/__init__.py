# SPDX-License-Identifier: GPL-2.0
"""make bench*: python3 -m jitpy.bench.suite | reader | user | guest."""
