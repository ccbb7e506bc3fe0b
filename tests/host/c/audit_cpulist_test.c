// SPDX-License-Identifier: GPL-2.0
/*
 * audit_cpulist_test.c - the CPU lists audit and advise read from the
 * boot line (isolcpus=, nohz_full=): the kernel's regions, with
 * isolcpus' flags skipped.  Prints one line per failed check and exits 1
 * if any failed.
 */
#include <stdio.h>
#include <unistd.h>

#include "tune/jr_audit.h"
#include "jr_check.h"

static int count_set(const unsigned char *set)
{
	int i, n = 0;

	for (i = 0; i < JR_MAX_CPUS; i++)
		n += set[i];
	return n;
}

int main(void)
{
	long last = sysconf(_SC_NPROCESSORS_CONF) - 1;
	unsigned char set[JR_MAX_CPUS];

	CHECK(!jr_audit_cpulist("managed_irq,domain,2-3", set) && set[2] &&
	      set[3] && count_set(set) == 2);
	CHECK(!jr_audit_cpulist("", set) && !count_set(set));
	CHECK(!jr_audit_cpulist("nohz,domain", set) && !count_set(set));
	CHECK(!jr_audit_cpulist("domain,N", set) && set[last] &&
	      count_set(set) == 1);
	CHECK(!jr_audit_cpulist("all", set) && count_set(set) == last + 1);
	CHECK(!jr_audit_cpulist("managed_irq,all:1/2", set) && set[0] &&
	      count_set(set) == (last + 2) / 2);
	CHECK(!jr_audit_cpulist("domain,0-15:2/4", set) && set[0] && set[1] &&
	      !set[2] && set[13] && count_set(set) == 8);
	CHECK(jr_audit_cpulist("domain,3-1", set));
	if (!failed)
		printf("ok\n");
	return failed;
}
