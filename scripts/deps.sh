#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what jitmod needs on Debian 12, idempotently, and say what changed.
#
#   deps.sh          the whole lab: kernels to boot, QEMU, Prometheus, MPI...
#   deps.sh build    only what builds and runs jitread, and jitmod for the
#                    running kernel (make build-deps)
#   deps.sh --list [build]   print the packages, one a line; install nothing
set -euo pipefail

# building and running jitread and jitmod on this machine
BUILD_PKGS=(
	build-essential pkg-config kmod
	libtracefs-dev libtraceevent-dev libbpf-dev zlib1g-dev libjansson-dev
	# the BPF object: clang, and bpftool for its skeleton
	bpftool clang llvm
	# pahole, for the module's BTF on kernels that want it
	dwarves
	# make install's man pages (rst2man)
	python3-docutils
)

LAB_PKGS=(
	# kernels to boot in QEMU, and their kbuild trees
	linux-image-amd64 linux-headers-amd64
	linux-image-rt-amd64 linux-headers-rt-amd64
	# the QEMU harness
	qemu-system-x86 busybox-static
	# scripts/pydeps.sh: a venv, and HdrHistogram's C extension
	python3-venv python3-dev
	# make fuzz: libFuzzer and the sanitizers' runtimes
	libclang-rt-14-dev
	# the real kselftest harness, taken from the kernel source
	linux-source-6.1 rsync xz-utils
	# references and helpers
	rt-tests rtla trace-cmd python3 python3-matplotlib python3-numpy
	# top_redraw.py's terminal; recipes.py's bpftrace (perf: linux-perf)
	tmux bpftrace linux-perf
	# style gates
	clang-format pycodestyle
	dkms
	# make deb: the packages, their lint and a root to install them in
	debhelper dh-dkms lintian mmdebstrap
	# jitread serve is tested against a real Prometheus and its promtool,
	# and its rules read back by the tests
	prometheus python3-yaml
	# jitread survey: its MPI plugin and mpirun
	openmpi-bin libopenmpi-dev
)

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
headers=
case "${1:-}" in
"")
	PKGS=("${BUILD_PKGS[@]}" "${LAB_PKGS[@]}") ;;
build)
	PKGS=("${BUILD_PKGS[@]}")
	# the running kernel's build tree, where Debian packages it
	headers=linux-headers-$(uname -r) ;;
*)
	echo "deps: unknown set '$1' (none for the whole lab, or build)" >&2
	exit 2 ;;
esac
if [ $list = 1 ]; then
	printf '%s\n' "${PKGS[@]}" ${headers:+"$headers"}
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: must run as root (apt-get install)" >&2
	exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

echo "deps: apt-get update"
apt-get update -qq
if [ -n "$headers" ]; then
	if apt-cache show "$headers" >/dev/null 2>&1; then
		st=$(dpkg-query -W -f='${Status}' "$headers" 2>/dev/null || true)
		[ "$st" = "install ok installed" ] || missing+=("$headers")
	else
		echo "deps: no package $headers for the running kernel;" \
			"build jitmod with make module KDIR=<its build tree>" >&2
	fi
fi
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages already installed; nothing to do"
	exit 0
fi
echo "deps: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${missing[@]}"
echo "deps: installed ${#missing[@]} package(s)"
