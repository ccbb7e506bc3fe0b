#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tree-args.sh TREE - print, one per line, the make arguments that build
# an out-of-tree module against kernel build tree TREE on this machine,
# for tools the tree was made with but this machine lacks:
#   - a compiler the tree names (5.10's gcc-10, 7.x's gcc-14): the system
#     gcc, without the options of a newer gcc that the tree's .config says
#     its own had (-fmin-function-alignment, 7.x);
#   - a newer pahole than ours (its options differ): no BTF for the
#     modules, which only BPF programs that trace them would use.
# Prints nothing for a tree made with this machine's tools.  Used by
# modules-all.sh and, through MAKEFLAGS, by the DKMS test.

set -euo pipefail

tree=${1:?usage: tree-args.sh TREE}
want=$(sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' "$tree/.kernelvariables" \
	2>/dev/null || true)
if [ -n "$want" ] && ! command -v "$want" >/dev/null &&
	! command -v "x86_64-linux-gnu-$want" >/dev/null; then
	echo "CC=gcc"
	if grep -q '^CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=y' "$tree/.config" &&
		! gcc -fmin-function-alignment=16 -E -x c /dev/null \
			>/dev/null 2>&1; then
		echo "CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT="
	fi
fi
need=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$tree/.config")
have=$(pahole --version 2>/dev/null | tr -dc '0-9' || true)
if [ "${need:-0}" -gt "${have:-0}" ]; then
	echo "CONFIG_DEBUG_INFO_BTF_MODULES="
fi
