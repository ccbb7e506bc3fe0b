# SPDX-License-Identifier: GPL-2.0
"""make check: the selftests in QEMU, and beside them the host tests."""
