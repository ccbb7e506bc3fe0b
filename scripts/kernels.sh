#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernels.sh - fetch the build trees of the kernel matrix from Debian's
# archive into build/kernels, without touching the system's apt.
#
#   bash scripts/kernels.sh [BUILD_DIR]
#
# For each suite below and each flavour (generic amd64, rt-amd64), the
# version of the linux-headers-FLAVOUR meta package in that suite names
# the kernel; its headers tree, the tree's -common part, its kbuild tools
# and its image (vmlinuz and modules, for QEMU) are downloaded and
# unpacked with dpkg -x under build/kernels/root.
# Debian 12's own 6.1 comes from the system (make deps installs it).
#
# apt runs with a private configuration (scripts/apt-private.sh): its own
# sources, lists and cache, and none of the system's apt hooks.
#
# The runner boots build/kernels/boot/vmlinuz-REL with the modules of
# build/kernels/lib/modules/REL (links into the unpacked packages).
#
# Idempotent: a package already unpacked is not fetched again.  A kernel
# that cannot be fetched is recorded as skipped, with the reason, in
# build/kernels/status.tsv (suite, flavour, release, ok|skip, reason),
# which the tests read; the script itself then still exits 0.

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$TOP/build}
K=$BUILD/kernels
A=$K/apt
ROOT=$K/root
SUITES=(bullseye bookworm-backports trixie-backports)
FLAVOURS=(amd64 rt-amd64)
# a C library new enough for the kbuild tools of trixie's kernels
LIBC_SUITE=trixie

# shellcheck source=scripts/apt-private.sh
. "$TOP/scripts/apt-private.sh"
apt_private "$A" "${SUITES[@]}" "$LIBC_SUITE"
mkdir -p "$ROOT/.unpacked"

status=$K/status.tsv.new
: >"$status"

# skip SUITE FLAVOUR REL REASON
skip() {
	printf '%s\t%s\t%s\tskip\t%s\n' "$1" "$2" "$3" "$4" >>"$status"
	echo "kernels: SKIP $1 $2: $4" >&2
}

# deps PKG=VER - the package names PKG=VER depends on, one per line
deps() {
	apt-cache show "$1" 2>/dev/null |
		sed -n 's/^Depends: //p' | head -1 | tr ',' '\n' |
		sed 's/^ *//; s/[ (|].*//'
}

# fetch PKG... - download and unpack what is not unpacked yet
fetch() {
	local p deb
	for p in "$@"; do
		[ -e "$ROOT/.unpacked/$p" ] && continue
		rm -f "$A/debs/${p}_"*.deb
		(cd "$A/debs" && apt-get -q=2 download "$p") || return 1
		deb=$(ls "$A/debs/${p}_"*.deb 2>/dev/null | head -1)
		[ -n "$deb" ] && dpkg -x "$deb" "$ROOT" || return 1
		rm -f "$deb"
		touch "$ROOT/.unpacked/$p"
	done
}

# glibc_minor FILE - the newest GLIBC_2.N an ELF file needs: N, or 0
glibc_minor() {
	objdump -T "$1" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' |
		cut -d. -f2 | sort -n | tail -1
}

# wrap_glibc DIR - run each program in DIR that needs a newer C library
# than this system's through that library's loader: the program moves to
# NAME.glibc and NAME becomes a script that starts it with the newer
# library first on the search path.  Debian 13's kbuild tools (modpost,
# objtool, resolve_btfids) need glibc 2.38; Debian 12 has 2.36.
wrap_glibc() {
	local sys f need lib=$K/libc
	sys=$(getconf GNU_LIBC_VERSION | cut -d. -f2)
	while read -r f; do
		[ -e "$f.glibc" ] && continue
		need=$(glibc_minor "$f")
		[ "${need:-0}" -gt "$sys" ] || continue
		if [ ! -e "$lib/.unpacked" ]; then
			mkdir -p "$lib/debs"
			(cd "$lib/debs" && apt-get -q=2 download \
				"libc6/$LIBC_SUITE") || return 1
			dpkg -x "$lib"/debs/libc6_*.deb "$lib" || return 1
			rm -rf "$lib/debs"
			touch "$lib/.unpacked"
		fi
		mv "$f" "$f.glibc"
		cat >"$f" <<EOS
#!/bin/sh
exec $lib/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \\
	--library-path $lib/usr/lib/x86_64-linux-gnu "\$0.glibc" "\$@"
EOS
		chmod 755 "$f"
	done < <(find "$1" -type f -perm -u+x ! -name '*.glibc')
}

if ! apt-get -q=2 update >"$K/update.log" 2>&1; then
	echo "kernels: apt-get update failed; see $K/update.log" >&2
fi

# suite_kernels SUITE - fetch each flavour's kernel of SUITE, one after
# the other (they share packages), its status lines into $status.SUITE
suite_kernels() {
	local s=$1 f ver hdr rel pkgs d img tree vml mods
	# skip() and the lines below write to this suite's file
	local status=$status.$s
	: >"$status"
	for f in "${FLAVOURS[@]}"; do
		ver=$(apt-cache madison "linux-headers-$f" 2>/dev/null |
			awk -F'|' -v s=" $s/" 'index($3, s) { gsub(/ /, "", $2); print $2; exit }')
		if [ -z "$ver" ]; then
			skip "$s" "$f" - "no linux-headers-$f in $s (archive unreachable?)"
			continue
		fi
		hdr=$(deps "linux-headers-$f=$ver" | grep -m1 '^linux-headers-')
		rel=${hdr#linux-headers-}
		if [ -z "$hdr" ]; then
			skip "$s" "$f" - "linux-headers-$f $ver names no headers package"
			continue
		fi
		pkgs=("$hdr")
		while read -r d; do
			case $d in
			linux-headers-*-common* | linux-kbuild-*) pkgs+=("$d") ;;
			esac
		done < <(deps "$hdr=$(apt-cache madison "$hdr" | awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }')")
		if [ ${#pkgs[@]} -lt 3 ]; then
			skip "$s" "$f" "$rel" "$hdr lacks a -common or kbuild dependency"
			continue
		fi
		# the image: one -unsigned package (5.10, 6.12), or a meta
		# package whose binary and modules are packages of their own
		img=linux-image-$rel-unsigned
		if apt-cache show "$img" >/dev/null 2>&1; then
			pkgs+=("$img")
		else
			while read -r d; do
				case $d in
				linux-binary-* | linux-modules-*) pkgs+=("$d") ;;
				esac
			done < <(deps "linux-image-$rel")
		fi
		if ! fetch "${pkgs[@]}"; then
			skip "$s" "$f" "$rel" "cannot download or unpack ${pkgs[*]}"
			continue
		fi
		tree=$ROOT/usr/src/$hdr
		# the tree names its -common part (and 7.x itself, as
		# KBUILD_OUTPUT) by absolute path
		sed -i -E "s#(^include |^KBUILD_OUTPUT=)/usr/src/#\1$ROOT/usr/src/#" \
			"$tree/Makefile"
		if ! wrap_glibc "$(readlink -f "$tree/scripts/..")"; then
			skip "$s" "$f" "$rel" "cannot fetch a C library for its kbuild tools"
			continue
		fi
		# one layout for the QEMU runner, whichever the packages
		# used (trixie's kernels live in /usr/lib/modules/REL)
		vml=$ROOT/boot/vmlinuz-$rel
		mods=$ROOT/lib/modules/$rel
		[ -f "$vml" ] || vml=$ROOT/usr/lib/modules/$rel/vmlinuz
		[ -d "$mods/kernel" ] || mods=$ROOT/usr/lib/modules/$rel
		if [ ! -f "$vml" ] || [ ! -d "$mods/kernel" ]; then
			skip "$s" "$f" "$rel" "no image or modules in ${pkgs[*]}"
			continue
		fi
		mkdir -p "$K/boot" "$K/lib/modules"
		ln -sfn "$vml" "$K/boot/vmlinuz-$rel"
		ln -sfn "$mods" "$K/lib/modules/$rel"
		if [ ! -f "$tree/Module.symvers" ] ||
			! grep -q "^include $ROOT/" "$tree/Makefile"; then
			skip "$s" "$f" "$rel" "unexpected layout of $tree"
			continue
		fi
		printf '%s\t%s\t%s\tok\t%s\n' "$s" "$f" "$rel" "$tree" >>"$status"
		echo "kernels: $rel ($s)"
	done
}

# the suites side by side (unpacking is CPU-bound, and no two suites
# share a package), their lines in SUITES' order
for s in "${SUITES[@]}"; do
	suite_kernels "$s" &
done
wait
for s in "${SUITES[@]}"; do
	cat "$status.$s" >>"$status"
	rm -f "$status.$s"
done
mv "$status" "$K/status.tsv"
