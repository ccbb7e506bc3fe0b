#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what jitmod needs on Debian 12, idempotently, and say what changed.
set -euo pipefail

PKGS=(
	# kernels to boot in QEMU, and their kbuild trees
	linux-image-amd64 linux-headers-amd64
	linux-image-rt-amd64 linux-headers-rt-amd64
	# the QEMU harness
	qemu-system-x86 busybox-static kmod
	# module and reader builds; pahole for the BTF of 6.12 and later
	build-essential dwarves pkg-config libtracefs-dev libtraceevent-dev
	libbpf-dev bpftool clang llvm zlib1g-dev libjansson-dev
	# scripts/pydeps.sh: a venv, and HdrHistogram's C extension
	python3-venv python3-dev
	# make fuzz: libFuzzer and the sanitizers' runtimes
	libclang-rt-14-dev
	# the real kselftest harness, taken from the kernel source
	linux-source-6.1 rsync xz-utils
	# references and helpers
	rt-tests rtla trace-cmd python3 python3-matplotlib python3-numpy
	# jitread.1 from Documentation/jitread.rst; style gates
	python3-docutils clang-format pycodestyle
	dkms
	# make deb: the packages, their lint and a root to install them in
	debhelper dh-dkms lintian mmdebstrap
	# jitread serve is tested against a real Prometheus and its promtool
	prometheus
	# jitread survey: its MPI plugin and mpirun
	openmpi-bin libopenmpi-dev
)

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
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages already installed; nothing to do"
	exit 0
fi
echo "deps: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${missing[@]}"
echo "deps: installed ${#missing[@]} package(s)"
