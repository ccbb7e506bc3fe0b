#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# jitmod loads, samples on the CPUs it was given, emits events, unloads.
. "$(dirname "$0")/lib.sh"
jit_require

jit_last_cpu
inst=$TRACEFS/instances/jitmod-selftest-$$

insmod "$JIT_KO" cpus=$cpu period_us=200000 runtime_us=100000 ||
	jit_fail "insmod cpus=$cpu failed"
[ -d /sys/module/jitmod ] || jit_fail "/sys/module/jitmod missing"
[ -d $JIT_EVENTS ] || jit_fail "$JIT_EVENTS missing while loaded"
for ev in gap irq_noise softirq_noise nmi_noise thread_noise summary stop; do
	[ -d $JIT_EVENTS/$ev ] || jit_fail "event jitmod:$ev missing"
done
[ "$(cat /sys/module/jitmod/parameters/cpus)" = "$cpu" ] ||
	jit_fail "parameters/cpus reads '$(cat /sys/module/jitmod/parameters/cpus)', want $cpu"
perm=$(stat -c %a /sys/module/jitmod/parameters/threshold_ns)
[ "$perm" = 600 ] || jit_fail "parameters are mode $perm, want 600"
ps -eo comm | grep -qx "jitmod/$cpu" || jit_fail "no kthread jitmod/$cpu"
others=$(ps -eo comm | grep '^jitmod/' | grep -vx "jitmod/$cpu")
[ -z "$others" ] || jit_fail "unexpected samplers: $others"

# A summary must arrive from the sampled CPU, in our own instance.
mkdir $inst || jit_fail "cannot create a tracefs instance"
echo 1 > $inst/events/jitmod/summary/enable
# runtime_ns is measured: 100 ms, plus at most a late last loop.
jit_wait_for "grep -q 'summary: runtime_ns=1[0-4][0-9]\{7\} ' $inst/trace" 20 ||
	{ rmdir $inst; jit_fail "no jitmod:summary within 20 s"; }
line=$(grep -m1 'summary:' $inst/trace)
jit_log "$line"
echo "$line" | grep -q "\[00$cpu\]" || { rmdir $inst; jit_fail "summary not from CPU $cpu"; }
echo 0 > $inst/events/jitmod/summary/enable
rmdir $inst

rmmod jitmod || jit_fail "rmmod failed"
[ ! -d $JIT_EVENTS ] || jit_fail "$JIT_EVENTS still present after rmmod"
ps -eo comm | grep -q '^jitmod/' && jit_fail "sampler kthread survived rmmod"
jit_check_dmesg
jit_dmesg_since_mark | grep -q "jitmod: sampling CPUs $cpu," ||
	jit_fail "no 'sampling CPUs $cpu' line in dmesg"
exit $KSFT_PASS
