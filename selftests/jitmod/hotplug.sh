#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Offlining a sampled CPU stops its sampler; onlining it starts it again.
. "$(dirname "$0")/lib.sh"
jit_require

cpu=1
online=/sys/devices/system/cpu/cpu$cpu/online
[ -w $online ] || jit_skip "cpu$cpu cannot be hotplugged here"
# Some kernels refuse to offline the only CPU of an isolated set (6.12
# with isolcpus=1 and 2 vCPUs: EIO), with or without jitmod.
if ! echo 0 > $online 2>/dev/null; then
	jit_skip "cpu$cpu cannot be offlined on this kernel and boot line, even without jitmod"
fi
echo 1 > $online || jit_fail "cannot online cpu$cpu again"
insmod "$JIT_KO" cpus=$cpu period_us=200000 runtime_us=100000 ||
	jit_fail "insmod failed"
jit_wait_for "ps -eo comm | grep -qx jitmod/$cpu" 10 || jit_fail "no jitmod/$cpu"

echo 0 > $online || jit_fail "cannot offline cpu$cpu"
jit_wait_for "! ps -eo comm | grep -qx jitmod/$cpu" 10 ||
	{ echo 1 > $online; jit_fail "jitmod/$cpu survived offlining"; }
jit_log "cpu$cpu offline: sampler gone"

inst=$TRACEFS/instances/jitmod-hotplug-$$
mkdir $inst && echo 1 > $inst/events/jitmod/summary/enable
echo 1 > $online || jit_fail "cannot online cpu$cpu"
jit_wait_for "ps -eo comm | grep -qx jitmod/$cpu" 10 ||
	{ rmdir $inst; jit_fail "jitmod/$cpu not restarted on online"; }
jit_wait_for "grep -q '\[00$cpu\].*summary:' $inst/trace" 10 ||
	{ rmdir $inst; jit_fail "no summary from cpu$cpu after onlining"; }
jit_log "cpu$cpu online: sampler back and reporting"
echo 0 > $inst/events/jitmod/summary/enable
rmdir $inst
rmmod jitmod || jit_fail "rmmod failed"
jit_check_dmesg
exit $KSFT_PASS
