// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_smt.c - how busy each audited CPU's SMT siblings are: /proc/stat
 * read twice, JR_SMT_SAMPLE_MS apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune/jr_audit.h"

#define JR_SMT_SAMPLE_MS 200
#define JR_STAT_MAX (1U << 20)

/*
 * jr_audit_stat - every cpuN line's busy, total and steal ticks into
 * t[JR_MAX_CPUS]; 0 or -1.
 */
int jr_audit_stat(const struct jr_audit *a, struct jr_cpu_ticks *t)
{
	char *buf = malloc(JR_STAT_MAX), *line, *save = NULL;
	int c;

	if (!buf)
		return -1;
	if (jr_audit_file(a, "/proc/stat", buf, JR_STAT_MAX)) {
		free(buf);
		return -1;
	}
	memset(t, 0, JR_MAX_CPUS * sizeof(*t));
	for (c = 0; c < JR_MAX_CPUS; c++)
		t[c].steal = -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v[8] = { 0 };
		int cpu, n;

		n = sscanf(line,
			   "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]);
		if (n < 5 || cpu < 0 || cpu >= JR_MAX_CPUS)
			continue;
		t[cpu].steal = n == 9 && v[7] < (1ULL << 50) ? (long long)v[7] :
							       -1;
		t[cpu].total =
			v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		t[cpu].busy = t[cpu].total - v[3] - v[4]; /* idle, iowait */
	}
	free(buf);
	return 0;
}

/* jr_audit_smt - sibling_busy_pct of each CPU that has a sibling. */
void jr_audit_smt(struct jr_audit *a)
{
	static struct jr_cpu_ticks t0[JR_MAX_CPUS], t1[JR_MAX_CPUS];
	struct timespec ts = { 0, JR_SMT_SAMPLE_MS * 1000000L };
	unsigned char set[JR_MAX_CPUS];
	int i, s, any = 0;

	for (i = 0; i < a->nr_cpu; i++)
		any |= strchr(a->cpu[i].siblings, ',') ||
		       strchr(a->cpu[i].siblings, '-');
	if (!any || jr_audit_stat(a, t0))
		return;
	nanosleep(&ts, NULL);
	if (jr_audit_stat(a, t1))
		return;
	for (i = 0; i < a->nr_cpu; i++) {
		struct jr_audit_cpu *x = &a->cpu[i];

		if (jr_audit_cpulist(x->siblings, set))
			continue;
		for (s = 0; s < JR_MAX_CPUS; s++) {
			unsigned long long dt = t1[s].total - t0[s].total;
			int pct;

			if (!set[s] || s == x->cpu || !dt)
				continue;
			pct = (int)(100 * (t1[s].busy - t0[s].busy) / dt);
			if (pct > x->sibling_busy_pct)
				x->sibling_busy_pct = pct;
		}
	}
}
