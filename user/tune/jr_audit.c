// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit.c - the machine-wide half of the audit: boot parameters,
 * clocksource, irqbalance, the unbound workqueue mask and sysctls.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune/jr_audit.h"

/* jr_boot_param - name=VALUE of the boot line into out ("" if absent). */
static bool jr_boot_param(const char *cmdline, const char *name, char *out,
			  size_t len)
{
	size_t n = strlen(name);
	const char *p = cmdline;

	out[0] = '\0';
	while (*p) {
		size_t w;

		while (*p == ' ')
			p++;
		w = strcspn(p, " ");
		if (w > n && !strncmp(p, name, n) && p[n] == '=') {
			snprintf(out, len, "%.*s", (int)(w - n - 1), p + n + 1);
			return true;
		}
		p += w;
	}
	return false;
}

/* jr_irqbalance - the pid of a running irqbalance, or 0. */
static int jr_irqbalance(const struct jr_audit *a)
{
	char path[4096], comm[64];
	struct dirent *d;
	DIR *dir;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/proc", a->root);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!pid && (d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (!jr_audit_file(a, path, comm, sizeof(comm)) &&
		    !strcmp(comm, "irqbalance"))
			pid = atoi(d->d_name);
	}
	closedir(dir);
	return pid;
}

/* jr_thp_mode - the [selected] word of a transparent_hugepage file. */
static void jr_thp_mode(const struct jr_audit *a, char *out, size_t len)
{
	char buf[128], *l, *r;

	out[0] = '\0';
	if (jr_audit_file(a, "/sys/kernel/mm/transparent_hugepage/enabled", buf,
			  sizeof(buf)))
		return;
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (r)
		snprintf(out, len, "%.*s", (int)(r - l - 1), l + 1);
}

static void jr_audit_boot(struct jr_audit *a)
{
	char v[64];

	jr_audit_file(a, "/proc/cmdline", a->cmdline, sizeof(a->cmdline));
	jr_boot_param(a->cmdline, "isolcpus", a->isolcpus, sizeof(a->isolcpus));
	jr_boot_param(a->cmdline, "nohz_full", a->nohz_full,
		      sizeof(a->nohz_full));
	jr_boot_param(a->cmdline, "rcu_nocbs", a->rcu_nocbs,
		      sizeof(a->rcu_nocbs));
	jr_boot_param(a->cmdline, "irqaffinity", a->irqaffinity,
		      sizeof(a->irqaffinity));
	a->managed_irq = strstr(a->isolcpus, "managed_irq") != NULL;
	a->skew_tick = jr_boot_param(a->cmdline, "skew_tick", v, sizeof(v)) &&
		       strcmp(v, "0");
	a->tsc_reliable = jr_boot_param(a->cmdline, "tsc", v, sizeof(v)) &&
			  strstr(v, "reliable");
}

/*
 * jr_audit_read - read the machine under root ("" for this one) for the
 * CPUs in cpus.  0, or -ENOMEM with e.
 */
int jr_audit_read(struct jr_audit *a, const char *root,
		  const unsigned char *cpus, struct jr_err *e)
{
	int cpu, n = 0;

	memset(a, 0, sizeof(*a));
	a->root = root;
	jr_audit_boot(a);
	jr_audit_file(a,
		      "/sys/devices/system/clocksource/clocksource0/"
		      "current_clocksource",
		      a->clocksource, sizeof(a->clocksource));
	a->irqbalance_pid = jr_irqbalance(a);
	jr_audit_file(a, "/sys/devices/virtual/workqueue/cpumask", a->wq_mask,
		      sizeof(a->wq_mask));
	jr_thp_mode(a, a->thp, sizeof(a->thp));
	jr_audit_kfeats(a);
	a->stat_interval = jr_audit_long(a, "/proc/sys/vm/stat_interval");
	a->timer_migration =
		jr_audit_long(a, "/proc/sys/kernel/timer_migration");
	a->nmi_watchdog = jr_audit_long(a, "/proc/sys/kernel/nmi_watchdog");
	a->rt_runtime_us =
		jr_audit_long(a, "/proc/sys/kernel/sched_rt_runtime_us");
	a->rt_period_us =
		jr_audit_long(a, "/proc/sys/kernel/sched_rt_period_us");
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
		n += cpus[cpu] != 0;
	a->cpu = calloc(n ? n : 1, sizeof(*a->cpu));
	if (!a->cpu)
		return jr_fail(e, -ENOMEM, "out of memory");
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
		if (cpus[cpu])
			a->cpu[a->nr_cpu++].cpu = cpu;
	if (jr_audit_cpus(a))
		return jr_fail(e, -ENOMEM, "out of memory");
	jr_audit_platform(a);
	return 0;
}

void jr_audit_free(struct jr_audit *a)
{
	free(a->cpu);
	a->cpu = NULL;
	a->nr_cpu = 0;
}

/*
 * jr_audit_default_cpus - the CPUs worth auditing: the isolated ones,
 * else nohz_full's, else jitmod's, else all online CPUs but CPU 0.
 * 0, or -ENOENT when there is none.
 */
int jr_audit_default_cpus(const char *root, unsigned char *cpus)
{
	static const char *const from[] = {
		"/sys/devices/system/cpu/isolated",
		"/sys/devices/system/cpu/nohz_full",
		"/sys/module/jitmod/parameters/cpus",
	};
	struct jr_audit a = { .root = root };
	char buf[1024];
	size_t i;
	int cpu;

	for (i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		if (jr_audit_file(&a, from[i], buf, sizeof(buf)) ||
		    jr_audit_cpulist(buf, cpus))
			continue;
		for (cpu = 0; cpu < JR_MAX_CPUS; cpu++)
			if (cpus[cpu])
				return 0;
	}
	if (jr_audit_file(&a, "/sys/devices/system/cpu/online", buf,
			  sizeof(buf)) ||
	    jr_audit_cpulist(buf, cpus))
		return -ENOENT;
	cpus[0] = 0;
	for (cpu = 1; cpu < JR_MAX_CPUS; cpu++)
		if (cpus[cpu])
			return 0;
	return -ENOENT;
}
