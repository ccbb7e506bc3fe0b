#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the QEMU guest for `make demo`: load the real jitmod on
# CPUs 1-3, then compare its kthreads' noise floor with a user thread's
# on the same CPUs (jitread compare: a kernel phase, then a user phase,
# each SECONDS long), which prints both reports, the floors side by side
# and why they differ.
# Usage: demo-guest.sh [SECONDS [THRESHOLD_NS]]
set -e
secs=${1:-10}
thr=${2:-5000}
top=$(cd "$(dirname "$0")/.." && pwd)
ko=$top/build/modules/$(uname -r)/module/jitmod.ko
jr=$top/user/jitread

[ -f "$ko" ] || { echo "demo: $ko missing (make modules-all)" >&2; exit 1; }
[ -x "$jr" ] || { echo "demo: $jr missing (make user)" >&2; exit 1; }
insmod "$ko" cpus=1-3 threshold_ns="$thr"
echo "demo: jitread compare on CPUs 1-3, ${secs}s a side, threshold" \
	"${thr} ns ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 |
	sed 's/^ //'))"
"$jr" compare -c 1-3 --rounds 1 --phase "${secs}s" -T "${thr}ns" \
	--entries 20 --bucket-size 10us
rmmod jitmod
# The selftests' pattern for a kernel log in trouble.
JIT_BAD_DMESG=$(sed -n "s/^JIT_BAD_DMESG='\(.*\)'\$/\1/p" \
	"$top/selftests/jitmod/lib.sh")
[ -n "$JIT_BAD_DMESG" ] || { echo "demo: no JIT_BAD_DMESG in lib.sh" >&2; exit 1; }
if dmesg | grep -E "$JIT_BAD_DMESG"; then
	echo "demo: the kernel log has warnings (above)" >&2
	exit 1
fi
