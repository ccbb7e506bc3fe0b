# SPDX-License-Identifier: GPL-2.0
# apt-private.sh - sourced by kernels.sh and qemu.sh: an apt of their own.
#
#   apt_private DIR SUITE...
#
# Writes DIR/sources.list (Debian's main archive, each SUITE) and
# DIR/apt.conf, and exports APT_CONFIG: from then on apt-get and
# apt-cache use their own sources, lists and cache under DIR, and an
# empty apt.conf.d, so none of the system's apt hooks run (this image has
# one that deletes downloaded packages after an update, which would break
# an install running at the same time).  JITMOD_DEBIAN_MIRROR overrides
# the archive.

apt_private() {
	local dir=$1 s
	shift
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" \
		"$dir/parts" "$dir/debs"
	# apt reads a relative Dir:: path under /etc/apt
	dir=$(cd "$dir" && pwd)
	for s in "$@"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
			"${JITMOD_DEBIAN_MIRROR:-http://deb.debian.org/debian} $s main"
	done >"$dir/sources.list"
	cat >"$dir/apt.conf" <<EOF
Dir::Etc::Parts "$dir/parts";
Dir::Etc::Main "/dev/null";
Dir::Etc::SourceList "$dir/sources.list";
Dir::Etc::SourceParts "$dir/parts";
Dir::State::Lists "$dir/lists";
Dir::Cache "$dir/cache";
Acquire::Languages "none";
APT::Sandbox::User "root";
EOF
	export APT_CONFIG=$dir/apt.conf
}
