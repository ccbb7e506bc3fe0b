#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# While jitmod samples, its events' enable file is flipped on and off 50
# times, 10 ms apart.  Each flip adds and removes a probe on each of the
# trace_jitmod_*() tracepoints that the sampling loop calls while the
# sampled CPU runs it (jitmod keeps two probes of its own on them, so the
# loop's static keys and calls stay as they are, and no text is patched:
# testing.rst, "The flip test").  Events must be recorded from the
# sampled CPU during the flips; afterwards the sampler still runs, its
# summaries arrive again and report no measurement anomaly, rmmod works
# and the kernel log is clean.
#
# The sampler runs 5 of every 10 ms, so each flip lands in or near a
# sampling window.
. "$(dirname "$0")/lib.sh"
jit_require

FLIPS=50
jit_last_cpu
stats=$TRACEFS/per_cpu/cpu$cpu/stats

# ftrace's comm recording registers its own probes on sched_switch and
# sched_wakeup when the first event is enabled and removes them with the
# last: each flip would patch the scheduler's text, which the sampled CPU
# runs at every period's end (testing.rst, "The flip test").  It is off
# while the events flip, so that a flip patches no text at all.
rec=$(cat $TRACEFS/options/record-cmd)
trap 'echo $rec > $TRACEFS/options/record-cmd' EXIT
echo 0 > $TRACEFS/options/record-cmd

insmod "$JIT_KO" cpus=$cpu period_us=10000 runtime_us=5000 ||
	jit_fail "insmod cpus=$cpu failed"
echo 0 > $TRACEFS/tracing_on
echo > $TRACEFS/trace
echo 1 > $TRACEFS/tracing_on

slowest=0
i=0
while [ $i -lt $FLIPS ]; do
	t0=$(date +%s%N)
	echo 1 > $JIT_EVENTS/enable || jit_fail "flip $i: enable failed"
	sleep 0.01
	echo 0 > $JIT_EVENTS/enable || jit_fail "flip $i: disable failed"
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $ms -gt $slowest ] && slowest=$ms
	sleep 0.01
	i=$((i + 1))
done
during=$(sed -n 's/^entries: //p' $stats)
jit_log "$FLIPS flips, the slowest $slowest ms; CPU $cpu recorded $during events"
ps -eo comm | grep -qx "jitmod/$cpu" || jit_fail "sampler jitmod/$cpu died"
[ "${during:-0}" -gt 0 ] ||
	jit_fail "no event recorded from CPU $cpu while the events flipped"

# Sampling goes on: summaries arrive again, from the sampled CPU alone.
echo > $TRACEFS/trace
echo 1 > $JIT_EVENTS/summary/enable
jit_wait_for "[ \$(grep -c 'summary: ' $TRACEFS/trace) -ge 5 ]" 30 ||
	jit_fail "fewer than 5 jitmod:summary within 30 s after the flips"
echo 0 > $JIT_EVENTS/summary/enable
lines=$(grep 'summary: ' $TRACEFS/trace)
jit_log "$(echo "$lines" | tail -1)"
echo "$lines" | grep -vq "\[00$cpu\]" && jit_fail "a summary not from CPU $cpu"
echo "$lines" | grep -vq ' anomalies=0 ' &&
	jit_fail "anomalies after the flips: $(echo "$lines" | grep -v ' anomalies=0 ' | head -1)"

rmmod jitmod || jit_fail "rmmod failed"
jit_check_dmesg
exit $KSFT_PASS
