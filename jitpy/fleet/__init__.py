# SPDX-License-Identifier: GPL-2.0
"""jitread beyond one machine: a real Prometheus against jitread serve."""
