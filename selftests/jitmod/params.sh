#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every bad parameter fails insmod with EINVAL, a dmesg line naming the
# parameter, and leaves nothing loaded.
. "$(dirname "$0")/lib.sh"
jit_require

ncpu=$(nproc --all)
n=0
check_bad() {	# PARAM=VALUE PARAM-NAME-IN-DMESG
	n=$((n + 1))
	echo "jitmod-selftest: case $n" > /dev/kmsg
	if out=$(insmod "$JIT_KO" "$1" 2>&1); then
		jit_fail "insmod $1 succeeded"
	fi
	echo "$out" | grep -qE "Invalid (argument|parameters)" ||
		jit_fail "insmod $1: want EINVAL, got: $out"
	grep -q '^jitmod ' /proc/modules && jit_fail "insmod $1 left jitmod loaded"
	dmesg | sed -n "/jitmod-selftest: case $n\$/,\$p" | grep -q "jitmod: $2: " ||
		jit_fail "insmod $1: no dmesg line naming $2"
	jit_log "ok: $1 refused"
}

check_bad "cpus=$ncpu" cpus
check_bad "cpus=999999" cpus
check_bad "cpus=1-x" cpus
check_bad "cpus=" cpus
check_bad "cpus=3-1" cpus
check_bad "threshold_ns=0" threshold_ns
check_bad "tsc_khz=1" tsc_khz
check_bad "threshold_ns=1000000001" threshold_ns
check_bad "threshold_ns=99999999999999999999999" threshold_ns
check_bad "threshold_ns=12abc" threshold_ns
check_bad "period_us=0" period_us
check_bad "runtime_us=2000000" runtime_us
check_bad "prio=100" prio
check_bad "enable=maybe" enable
check_bad "warmup_us=60000001" warmup_us
check_bad "irqs_off=maybe" irqs_off
check_bad "irqs_off=1 period_us=2000000 runtime_us=1000001" runtime_us

# A good load still works afterwards, and a bad run-time write is refused.
insmod "$JIT_KO" cpus=1 || jit_fail "good insmod failed after bad ones"
if echo 5000000 > /sys/module/jitmod/parameters/runtime_us 2>/dev/null; then
	jit_fail "runtime_us > period_us accepted at run time"
fi
echo 2000 > /sys/module/jitmod/parameters/threshold_ns ||
	jit_fail "valid run-time threshold_ns write refused"
[ "$(cat /sys/module/jitmod/parameters/threshold_ns)" = 2000 ] ||
	jit_fail "threshold_ns did not change"
ps -eo comm | grep -qx "jitmod/1" || jit_fail "sampler not restarted"
rmmod jitmod || jit_fail "rmmod failed"

# A sampler in a long warm-up still leaves at once on rmmod.
insmod "$JIT_KO" cpus=1 period_us=60000000 runtime_us=100000 \
	warmup_us=50000000 || jit_fail "insmod with a warm-up failed"
sleep 2
t0=$(date +%s)
rmmod jitmod || jit_fail "rmmod in the warm-up failed"
[ $(($(date +%s) - t0)) -le 10 ] || jit_fail "rmmod waited for the warm-up"
jit_log "ok: rmmod during a 50 s warm-up"

# The interrupts-off mode samples, with its window bounded at run time
# too: a longer runtime is refused while it is on, and it cannot be
# turned on under one.
insmod "$JIT_KO" cpus=1 irqs_off=1 period_us=200000 runtime_us=100000 ||
	jit_fail "insmod irqs_off=1 failed"
jit_wait_for "pgrep -x jitmod/1" 10 || jit_fail "no sampler with irqs_off=1"
sleep 1
P=/sys/module/jitmod/parameters
[ "$(cat $P/irqs_off)" = 1 ] || jit_fail "irqs_off reads $(cat $P/irqs_off)"
echo 3000000 > $P/period_us || jit_fail "period_us write refused"
if echo 1000001 > $P/runtime_us 2>/dev/null; then
	jit_fail "runtime_us above 1 s accepted with irqs_off=1"
fi
echo 0 > $P/irqs_off || jit_fail "irqs_off=0 refused"
echo 2000000 > $P/runtime_us || jit_fail "runtime_us 2 s refused"
if echo 1 > $P/irqs_off 2>/dev/null; then
	jit_fail "irqs_off=1 accepted with a 2 s runtime"
fi
rmmod jitmod || jit_fail "rmmod with irqs_off failed"
jit_log "ok: irqs_off samples and bounds its window"

# SCHED_FIFO at any priority needs sched_setattr_nocheck() exported (not
# on 5.10); without it only 1 and 50 are possible, and others are refused.
if grep -q ' __ksymtab_sched_setattr_nocheck$' /proc/kallsyms; then
	prio=10
else
	check_bad "prio=10" prio
	prio=50
fi
insmod "$JIT_KO" cpus=1 prio=$prio || jit_fail "insmod prio=$prio failed"
jit_wait_for "pgrep -x jitmod/1" 10 || jit_fail "no sampler"
got=$(chrt -p "$(pgrep -x jitmod/1)")
echo "$got" | grep -q "SCHED_FIFO" && echo "$got" | grep -q "priority: $prio\$" ||
	jit_fail "prio=$prio gave: $got"
jit_log "ok: prio=$prio is SCHED_FIFO $prio"
rmmod jitmod || jit_fail "rmmod failed"
jit_check_dmesg
exit $KSFT_PASS
