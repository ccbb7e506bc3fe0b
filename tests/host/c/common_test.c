// SPDX-License-Identifier: GPL-2.0
/*
 * common_test.c - jitread's common/ helpers, linked as they are: times
 * with units, the TSC arithmetic of long runs and the string table.
 * Prints one line per failed check and exits 1 if any failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/jr_ksym.h"
#include "common/jr_parse.h"
#include "common/jr_strtab.h"
#include "common/jr_text.h"
#include "common/jr_tsc.h"
#include "jr_check.h"

static const char *safe(const char *s)
{
	static char buf[256];

	return jr_text_safe(s, buf, sizeof(buf));
}

static int count_set(const unsigned char *set)
{
	int i, n = 0;

	for (i = 0; i < JR_MAX_CPUS; i++)
		n += set[i];
	return n;
}

/*
 * strtab_checks - a string put again gets its first id, "" is 0, and
 * every string reads back after the table grew many times
 */
static void strtab_checks(void)
{
	struct jr_strtab t = { 0 };
	uint32_t id, a, b;
	char name[32];
	int i, bad = 0;

	CHECK(!strcmp(jr_strtab_str(&t, 0), "") &&
	      !strcmp(jr_strtab_str(&t, 7), ""));
	CHECK(!jr_strtab_put(&t, "", &id) && id == 0);
	CHECK(!jr_strtab_put(&t, "host-a", &a) && a == 1);
	CHECK(!jr_strtab_put(&t, "host-b", &b) && b == 2);
	CHECK(!jr_strtab_put(&t, "host-a", &id) && id == a);
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "irq:%d", i);
		bad += jr_strtab_put(&t, name, &id) || id != (uint32_t)i + 3;
	}
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "irq:%d", i);
		bad += jr_strtab_put(&t, name, &id) || id != (uint32_t)i + 3 ||
		       strcmp(jr_strtab_str(&t, id), name);
	}
	CHECK(bad == 0);
	CHECK(t.nr == 5003 && 2 * t.nr <= t.nr_slots);
	CHECK(!strcmp(jr_strtab_str(&t, b), "host-b"));
	jr_strtab_free(&t);
	CHECK(t.nr == 0 && !strcmp(jr_strtab_str(&t, 1), ""));
}

static uint64_t time_of(const char *text, uint64_t bare)
{
	uint64_t ns = 0;

	return jr_parse_time(text, bare, 0, UINT64_MAX, &ns) ? UINT64_MAX : ns;
}

int main(void)
{
	const uint64_t day = 86400ULL * JR_S, khz = 2300000;
	unsigned char set[JR_MAX_CPUS];
	struct jr_err e;
	char pv[32];
	long last;

	CHECK(time_of("500ns", JR_US) == 500);
	CHECK(time_of("2us", JR_NS) == 2000);
	CHECK(time_of("1.5ms", JR_US) == 1500000);
	CHECK(time_of("12", JR_US) == 12000);
	CHECK(time_of("7d", JR_S) == 7 * day);
	CHECK(time_of("0.000000001s", JR_S) == 1);
	CHECK(time_of("1.5ns", JR_US) == UINT64_MAX);
	CHECK(time_of("20000000000d", JR_S) == UINT64_MAX); /* overflow */
	CHECK(time_of("1e3us", JR_US) == UINT64_MAX);
	CHECK(time_of("", JR_US) == UINT64_MAX);

	/* 7 days at 2.3 GHz: ns * khz alone would pass 2^64 */
	CHECK(jr_ns_to_cyc(7 * day, khz) == 7 * 86400ULL * khz * 1000);
	CHECK(jr_ns_to_cyc(1000, khz) == 2300);
	CHECK(jr_ns_to_cyc(UINT64_MAX, khz) == UINT64_MAX);

	CHECK(!jr_parse_cpus("1-3,5", set, &e) && set[1] && set[3] && set[5] &&
	      !set[4]);
	CHECK(jr_parse_cpus("3-1", set, &e) && strstr(e.msg, "bad CPU list"));
	/* the kernel's syntax, as isolcpus= and nohz_full= take it */
	CHECK(!jr_parse_cpus("0-15:2/4", set, &e) && set[0] && set[1] &&
	      !set[2] && !set[3] && set[4] && set[13] && !set[14] && !set[16]);
	CHECK(!jr_parse_cpus("2-9:1/3,1", set, &e) && set[1] && set[2] &&
	      set[5] && set[8] && !set[3] && !set[9]);
	last = sysconf(_SC_NPROCESSORS_CONF) - 1;
	CHECK(!jr_parse_cpus("N", set, &e) && set[last] && count_set(set) == 1);
	CHECK(!jr_parse_cpus("all", set, &e) && count_set(set) == last + 1);
	CHECK(!jr_parse_cpus("0-N:1/2", set, &e) && set[0] &&
	      count_set(set) == (last + 2) / 2);
	CHECK(jr_parse_cpus("5:1/2", set, &e)); /* a group wants a range */
	CHECK(jr_parse_cpus("0-7:3/2", set, &e)); /* more used than the group */
	CHECK(jr_parse_cpus("0-7:1/0", set, &e));
	CHECK(jr_parse_cpus("0-7:1", set, &e));
	CHECK(jr_parse_cpus("0-7:/2", set, &e));
	CHECK(jr_parse_cpus("0-4096", set, &e));
	CHECK(jr_parse_cpus("1-3x", set, &e));
	CHECK(jr_parse_cpus("-1", set, &e));
	/* a "k=v k=v" line: whole keys only */
	CHECK(!strcmp(jr_param_value("cpus=1 prio=5 details=work,tick", "prio",
				     pv, sizeof(pv)),
		      "5"));
	CHECK(!strcmp(jr_param_value("details=work,tick", "details", pv,
				     sizeof(pv)),
		      "work,tick"));
	CHECK(!jr_param_value("xprio=5 prio_x=1", "prio", pv, sizeof(pv)));
	CHECK(!jr_param_value(NULL, "prio", pv, sizeof(pv)));
	/* names from the machine: escapes shown, UTF-8 kept */
	CHECK(!strcmp(safe("kworker/1:1"), "kworker/1:1"));
	CHECK(!strcmp(safe("x\033[2Jy"), "x\\x1b[2Jy"));
	CHECK(!strcmp(safe("caf\xc3\xa9"), "caf\xc3\xa9"));
	CHECK(!strcmp(safe("a\xc2\x9b\x31m"), "a\\xc2\\x9b1m")); /* C1 CSI */
	CHECK(!strcmp(safe("\xff\x7f\n"), "\\xff\\x7f\\x0a"));
	CHECK(!strcmp(safe("\xe2\x82"), "\\xe2\\x82")); /* cut short */
	CHECK(jr_utf8_len((const unsigned char *)"\xed\xa0\x80") < 0);
	CHECK(jr_utf8_len((const unsigned char *)"\xc0\xaf") < 0);
	CHECK(jr_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80") == 4);

	/* an address without a symbol is shown only where allowed */
	{
		char b[JR_SYM_LEN];

		CHECK(!strcmp(jr_ksym_name(1, 0, b, sizeof(b)), "unresolved"));
		CHECK(!strcmp(jr_ksym_name(1, 1, b, sizeof(b)), "0x1"));
	}
	strtab_checks();
	if (!failed)
		printf("ok\n");
	return failed;
}
