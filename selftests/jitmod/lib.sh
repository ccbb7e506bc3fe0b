#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the jitmod selftests.  Source it; it sets JIT_KO.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
TRACEFS=/sys/kernel/tracing
JIT_EVENTS=$TRACEFS/events/jitmod
JIT_TEST=$(basename "$0")
JIT_MARK="jitmod-selftest: $JIT_TEST start $$"
JIT_BAD_DMESG='WARNING:|BUG:|rcu.*stall|soft lockup|hung task'

# The repo root: selftests run from build/ksft/jitmod or selftests/jitmod.
JIT_REPO=$(cd "$(dirname "$0")/../../.." && pwd)
[ -f "$JIT_REPO/module/Kbuild" ] || JIT_REPO=$(cd "$(dirname "$0")/../.." && pwd)
JIT_KO=${JITMOD_KO:-$JIT_REPO/build/modules/$(uname -r)/module/jitmod.ko}
JIT_INJ_KO=${JITINJECT_KO:-$JIT_REPO/build/modules/$(uname -r)/jitinject/jitinject.ko}

jit_log() { echo "# $*"; }
jit_fail() { echo "# FAIL: $*"; jit_cleanup; exit $KSFT_FAIL; }
jit_skip() { echo "# SKIP: $*"; exit $KSFT_SKIP; }

jit_cleanup() {
	grep -q '^jitinject ' /proc/modules 2>/dev/null && rmmod jitinject
	grep -q '^jitmod ' /proc/modules 2>/dev/null && rmmod jitmod
	return 0
}

# jit_require - skip unless we can load modules; fail if the .ko is missing.
jit_require() {
	[ "$(id -u)" = 0 ] || jit_skip "needs root"
	[ -f /proc/modules ] || jit_skip "kernel $(uname -r) cannot load modules (run under python3 -m jitpy.vm)"
	[ -d $TRACEFS/events ] || mount -t tracefs nodev $TRACEFS 2>/dev/null
	[ -d $TRACEFS/events ] || jit_skip "tracefs not available"
	[ -f "$JIT_KO" ] || jit_fail "$JIT_KO missing (make modules-all)"
	jit_cleanup
	echo "$JIT_MARK" > /dev/kmsg
}

# jit_last_cpu - set cpu to the last CPU, which the tests sample; skip
# with fewer than 2 CPUs, so that CPU 0 stays for housekeeping.
jit_last_cpu() {
	ncpu=$(nproc --all)
	[ "$ncpu" -ge 2 ] || jit_skip "needs 2 CPUs, have $ncpu"
	cpu=$((ncpu - 1))
}

# jit_dmesg_since_mark - the kernel log written since this test started.
jit_dmesg_since_mark() {
	dmesg | sed -n "/$JIT_MARK/,\$p"
}

# jit_check_dmesg - fail on warnings, BUGs, stalls, lockups or hung tasks.
jit_check_dmesg() {
	bad=$(jit_dmesg_since_mark | grep -E "$JIT_BAD_DMESG")
	[ -z "$bad" ] || jit_fail "kernel log: $(echo "$bad" | head -3)"
}

# jit_wait_for CMD SECONDS - poll until CMD succeeds, or fail after SECONDS.
jit_wait_for() {
	n=0
	while ! sh -c "$1" >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -le $(($2 * 10)) ] || return 1
		sleep 0.1
	done
}
