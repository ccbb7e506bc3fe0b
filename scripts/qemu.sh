#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu.sh - fetch QEMU 10 from Debian's bookworm-backports into
# build/qemu, without touching the system's apt or its QEMU.
#
#   bash scripts/qemu.sh [BUILD_DIR]
#
# The runner boots guests on deterministic time (python3 -m jitpy.vm
# --clock icount) with this QEMU: Debian 12's own 7.2 hangs under -icount
# bringing up a second vCPU, 10.0 does not.  The packages are unpacked
# with dpkg -x under build/qemu/root, with the SeaBIOS it was built for
# (Debian 12's 1.16.2 leaves a q35 guest silent) and the display modules
# that Debian 12's QEMU also has: QEMU searches the system's module
# directory after its own and refuses, loudly, 7.2's builds of those.
# The runner starts build/qemu/qemu-system-x86_64, a wrapper that names
# the module directory and the firmware.
#
# apt runs with a private configuration (scripts/apt-private.sh): its own
# sources, lists and cache, and none of the system's apt hooks.  The libraries QEMU 10 links are Debian 12's, which
# scripts/deps.sh installs with Debian 12's own QEMU.
#
# Idempotent.  When the archive cannot be reached it says so and exits 0:
# the tests that need deterministic time then skip, naming this script.

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/apt-private.sh
. "$TOP/scripts/apt-private.sh"
BUILD=${1:-$TOP/build}
Q=$BUILD/qemu
A=$Q/apt
ROOT=$Q/root
SUITE=bookworm-backports
PKGS=(qemu-system-x86 qemu-system-common qemu-system-data seabios
	qemu-system-modules-opengl qemu-system-modules-spice)
BIN=$ROOT/usr/bin/qemu-system-x86_64

fail() {
	echo "qemu: $*; the deterministic-time tests will skip" >&2
	exit 0
}

# fetch - download the packages from SUITE and unpack them into ROOT
fetch() {
	local p deb
	apt_private "$A" bookworm "$SUITE"
	mkdir -p "$ROOT"
	apt-get -q=2 update >"$Q/update.log" 2>&1 ||
		fail "apt-get update failed (see $Q/update.log)"
	rm -f "$A"/debs/*.deb
	for p in "${PKGS[@]}"; do
		(cd "$A/debs" && apt-get -q=2 download "$p/$SUITE") ||
			fail "cannot download $p from $SUITE"
	done
	for deb in "$A"/debs/*.deb; do
		dpkg -x "$deb" "$ROOT" || fail "cannot unpack $deb"
	done
	rm -f "$A"/debs/*.deb
	echo "${PKGS[*]}" >"$Q/fetched"
}

# fetched again when the list of packages changed
[ -x "$BIN" ] && [ "$(cat "$Q/fetched" 2>/dev/null)" = "${PKGS[*]}" ] ||
	fetch

# The wrapper the runner starts, written afresh each time: QEMU's own
# modules (not the system 7.2's, which it refuses), its firmware and the
# SeaBIOS it was built for.
cat >"$Q/qemu-system-x86_64" <<EOF
#!/bin/sh
QEMU_MODULE_DIR='$ROOT/usr/lib/x86_64-linux-gnu/qemu'
export QEMU_MODULE_DIR
exec '$BIN' -L '$ROOT/usr/share/qemu' -L '$ROOT/usr/share/seabios' "\$@"
EOF
chmod 755 "$Q/qemu-system-x86_64"

missing=$(ldd "$BIN" 2>/dev/null | awk '/not found/ { print $1 }' |
	tr '\n' ' ')
[ -z "$missing" ] || fail "QEMU 10 needs libraries that are not installed" \
	"($missing); run scripts/deps.sh first, which installs Debian 12's QEMU"
"$Q/qemu-system-x86_64" --version >/dev/null 2>&1 ||
	fail "$BIN does not run"
echo "qemu: $("$Q/qemu-system-x86_64" --version | head -1) in $Q"
