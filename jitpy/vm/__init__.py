# SPDX-License-Identifier: GPL-2.0
"""Boot an installed kernel in QEMU with this checkout shared in."""
