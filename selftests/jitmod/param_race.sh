#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A parameter write that races insmod is held to the rules across
# parameters as any other.  The parameter files exist before jitmod's
# init runs, so a writer on CPU 1 hammers runtime_us with 2 s while
# insmod asks for irqs_off=1 with a 100 ms runtime.  Each load ends one
# of two ways: refused (the write landed first, and init saw it), or
# loaded with a runtime irqs_off allows (the write came after, and was
# refused).  Never loaded with interrupts off for 2 s a period.
. "$(dirname "$0")/lib.sh"
jit_require

P=/sys/module/jitmod/parameters
ROUNDS=${ROUNDS:-12}
loaded=0
refused=0
i=0
while [ $i -lt "$ROUNDS" ]; do
	i=$((i + 1))
	taskset -c 1 sh -c "while :; do echo 2000000 > $P/runtime_us; done" \
		2>/dev/null &
	writer=$!
	if insmod "$JIT_KO" cpus=1 irqs_off=1 period_us=3000000 \
		runtime_us=100000 2>/dev/null; then
		kill $writer
		wait $writer 2>/dev/null
		got=$(cat $P/runtime_us)
		off=$(cat $P/irqs_off)
		rmmod jitmod || jit_fail "rmmod failed"
		[ "$off" = 1 ] || jit_fail "round $i: irqs_off reads $off"
		[ "$got" -le 1000000 ] ||
			jit_fail "round $i: loaded with irqs_off=1 and runtime_us=$got"
		loaded=$((loaded + 1))
	else
		kill $writer
		wait $writer 2>/dev/null
		grep -q '^jitmod ' /proc/modules &&
			jit_fail "round $i: a refused insmod left jitmod loaded"
		refused=$((refused + 1))
	fi
done
jit_log "ok: $ROUNDS loads under a racing write: $loaded loaded within the bound, $refused refused"
jit_check_dmesg
exit $KSFT_PASS
