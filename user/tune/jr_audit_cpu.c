// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_cpu.c - the per-CPU half of the audit: IRQs, kthreads and
 * tasks allowed on the CPU, cpufreq, cpuidle, PM QoS and SMT siblings.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/jr_sys.h"
#include "common/jr_text.h"
#include "tune/jr_audit.h"

#define JR_INTERRUPTS_MAX (1U << 20)

static void jr_add_name(char *list, size_t len, const char *name)
{
	size_t n = strlen(list);
	char safe[64];

	if (n >= 4 && !strcmp(list + n - 4, " ..."))
		return; /* full */
	jr_text_safe(name, safe, sizeof(safe));
	if (n + strlen(safe) + 6 < len)
		snprintf(list + n, len - n, "%s%s", n ? " " : "", safe);
	else
		snprintf(list + n, len - n, " ...");
}

/* jr_irq_counts - one /proc/interrupts row: its count on each column. */
static void jr_irq_row(struct jr_audit *a, char *line, const int *col_cpu,
		       int ncol)
{
	unsigned char set[JR_MAX_CPUS];
	char path[128], aff[1024], *p = line, *end, *name;
	uint64_t count[JR_MAX_CPUS];
	int irq, c, i;

	irq = (int)strtol(p, &end, 10);
	if (end == p || *end != ':')
		return;
	p = end + 1;
	memset(count, 0, sizeof(count));
	for (c = 0; c < ncol; c++) {
		uint64_t v = strtoull(p, &end, 10);

		if (end == p)
			break;
		if (col_cpu[c] >= 0)
			count[col_cpu[c]] = v;
		p = end;
	}
	name = strrchr(p, ' ');
	name = name ? name + 1 : p;
	snprintf(path, sizeof(path), "/proc/irq/%d/effective_affinity_list",
		 irq);
	if (jr_audit_file(a, path, aff, sizeof(aff)) || !aff[0]) {
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list",
			 irq);
		if (jr_audit_file(a, path, aff, sizeof(aff)))
			return;
	}
	if (jr_audit_cpulist(aff, set))
		return;
	for (i = 0; i < a->nr_cpu; i++) {
		struct jr_audit_cpu *x = &a->cpu[i];

		if (!set[x->cpu])
			continue;
		if (x->nr_irq < JR_AUDIT_IRQS) {
			struct jr_audit_irq *q = &x->irq[x->nr_irq];

			q->irq = irq;
			q->count = count[x->cpu];
			jr_text_safe(name, q->name, sizeof(q->name));
		}
		x->nr_irq++;
	}
}

/* jr_audit_irqs - device IRQs whose effective affinity holds each CPU. */
static int jr_audit_irqs(struct jr_audit *a)
{
	static int col_cpu[JR_MAX_CPUS];
	char *buf, *line, *save = NULL, *tok, *tsave = NULL;
	int ncol = 0, first = 1;

	buf = malloc(JR_INTERRUPTS_MAX);
	if (!buf)
		return -ENOMEM;
	if (jr_audit_file(a, "/proc/interrupts", buf, JR_INTERRUPTS_MAX)) {
		free(buf);
		return 0;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (first) {
			first = 0;
			for (tok = strtok_r(line, " ", &tsave);
			     tok && ncol < JR_MAX_CPUS;
			     tok = strtok_r(NULL, " ", &tsave)) {
				int cpu = atoi(tok + 3);

				col_cpu[ncol++] =
					strncmp(tok, "CPU", 3) ||
							cpu >= JR_MAX_CPUS ?
						-1 :
						cpu;
			}
			continue;
		}
		jr_irq_row(a, line, col_cpu, ncol);
	}
	free(buf);
	return 0;
}

/* jr_task - one /proc/PID: a kthread allowed elsewhere too, or a task. */
static void jr_task(struct jr_audit *a, const char *pid)
{
	unsigned char set[JR_MAX_CPUS];
	char path[300], stat[1024], status[4096], comm[64], *l;
	unsigned long flags = 0;
	int i, nr = 0;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (jr_audit_file(a, path, stat, sizeof(stat)) ||
	    jr_stat_parse(stat, comm, sizeof(comm), &flags))
		return;
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if (jr_audit_file(a, path, status, sizeof(status)))
		return;
	l = strstr(status, "Cpus_allowed_list:");
	if (!l)
		return;
	l += strlen("Cpus_allowed_list:");
	l += strspn(l, " \t");
	l[strcspn(l, "\n")] = '\0';
	if (jr_audit_cpulist(l, set))
		return;
	for (i = 0; i < JR_MAX_CPUS; i++)
		nr += set[i];
	for (i = 0; i < a->nr_cpu; i++) {
		struct jr_audit_cpu *x = &a->cpu[i];

		if (!set[x->cpu])
			continue;
		if (!(flags & JR_PF_KTHREAD)) {
			x->nr_tasks++;
			jr_add_name(x->tasks, sizeof(x->tasks), comm);
		} else if (nr > 1) {
			x->nr_kthreads++;
			jr_add_name(x->kthreads, sizeof(x->kthreads), comm);
		}
	}
}

/* jr_audit_tasks - every task but the audit itself on the real machine. */
static void jr_audit_tasks(struct jr_audit *a)
{
	char path[4096], self[32];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/proc", a->root);
	snprintf(self, sizeof(self), "%d", (int)getpid());
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (isdigit((unsigned char)d->d_name[0]) &&
		    (a->root[0] || strcmp(d->d_name, self)))
			jr_task(a, d->d_name);
	closedir(dir);
}

/* jr_audit_idle - the enabled cpuidle states and the deepest latency. */
static void jr_audit_idle(struct jr_audit *a, struct jr_audit_cpu *x)
{
	char path[128], name[32];
	int k;

	for (k = 0; k < 16; k++) {
		long lat, off;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name",
			 x->cpu, k);
		if (jr_audit_file(a, path, name, sizeof(name)))
			break;
		snprintf(
			path, sizeof(path),
			"/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
			x->cpu, k);
		off = jr_audit_long(a, path);
		snprintf(
			path, sizeof(path),
			"/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency",
			x->cpu, k);
		lat = jr_audit_long(a, path);
		if (off > 0)
			continue;
		jr_add_name(x->idle, sizeof(x->idle), name);
		if (lat > 0 && (uint64_t)lat > x->idle_latency_us)
			x->idle_latency_us = (uint64_t)lat;
	}
}

/* jr_perf_governor - whether cpufreq offers cpu the performance governor */
static signed char jr_perf_governor(const struct jr_audit *a, int cpu)
{
	char path[128], buf[512];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/"
		 "scaling_available_governors",
		 cpu);
	if (jr_audit_file(a, path, buf, sizeof(buf)))
		return JR_UNKNOWN;
	return jr_audit_has_word(buf, "performance") ? JR_YES : JR_NO;
}

static void jr_audit_cpu1(struct jr_audit *a, struct jr_audit_cpu *x,
			  const unsigned char *iso, const unsigned char *nohz,
			  const unsigned char *nocb, const unsigned char *wq)
{
	char path[128], khz[32];

	x->isolated = iso[x->cpu];
	x->nohz_full = nohz[x->cpu];
	x->rcu_nocb = nocb[x->cpu] || nohz[x->cpu];
	x->in_wq_mask = wq[x->cpu];
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
		 x->cpu);
	jr_audit_file(a, path, x->governor, sizeof(x->governor));
	x->perf_governor = jr_perf_governor(a, x->cpu);
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
		 x->cpu);
	if (!jr_audit_file(a, path, khz, sizeof(khz)))
		x->cur_khz = strtoull(khz, NULL, 10);
	jr_audit_idle(a, x);
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
		 x->cpu);
	jr_audit_file(a, path, x->resume_latency, sizeof(x->resume_latency));
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 x->cpu);
	jr_audit_file(a, path, x->siblings, sizeof(x->siblings));
	x->sibling_busy_pct = -1;
}

/* jr_wq_cpus - the CPUs of a hex cpumask ("ff", "00000000,000000ff"). */
static void jr_wq_cpus(const char *mask, unsigned char *set)
{
	int bit = 0, i;

	memset(set, 0, JR_MAX_CPUS);
	for (i = (int)strlen(mask) - 1; i >= 0 && bit < JR_MAX_CPUS; i--) {
		int v, b;

		if (mask[i] == ',')
			continue;
		v = isdigit((unsigned char)mask[i]) ?
			    mask[i] - '0' :
			    tolower((unsigned char)mask[i]) - 'a' + 10;
		for (b = 0; b < 4 && bit < JR_MAX_CPUS; b++, bit++)
			set[bit] = v >= 0 && v < 16 && (v >> b & 1);
	}
}

/* jr_audit_cpus - fill a->cpu[], whose cpu numbers are set. */
int jr_audit_cpus(struct jr_audit *a)
{
	static unsigned char iso[JR_MAX_CPUS], nohz[JR_MAX_CPUS],
		nocb[JR_MAX_CPUS], wq[JR_MAX_CPUS];
	char buf[1024];
	int i;

	memset(iso, 0, sizeof(iso));
	memset(nohz, 0, sizeof(nohz));
	if (!jr_audit_file(a, "/sys/devices/system/cpu/isolated", buf,
			   sizeof(buf)))
		jr_audit_cpulist(buf, iso);
	if (!jr_audit_file(a, "/sys/devices/system/cpu/nohz_full", buf,
			   sizeof(buf)) &&
	    strcmp(buf, "(null)"))
		jr_audit_cpulist(buf, nohz);
	jr_audit_cpulist(a->rcu_nocbs, nocb);
	jr_wq_cpus(a->wq_mask, wq);
	for (i = 0; i < a->nr_cpu; i++)
		jr_audit_cpu1(a, &a->cpu[i], iso, nohz, nocb, wq);
	jr_audit_tasks(a);
	jr_audit_smt(a);
	return jr_audit_irqs(a);
}
