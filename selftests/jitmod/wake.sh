#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A task woken on a CPU that jitmod samples runs promptly, under every
# preemption model: cyclictest's thread, SCHED_FIFO and then SCHED_OTHER,
# wakes every 10 ms on the sampled CPU while jitmod's sampler (SCHED_OTHER,
# runtime = period = 2 s) never sleeps.  Under voluntary preemption the
# sampler must offer the CPU (cond_resched); under full or lazy preemption
# (7.x generic has no voluntary mode, so cond_resched() does nothing) the
# kernel must preempt it.
#
# What is measured is the time each wake-up spent runnable on that CPU
# before it ran: sched_wakeup to the sched_switch that runs it, in a
# trace instance of its own.  A wake-up that waited for the sampler waits
# up to its 2 s runtime, and so do all the others; one that the host
# delayed (the guest's vCPU waiting its turn for a host CPU) is late in
# cyclictest's own figures, which are logged, yet that pause falls between
# wake-up and switch only by chance.  So the test fails when more than
# LATE_MAX wake-ups waited LATE_US or more.
. "$(dirname "$0")/lib.sh"
jit_require

LATE_US=100000
LATE_MAX=2
inst=$TRACEFS/instances/jitmod-wake-$$
# the instance goes on any exit, a failure's too
trap 'rmdir "$inst" 2>/dev/null' EXIT
jit_last_cpu
command -v cyclictest >/dev/null || jit_skip "cyclictest (rt-tests) missing"
[ -d /sys/kernel/debug/sched ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
mode=$(cat /sys/kernel/debug/sched/preempt 2>/dev/null || echo "not shown")
jit_log "preemption: $mode"

# waits CPU - from the instance's trace, each cyclictest wake-up on CPU
# and its wait before it ran: print "wake-ups late slowest_us".
waits() {
	awk -v cpu="$1" -v late="$LATE_US" '
	function stamp(   i) {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				return substr($i, 1, length($i) - 1) * 1e6
		return -1
	}
	function field(name,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	/ sched_wakeup: / {
		if (field("target_cpu") + 0 == cpu)
			woke[field("pid")] = stamp()
		next
	}
	/ sched_switch: / {
		pid = field("next_pid")
		if (!(pid in woke))
			next
		us = stamp() - woke[pid]
		delete woke[pid]
		n++
		if (us >= late)
			nlate++
		if (us > max)
			max = us
	}
	END { printf "%d %d %d\n", n, nlate, max }' "$inst/trace"
}

mkdir "$inst" || jit_fail "cannot make a trace instance"
echo mono > "$inst/trace_clock" || jit_fail "no mono trace clock"
echo 'comm == "cyclictest"' > "$inst/events/sched/sched_wakeup/filter"
echo 'next_comm == "cyclictest"' > "$inst/events/sched/sched_switch/filter"
insmod "$JIT_KO" cpus=$cpu period_us=2000000 runtime_us=2000000 ||
	jit_fail "insmod cpus=$cpu failed"
sleep 0.5
for policy in fifo other; do
	prio=0
	[ $policy = fifo ] && prio=50
	echo > "$inst/trace"
	echo 1 > "$inst/events/sched/sched_wakeup/enable"
	echo 1 > "$inst/events/sched/sched_switch/enable"
	out=$(timeout 60 cyclictest -q -m -t 1 -a $cpu --policy=$policy \
		-p $prio -i 10000 -l 300 2>&1) ||
		jit_fail "cyclictest ($policy) failed or took over 60 s: $out"
	echo 0 > "$inst/events/sched/sched_wakeup/enable"
	echo 0 > "$inst/events/sched/sched_switch/enable"
	max=$(echo "$out" | sed -n 's/.* Max: *\([0-9]*\).*/\1/p' | head -1)
	act=$(echo "$out" | sed -n 's/.* C: *\([0-9]*\).*/\1/p' | head -1)
	[ -n "$max" ] || jit_fail "no cyclictest summary: $out"
	[ "$act" = 300 ] || jit_fail "$policy: $act of 300 wake-ups"
	set -- $(waits $cpu)
	jit_log "$policy: $act wake-ups on CPU $cpu, the slowest $max us;" \
		"$1 waited to run, $2 of them ${LATE_US} us or more," \
		"the longest $3 us"
	[ "$1" -ge 300 ] || jit_fail "$policy: saw $1 wake-ups run, not 300"
	[ "$2" -le $LATE_MAX ] ||
		jit_fail "$policy: $2 wake-ups waited ${LATE_US} us or more to run (at most $LATE_MAX)"
done
ps -eo comm | grep -qx "jitmod/$cpu" || jit_fail "sampler jitmod/$cpu died"
rmmod jitmod || jit_fail "rmmod failed"
jit_check_dmesg
exit $KSFT_PASS
