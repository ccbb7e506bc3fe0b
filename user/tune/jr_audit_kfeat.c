// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_kfeat.c - what the audited kernel was built with, and what it
 * runs on: the options a fix needs (advise never prescribes a fix whose
 * option is missing), whether the machine is virtual, its CPU vendor and
 * the steal clock.
 *
 * An option is told by the file it creates, when the filesystem that
 * would hold it is there to look at; else by the kernel's config in
 * /boot; else it is unknown.  A file is the running kernel's truth, the
 * config only the build's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/jr_text.h"
#include "tune/jr_audit.h"

#define JR_CONFIG_MAX (4U << 20)
#define JR_CPUINFO_MAX (256U << 10)
#define JR_USER_HZ 100 /* /proc/stat's unit, fixed on x86 */

/*
 * struct jr_kfeat_def - one kernel option: its name for people and for
 * JSON, its CONFIG_ symbol (NULL when no single one), the directory that
 * must exist for the probe to count, and the probe itself.  "tracefs"
 * as base means the probe is relative to the tracefs mount.
 */
struct jr_kfeat_def {
	const char *key;
	const char *label;
	const char *config;
	const char *base;
	const char *probe;
};

static const struct jr_kfeat_def jr_kfeats[JR_KF_NR] = {
	[JR_KF_NO_HZ_FULL] = { "no_hz_full", "NO_HZ_FULL", "CONFIG_NO_HZ_FULL",
			       "/sys/devices/system/cpu",
			       "/sys/devices/system/cpu/nohz_full" },
	[JR_KF_RCU_NOCB] = { "rcu_nocb_cpu", "RCU_NOCB_CPU",
			     "CONFIG_RCU_NOCB_CPU",
			     "/sys/module/rcutree/parameters",
			     "/sys/module/rcutree/parameters/rcu_nocb_gp_stride" },
	[JR_KF_TRACE_EVENTS] = { "trace_events",
				 "the workqueue and timer trace events",
				 "CONFIG_EVENT_TRACING", "tracefs",
				 "events/workqueue/workqueue_queue_work" },
	[JR_KF_CSD_EVENTS] = { "csd_events", "the csd trace events", NULL,
			       "tracefs", "events/csd/csd_queue_cpu" },
	[JR_KF_FTRACE_FILTER] = { "ftrace_filter",
				  "the function tracer's filters",
				  "CONFIG_DYNAMIC_FTRACE", "tracefs",
				  "set_ftrace_filter" },
	[JR_KF_THP] = { "thp", "transparent hugepages",
			"CONFIG_TRANSPARENT_HUGEPAGE", "/sys/kernel/mm",
			"/sys/kernel/mm/transparent_hugepage/enabled" },
};

const char *jr_kfeat_name(enum jr_kfeat f)
{
	return jr_kfeats[f].label;
}

const char *jr_kfeat_key(enum jr_kfeat f)
{
	return jr_kfeats[f].key;
}

const char *jr_tri_json(int v)
{
	return v == JR_YES ? "true" : v == JR_NO ? "false" : "null";
}

/* jr_audit_exists - whether root + path exists. */
static bool jr_audit_exists(const struct jr_audit *a, const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", a->root, path);
	return !access(full, F_OK);
}

/* jr_tracefs - where tracefs is mounted under the root, "" if nowhere. */
static const char *jr_tracefs(const struct jr_audit *a)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (jr_audit_exists(a, path))
			return dirs[i];
	}
	return "";
}

/*
 * jr_config_says - what the kernel config text says of option: JR_YES
 * for =y or =m, JR_NO when it is not set or not there at all.
 */
static int jr_config_says(const char *config, const char *option)
{
	size_t n = strlen(option);
	const char *p = config;

	while ((p = strstr(p, option))) {
		bool line_start = p == config || p[-1] == '\n';

		if (line_start && p[n] == '=')
			return p[n + 1] == 'y' || p[n + 1] == 'm' ? JR_YES :
								    JR_NO;
		p += n;
	}
	return JR_NO;
}

/* jr_kconfig - the audited kernel's config from /boot, or NULL. */
static char *jr_kconfig(const struct jr_audit *a)
{
	char release[128], path[256], *buf;

	if (jr_audit_file(a, "/proc/sys/kernel/osrelease", release,
			  sizeof(release)) ||
	    !release[0] || strchr(release, '/'))
		return NULL;
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	buf = malloc(JR_CONFIG_MAX);
	if (buf && jr_audit_file(a, path, buf, JR_CONFIG_MAX)) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

/* jr_audit_kfeats - each option of enum jr_kfeat: yes, no or unknown. */
void jr_audit_kfeats(struct jr_audit *a)
{
	const char *tfs = jr_tracefs(a);
	char *config = jr_kconfig(a);
	char base[256], probe[256];
	int f;

	for (f = 0; f < JR_KF_NR; f++) {
		const struct jr_kfeat_def *k = &jr_kfeats[f];
		bool in_tfs = !strcmp(k->base, "tracefs");

		snprintf(base, sizeof(base), "%s", in_tfs ? tfs : k->base);
		snprintf(probe, sizeof(probe), "%s%s%s", in_tfs ? tfs : "",
			 in_tfs ? "/" : "", k->probe);
		if (base[0] && jr_audit_exists(a, base))
			a->kfeat[f] = jr_audit_exists(a, probe) ? JR_YES :
								  JR_NO;
		else if (config && k->config)
			a->kfeat[f] = jr_config_says(config, k->config);
		else
			a->kfeat[f] = JR_UNKNOWN;
	}
	free(config);
}

/* jr_hypervisor_name - what the machine says its hypervisor is. */
static void jr_hypervisor_name(struct jr_audit *a)
{
	static const char *const clocks[][2] = {
		{ "kvm-clock", "KVM" },
		{ "hyperv_clocksource", "Hyper-V" },
		{ "xen", "Xen" },
	};
	char buf[256];
	size_t i;

	if (!jr_audit_file(a, "/sys/hypervisor/type", buf, sizeof(buf)) &&
	    buf[0]) {
		jr_text_safe(buf, a->hypervisor, sizeof(a->hypervisor));
		return;
	}
	if (!jr_audit_file(a,
			   "/sys/devices/system/clocksource/clocksource0/"
			   "available_clocksource",
			   buf, sizeof(buf)))
		for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
			if (strstr(buf, clocks[i][0])) {
				snprintf(a->hypervisor, sizeof(a->hypervisor),
					 "%s", clocks[i][1]);
				return;
			}
	if (!jr_audit_file(a, "/sys/class/dmi/id/sys_vendor", buf, sizeof(buf)))
		jr_text_safe(buf, a->hypervisor, sizeof(a->hypervisor));
}

/* jr_cpuinfo_field - the first "name : value" of cpuinfo into out. */
static bool jr_cpuinfo_field(const char *info, const char *name, char *out,
			     size_t len)
{
	const char *p = info;
	size_t n = strlen(name);

	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\t')) {
			const char *v = strchr(p, ':');
			size_t w;

			if (!v)
				return false;
			v += 1 + (v[1] == ' ');
			w = strcspn(v, "\n");
			snprintf(out, len, "%.*s", (int)w, v);
			return true;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/* jr_audit_steal - each audited CPU's steal time since boot, or -1 */
static void jr_audit_steal(struct jr_audit *a)
{
	static struct jr_cpu_ticks t[JR_MAX_CPUS];
	bool ok = !jr_audit_stat(a, t);
	int i;

	for (i = 0; i < a->nr_cpu; i++) {
		long long s = ok ? t[a->cpu[i].cpu].steal : -1;

		a->cpu[i].steal_ms = s < 0 ? -1 : s * (1000 / JR_USER_HZ);
	}
}

/*
 * jr_audit_platform - virtual or not (x86's hypervisor flag), by which
 * hypervisor, the CPU vendor (an SMI counter is Intel's), and steal.
 */
void jr_audit_platform(struct jr_audit *a)
{
	char *info = malloc(JR_CPUINFO_MAX), flags[4096], vendor[64];

	a->virt = JR_UNKNOWN;
	if (info && !jr_audit_file(a, "/proc/cpuinfo", info, JR_CPUINFO_MAX)) {
		if (jr_cpuinfo_field(info, "flags", flags, sizeof(flags))) {
			a->virt = jr_audit_has_word(flags, "hypervisor") ?
					  JR_YES :
					  JR_NO;
		}
		if (jr_cpuinfo_field(info, "vendor_id", vendor, sizeof(vendor)))
			jr_text_safe(vendor, a->cpu_vendor,
				     sizeof(a->cpu_vendor));
	}
	free(info);
	if (a->virt == JR_YES)
		jr_hypervisor_name(a);
	jr_audit_steal(a);
}
