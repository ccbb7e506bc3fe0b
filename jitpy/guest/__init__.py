# SPDX-License-Identifier: GPL-2.0
"""Helpers that run inside a booted kernel, for selftests and benchmarks."""
