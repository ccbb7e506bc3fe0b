#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# trace-cmd decodes every jitmod event: names for the enums, no parse errors.
. "$(dirname "$0")/lib.sh"
jit_require
command -v trace-cmd >/dev/null || jit_skip "trace-cmd not installed (make deps)"
[ -f "$JIT_INJ_KO" ] || jit_fail "$JIT_INJ_KO missing (make modules-all)"

dat=$(mktemp /tmp/jitmod-decode.XXXXXX)
txt=$dat.txt
# The default period: with runtime = period, trace-cmd's recorder for CPU 1
# hardly runs on the rt kernel and its exit takes minutes.
insmod "$JIT_KO" cpus=1 threshold_ns=10000 || jit_fail "insmod jitmod failed"
insmod "$JIT_INJ_KO" cpu=1 || jit_fail "insmod jitinject failed"
# trace-cmd switches jitmod's events on and off, which patches the
# sampling loop's text.  Under multi-threaded TCG a vCPU that runs the loop
# meanwhile can keep a stale translation and oops on an int3 that memory
# no longer holds (testing.rst, "The flip test"), so the sampler is paused
# while trace-cmd starts and ends; flip.sh tests flips while it samples.
echo 0 > /sys/module/jitmod/parameters/enable || jit_fail "enable=0 failed"
# trace-cmd runs the injections as its command, once recording is on.  The
# sampler sleeps 100 ms a second, so each class is injected three times
# 150 ms apart: one sleep can swallow at most one of them.
trace-cmd record -q -B jitmod-decode-$$ -e jitmod -o "$dat" sh -c '
	echo 1 > /sys/module/jitmod/parameters/enable || exit 1
	sleep 0.3
	for c in hrtimer ipi softirq nmi thread work; do
		for i in 1 2 3; do
			echo "$c 300" > /sys/module/jitinject/parameters/inject || exit 1
			sleep 0.15
		done
	done
	sleep 1.5
	echo 0 > /sys/module/jitmod/parameters/enable' >"$txt" 2>&1 ||
	jit_fail "trace-cmd record failed: $(cat "$txt")"
trace-cmd report -i "$dat" > "$txt" 2>&1 || jit_fail "trace-cmd report failed"
rmmod jitinject && rmmod jitmod || jit_fail "rmmod failed"

for ev in gap irq_noise softirq_noise nmi_noise thread_noise summary detail; do
	n=$(grep -Ec " $ev: +" "$txt")
	jit_log "$ev: $n"
	[ "$n" -gt 0 ] || jit_fail "no $ev in trace-cmd report"
done
grep -q 'FAILED TO PARSE' "$txt" && jit_fail "trace-cmd: $(grep -m1 'FAILED TO PARSE' "$txt")"
# trace-cmd pads the event name: 'gap:            duration_ns=...'.
grep -Eq ' gap: +duration_ns=[0-9]+ class=(irq|softirq|nmi|thread|hw:[a-z]+) ' "$txt" ||
	jit_fail "gap class not decoded: $(grep -m1 ' gap: ' "$txt")"
grep -Eq ' gap: .* class=[0-9]' "$txt" && jit_fail "gap class printed as a number"
grep -Eq 'softirq_noise: +vec=1 \[TIMER\]' "$txt" ||
	jit_fail "softirq vector name not decoded"
grep -Eq 'thread_noise: +comm=jitinject/1 ' "$txt" ||
	jit_fail "injector thread not decoded"
grep -Eq 'nmi_noise: +handler=jinj_nmi' "$txt" ||
	jit_fail "NMI handler symbol not decoded: $(grep -m1 nmi_noise "$txt")"
grep -Eq 'detail: +kind=timer cls=softirq fn=jinj_timer_fn ' "$txt" ||
	jit_fail "timer detail not decoded: $(grep -m1 ' detail: ' "$txt")"
grep -Eq 'detail: +kind=work cls=thread fn=jinj_work_fn ' "$txt" ||
	jit_fail "work detail not decoded: $(grep -m1 'kind=work' "$txt")"
jit_log "$(grep -m1 ' gap: ' "$txt" | sed 's/^ *//')"
rm -f "$dat" "$txt"
jit_check_dmesg
exit $KSFT_PASS
