#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modules-all.sh - build jitmod, the test injector and the bench module
# against every kernel build tree here, with -Werror (KCFLAGS: the
# modules' own Kbuild never asks for it, so DKMS builds go without):
#   - the installed ones, /lib/modules/*/build (Debian 12's 6.1 kernels);
#   - the kernel matrix fetched by scripts/kernels.sh (build/kernels).
#
#   bash scripts/modules-all.sh [--only installed|matrix] [BUILD_DIR]
#                               [RELEASE_GLOB]
#
# Each kernel's modules land in BUILD_DIR/modules/RELEASE/{module,
# jitinject,jitbench}; RELEASE_GLOB (default *) picks the kernels.  The
# sources are staged there, so a build never writes into the repo.  A tree
# made with tools this machine lacks (5.10's gcc-10, 7.x's gcc-14 and
# pahole 1.30) is built with the system's (see tree-args.sh).  Exit 1 on the
# first module that fails to build.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
ONLY=all
if [ "${1:-}" = --only ]; then
	ONLY=${2:-}
	shift 2 || true
fi
case $ONLY in
all | installed | matrix) ;;
*)
	echo "modules-all: --only takes installed or matrix, not '$ONLY'" >&2
	exit 2
	;;
esac
BUILD=${1:-$TOP/build}
PICK=${2:-*}

trees=()
if [ "$ONLY" != matrix ]; then
	for kd in /lib/modules/*/build; do
		[ -f "$kd/Makefile" ] &&
			trees+=("$(basename "$(dirname "$kd")")=$kd")
	done
fi
if [ "$ONLY" != installed ] && [ -f "$BUILD/kernels/status.tsv" ]; then
	while IFS=$'\t' read -r _ _ rel st tree; do
		[ "$st" = ok ] && trees+=("$rel=$tree")
	done <"$BUILD/kernels/status.tsv"
fi
# the matrix may be empty (no make kernels): make check says so per kernel
[ "$ONLY" = matrix ] && [ ${#trees[@]} -eq 0 ] && exit 0
if [ ${#trees[@]} -eq 0 ]; then
	echo "modules-all: no kernel build trees; run 'make deps'" >&2
	exit 1
fi

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
	cp "$TOP/VERSION" "$out/VERSION"
	for m in jitinject:selftests/jitmod/jitinject jitbench:bench/jitbench; do
		rsync -a --include='*.[ch]' --include=Kbuild --include=Makefile \
			--exclude='*' "$TOP/${m#*:}/" "$out/${m%%:*}/"
	done
	echo "  MODULE  $rel"
	for m in module jitinject jitbench; do
		# shellcheck disable=SC2046
		if ! make -s -j"$(nproc)" -C "$out/$m" KDIR="$kd" \
			KCFLAGS=-Werror \
			$(bash "$TOP/scripts/tree-args.sh" "$kd") \
			>"$out/$m.log" 2>&1; then
			grep -v 'Skipping BTF' "$out/$m.log" >&2 || true
			echo "modules-all: $m failed for $rel" >&2
			exit 1
		fi
		grep -v 'Skipping BTF\|^make\[\|^arch/x86/Makefile:.*X32\|pahole version differs\|built with: \|You are using: ' \
			"$out/$m.log" >&2 || true
	done
done
