#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the QEMU guest for `make demo`: load the real jitmod on
# CPUs 1-3, record its events in a tracefs instance of our own, and print
# the per-CPU report.  Usage: demo-guest.sh [SECONDS [THRESHOLD_NS]]
set -e
secs=${1:-10}
thr=${2:-5000}
top=$(cd "$(dirname "$0")/.." && pwd)
ko=$top/build/modules/$(uname -r)/module/jitmod.ko
inst=/sys/kernel/tracing/instances/jitmod-demo

[ -f "$ko" ] || { echo "demo: $ko missing (make modules-all)" >&2; exit 1; }
# Load disabled, so the instance sees the first period; then start it.
insmod "$ko" cpus=1-3 threshold_ns="$thr" enable=0
mkdir -p $inst
echo 16384 > $inst/buffer_size_kb
echo 1 > $inst/events/jitmod/enable
echo 1 > /sys/module/jitmod/parameters/enable
echo "demo: sampling CPUs 1-3 for ${secs}s, threshold ${thr} ns" \
	"($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
sleep "$secs"
echo 0 > $inst/events/jitmod/enable
# Format the trace before rmmod: unloading drops the module's events.
python3 "$top/scripts/trace_report.py" --kernel "$(uname -r)" \
	< $inst/trace
rmdir $inst
rmmod jitmod
# The selftests' pattern for a kernel log in trouble.
JIT_BAD_DMESG=$(sed -n "s/^JIT_BAD_DMESG='\(.*\)'\$/\1/p" \
	"$top/selftests/jitmod/lib.sh")
[ -n "$JIT_BAD_DMESG" ] || { echo "demo: no JIT_BAD_DMESG in lib.sh" >&2; exit 1; }
if dmesg | grep -E "$JIT_BAD_DMESG"; then
	echo "demo: the kernel log has warnings (above)" >&2
	exit 1
fi
