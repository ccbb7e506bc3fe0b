#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modules-all.sh - build jitmod, the test injector and the bench module
# against every kernel build tree here, with -Werror:
#   - the installed ones, /lib/modules/*/build (Debian 12's 6.1 kernels);
#   - the kernel matrix fetched by scripts/kernels.sh (build/kernels).
#
#   bash scripts/modules-all.sh [BUILD_DIR] [RELEASE_GLOB]
#
# Each kernel's modules land in BUILD_DIR/modules/RELEASE/{module,
# jitinject,jitbench}; RELEASE_GLOB (default *) picks the kernels.  The
# sources are staged there, so a build never writes into the repo.  A tree
# made with tools this machine lacks (5.10's gcc-10, 7.x's gcc-14 and
# pahole 1.30) is built with the system's (see tree_args).  Exit 1 on the
# first module that fails to build.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$TOP/build}
PICK=${2:-*}

trees=()
for kd in /lib/modules/*/build; do
	[ -f "$kd/Makefile" ] && trees+=("$(basename "$(dirname "$kd")")=$kd")
done
if [ -f "$BUILD/kernels/status.tsv" ]; then
	while IFS=$'\t' read -r _ _ rel st tree; do
		[ "$st" = ok ] && trees+=("$rel=$tree")
	done <"$BUILD/kernels/status.tsv"
fi
if [ ${#trees[@]} -eq 0 ]; then
	echo "modules-all: no kernel build trees; run 'make deps'" >&2
	exit 1
fi

# tree_args TREE - make arguments for tools the tree was made with but
# this machine lacks:
#   - a compiler it names: the system gcc, without the options of a newer
#     gcc that the tree's .config says its own had (-fmin-function-
#     alignment, 7.x);
#   - a newer pahole than ours (its options differ): no BTF for the
#     modules, which only BPF programs that trace them would use.
tree_args() {
	local want have need
	want=$(sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' "$1/.kernelvariables" \
		2>/dev/null)
	if [ -n "$want" ] && ! command -v "$want" >/dev/null &&
		! command -v "x86_64-linux-gnu-$want" >/dev/null; then
		echo "CC=gcc"
		if grep -q '^CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=y' "$1/.config" &&
			! gcc -fmin-function-alignment=16 -E -x c /dev/null \
				>/dev/null 2>&1; then
			echo "CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT="
		fi
	fi
	need=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$1/.config")
	have=$(pahole --version 2>/dev/null | tr -dc '0-9')
	if [ "${need:-0}" -gt "${have:-0}" ]; then
		echo "CONFIG_DEBUG_INFO_BTF_MODULES="
	fi
}

for t in "${trees[@]}"; do
	rel=${t%%=*}
	kd=${t#*=}
	# shellcheck disable=SC2254
	case $rel in $PICK) ;; *) continue ;; esac
	out=$BUILD/modules/$rel
	mkdir -p "$out"
	rsync -a --exclude='*.mod.c' --include='*/' --include='*.[ch]' \
		--include='*.sh' --include=Kbuild --include=Makefile \
		--exclude='*' "$TOP/module" "$TOP/include" "$out/"
	for m in jitinject:selftests/jitmod/jitinject jitbench:bench/jitbench; do
		rsync -a --include='*.[ch]' --include=Kbuild --include=Makefile \
			--exclude='*' "$TOP/${m#*:}/" "$out/${m%%:*}/"
	done
	echo "  MODULE  $rel"
	for m in module jitinject jitbench; do
		# shellcheck disable=SC2046
		if ! make -s -C "$out/$m" KDIR="$kd" $(tree_args "$kd") \
			>"$out/$m.log" 2>&1; then
			grep -v 'Skipping BTF' "$out/$m.log" >&2 || true
			echo "modules-all: $m failed for $rel" >&2
			exit 1
		fi
		grep -v 'Skipping BTF\|^make\[\|^arch/x86/Makefile:.*X32\|pahole version differs\|built with: \|You are using: ' \
			"$out/$m.log" >&2 || true
	done
done
