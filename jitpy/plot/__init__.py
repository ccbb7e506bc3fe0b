# SPDX-License-Identifier: GPL-2.0
"""PNG plots of jitread's JSON reports."""
