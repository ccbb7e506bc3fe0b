// SPDX-License-Identifier: GPL-2.0
/*
 * jitmod_events - the event formats decoders depend on.
 *
 * libtraceevent, trace-cmd, perf and bpftrace read these format files.
 * Field names must carry units and enum names must be resolved to numbers
 * (TRACE_DEFINE_ENUM), or the tools print raw symbols they cannot parse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "../kselftest_harness.h"

#define EVENTS "/sys/kernel/tracing/events/jitmod"

static char *read_format(const char *event)
{
	static char buf[16384];
	char path[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), EVENTS "/%s/format", event);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

FIXTURE(jitmod) {
	int loaded;
};

FIXTURE_SETUP(jitmod)
{
	char cmd[512], ko[300];
	struct utsname u;

	if (getuid() != 0)
		SKIP(return, "needs root");
	if (access("/proc/modules", F_OK))
		SKIP(return, "this kernel cannot load modules");
	/* Same default as lib.sh: run from build/ksft/jitmod. */
	ASSERT_EQ(0, uname(&u));
	snprintf(ko, sizeof(ko), "%s", getenv("JITMOD_KO") ? :
		 "../../modules/");
	if (!getenv("JITMOD_KO"))
		snprintf(ko, sizeof(ko), "../../modules/%s/module/jitmod.ko",
			 u.release);
	ASSERT_EQ(0, access(ko, R_OK)) TH_LOG("%s missing", ko);
	snprintf(cmd, sizeof(cmd), "insmod %s cpus=1", ko);
	ASSERT_EQ(0, system(cmd));
	self->loaded = 1;
}

/* The 6.1 harness runs the body even after SKIP in setup; stop it here. */
#define REQUIRE_LOADED()						\
	do {								\
		if (!self->loaded)					\
			SKIP(return, "jitmod not loaded");		\
	} while (0)

FIXTURE_TEARDOWN(jitmod)
{
	if (self->loaded)
		EXPECT_EQ(0, system("rmmod jitmod"));
}

TEST_F(jitmod, durations_carry_units)
{
	static const char *const events[] = {
		"gap", "irq_noise", "softirq_noise", "nmi_noise",
		"thread_noise",
	};
	unsigned int i;

	REQUIRE_LOADED();

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		char *fmt = read_format(events[i]);

		ASSERT_NE(NULL, fmt) TH_LOG("no format for %s", events[i]);
		EXPECT_NE(NULL, strstr(fmt, "u64 duration_ns;"))
			TH_LOG("%s lacks u64 duration_ns", events[i]);
	}
}

TEST_F(jitmod, summary_fields)
{
	static const char *const fields[] = {
		"u64 runtime_ns;", "u64 noise_ns;", "u64 max_gap_ns;",
		"u64 iterations;", "u64 resolution_ps;", "u32 avail_ppm;",
		"u32 hw_count;", "u32 nmi_count;", "u32 irq_count;",
		"u32 softirq_count;", "u32 thread_count;",
	};
	char *fmt = read_format("summary");
	unsigned int i;

	REQUIRE_LOADED();

	ASSERT_NE(NULL, fmt);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		EXPECT_NE(NULL, strstr(fmt, fields[i]))
			TH_LOG("summary lacks %s", fields[i]);
}

TEST_F(jitmod, enums_resolved)
{
	char *fmt = read_format("gap");

	REQUIRE_LOADED();

	ASSERT_NE(NULL, fmt);
	EXPECT_EQ(NULL, strstr(fmt, "JIT_NOISE_"))
		TH_LOG("enum names left in the gap format");
	EXPECT_NE(NULL, strstr(fmt, "\"hw:unknown\""));
	fmt = read_format("stop");
	ASSERT_NE(NULL, fmt);
	EXPECT_EQ(NULL, strstr(fmt, "JIT_STOP_"));
	fmt = read_format("softirq_noise");
	ASSERT_NE(NULL, fmt);
	EXPECT_EQ(NULL, strstr(fmt, "JIT_SOFTIRQ_"))
		TH_LOG("enum names left in the softirq_noise format");
	EXPECT_NE(NULL, strstr(fmt, "\"TIMER\""));
}

TEST_HARNESS_MAIN
