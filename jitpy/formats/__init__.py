# SPDX-License-Identifier: GPL-2.0
"""jitread's files, read and written independently of its C code."""
