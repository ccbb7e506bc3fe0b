#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# While jitmod samples, flipping an unrelated event, and adding, enabling and
# removing a kprobe each finish within 10 s.  Their teardown waits for
# RCU(-tasks) grace periods, which a sampler
# that never leaves the CPU would block for ever.  Tried with the default
# period and with runtime = period (the shortest sleep the sampler takes).
. "$(dirname "$0")/lib.sh"
jit_require

LIMIT_S=10
inst=$TRACEFS/instances/jitmod-toggle-$$

# timed NAME CMD - run CMD; fail if it errors or takes LIMIT_S or more.
timed() {
	t0=$(date +%s%N)
	sh -c "$2" || jit_fail "$1 failed"
	ms=$((($(date +%s%N) - t0) / 1000000))
	jit_log "$1: $ms ms"
	[ $ms -lt $((LIMIT_S * 1000)) ] || jit_fail "$1 took $ms ms (limit ${LIMIT_S} s)"
}

for params in "" "period_us=500000 runtime_us=500000"; do
	jit_log "sampling cpus=1 $params"
	insmod "$JIT_KO" cpus=1 $params || jit_fail "insmod $params failed"
	sleep 1
	mkdir $inst || jit_fail "cannot make an instance"
	timed "event on/off" "echo 1 > $inst/events/sched/sched_wakeup/enable &&
		sleep 0.2 && echo 0 > $inst/events/sched/sched_wakeup/enable"
	timed "kprobe add/enable/disable/remove" "
		echo 'p:jitmod_selftest/openat do_sys_openat2' >> $TRACEFS/kprobe_events &&
		echo 1 > $inst/events/jitmod_selftest/openat/enable &&
		cat /proc/version > /dev/null && sleep 0.2 &&
		echo 0 > $inst/events/jitmod_selftest/openat/enable &&
		echo '-:jitmod_selftest/openat' >> $TRACEFS/kprobe_events"
	rmdir $inst
	ps -eo comm | grep -qx jitmod/1 || jit_fail "sampler died"
	rmmod jitmod || jit_fail "rmmod failed"
done
jit_check_dmesg
exit $KSFT_PASS
