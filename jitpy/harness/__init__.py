# SPDX-License-Identifier: GPL-2.0
"""make check: the host unit tests, then the selftests in QEMU."""
