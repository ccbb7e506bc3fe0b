// SPDX-License-Identifier: GPL-2.0
/*
 * jr_audit_check_out.c - the checklist for people, and the audit as JSON.
 */
#include <errno.h>
#include <inttypes.h>

#include "core/jr_envelope.h"
#include "core/jr_report.h"
#include "tune/jr_audit_check.h"

static void jr_text_checks(FILE *out, const struct jr_checks *c, int cpu,
			   const char *indent)
{
	int i;

	for (i = 0; i < c->nr; i++)
		if (c->k[i].cpu == cpu)
			fprintf(out, "%s[%-4s] %s\n", indent,
				jr_check_status_name(c->k[i].status),
				c->k[i].text);
}

/* jr_audit_text - the checklist: the machine's items, then each CPU's. */
int jr_audit_text(FILE *out, const struct jr_audit *a,
		  const struct jr_checks *c)
{
	int i;

	fprintf(out,
		"boot: isolcpus=%s nohz_full=%s rcu_nocbs=%s irqaffinity=%s%s%s\n",
		a->isolcpus[0] ? a->isolcpus : "-",
		a->nohz_full[0] ? a->nohz_full : "-",
		a->rcu_nocbs[0] ? a->rcu_nocbs : "-",
		a->irqaffinity[0] ? a->irqaffinity : "-",
		a->skew_tick ? " skew_tick" : "",
		a->managed_irq ? " (managed_irq)" : "");
	jr_text_checks(out, c, -1, "");
	for (i = 0; i < a->nr_cpu; i++) {
		fprintf(out, "\nCPU %d\n", a->cpu[i].cpu);
		jr_text_checks(out, c, a->cpu[i].cpu, "  ");
	}
	fprintf(out, "\n%d warning(s)\n", c->warnings);
	return ferror(out) ? -EIO : 0;
}

static void jr_json_kv(FILE *out, const char *key, const char *val, int more)
{
	fprintf(out, "\"%s\": ", key);
	jr_json_str(out, val);
	fprintf(out, "%s", more ? ", " : "");
}

/* jr_json_platform - the kernel's options and what it runs on */
static void jr_json_platform(FILE *out, const struct jr_audit *a)
{
	int f;

	fprintf(out, "  \"kernel_features\": {");
	for (f = 0; f < JR_KF_NR; f++)
		fprintf(out, "%s\"%s\": %s", f ? ", " : "", jr_kfeat_key(f),
			jr_tri_json(a->kfeat[f]));
	fprintf(out, "},\n  \"virtual\": %s, ", jr_tri_json(a->virt));
	jr_json_kv(out, "hypervisor", a->hypervisor, 1);
	jr_json_kv(out, "cpu_vendor", a->cpu_vendor, 0);
	fprintf(out, "},\n");
}

static void jr_json_system(FILE *out, const struct jr_audit *a)
{
	fprintf(out, "  \"system\": {");
	jr_json_kv(out, "cmdline", a->cmdline, 1);
	jr_json_kv(out, "isolcpus", a->isolcpus, 1);
	jr_json_kv(out, "nohz_full", a->nohz_full, 1);
	jr_json_kv(out, "rcu_nocbs", a->rcu_nocbs, 1);
	jr_json_kv(out, "irqaffinity", a->irqaffinity, 1);
	jr_json_kv(out, "clocksource", a->clocksource, 1);
	jr_json_kv(out, "workqueue_cpumask", a->wq_mask, 1);
	jr_json_kv(out, "thp", a->thp, 1);
	fprintf(out,
		"\"managed_irq\": %s, \"skew_tick\": %s, \"tsc_reliable\": %s, "
		"\"kernel_nohz_full\": %s, \"irqbalance_pid\": %d, \"vm.stat_interval\": "
		"%ld, \"kernel.timer_migration\": %ld, \"kernel.nmi_watchdog\": %ld, "
		"\"sched_rt_runtime_us\": %ld, \"sched_rt_period_us\": %ld,\n",
		a->managed_irq ? "true" : "false",
		a->skew_tick ? "true" : "false",
		a->tsc_reliable ? "true" : "false",
		jr_tri_json(a->kfeat[JR_KF_NO_HZ_FULL]), a->irqbalance_pid,
		a->stat_interval, a->timer_migration, a->nmi_watchdog,
		a->rt_runtime_us, a->rt_period_us);
	jr_json_platform(out, a);
}

static void jr_json_cpu(FILE *out, const struct jr_audit_cpu *x)
{
	int i;

	fprintf(out,
		"    {\"cpu\": %d, \"isolated\": %s, \"nohz_full\": %s, \"rcu_nocb\": "
		"%s, \"in_workqueue_cpumask\": %s, \"nr_irqs\": %d, \"irqs\": [",
		x->cpu, x->isolated ? "true" : "false",
		x->nohz_full ? "true" : "false", x->rcu_nocb ? "true" : "false",
		x->in_wq_mask ? "true" : "false", x->nr_irq);
	for (i = 0; i < x->nr_irq && i < JR_AUDIT_IRQS; i++) {
		fprintf(out, "%s{\"irq\": %d, \"name\": ", i ? ", " : "",
			x->irq[i].irq);
		jr_json_str(out, x->irq[i].name);
		fprintf(out, ", \"count\": %" PRIu64 "}", x->irq[i].count);
	}
	fprintf(out, "],\n     \"nr_kthreads\": %d, ", x->nr_kthreads);
	jr_json_kv(out, "kthreads", x->kthreads, 1);
	fprintf(out, "\"nr_tasks\": %d, ", x->nr_tasks);
	jr_json_kv(out, "tasks", x->tasks, 1);
	jr_json_kv(out, "governor", x->governor, 1);
	fprintf(out, "\"cur_khz\": %" PRIu64 ", ", x->cur_khz);
	jr_json_kv(out, "idle_states", x->idle, 1);
	fprintf(out, "\"idle_latency_us\": %" PRIu64 ", ", x->idle_latency_us);
	jr_json_kv(out, "pm_qos_resume_latency_us", x->resume_latency, 1);
	jr_json_kv(out, "smt_siblings", x->siblings, 1);
	fprintf(out,
		"\"sibling_busy_pct\": %d, \"performance_governor\": %s, \"steal_ms\": ",
		x->sibling_busy_pct, jr_tri_json(x->perf_governor));
	if (x->steal_ms >= 0)
		fprintf(out, "%lld}", x->steal_ms);
	else
		fprintf(out, "null}");
}

/*
 * jr_audit_json - the audit as data (audit_version 1); with the run's
 * envelope when it is a document of its own, not a report's block
 */
int jr_audit_json(FILE *out, const struct jr_audit *a,
		  const struct jr_checks *c, bool envelope)
{
	int i;

	fprintf(out, "{\n  \"audit_version\": 1,\n");
	if (envelope) {
		fprintf(out, "  ");
		jr_envelope_json(out);
		fprintf(out, ",\n");
	}
	jr_json_system(out, a);
	fprintf(out, "  \"cpus\": [\n");
	for (i = 0; i < a->nr_cpu; i++) {
		fprintf(out, "%s", i ? ",\n" : "");
		jr_json_cpu(out, &a->cpu[i]);
	}
	fprintf(out, "\n  ],\n  \"warnings\": %d, \"checks\": [", c->warnings);
	for (i = 0; i < c->nr; i++) {
		fprintf(out,
			"%s\n    {\"cpu\": %d, \"id\": \"%s\", \"status\": \"%s\", \"text\": ",
			i ? "," : "", c->k[i].cpu, c->k[i].id,
			jr_check_status_name(c->k[i].status));
		jr_json_str(out, c->k[i].text);
		fprintf(out, "}");
	}
	fprintf(out, "\n  ]\n}\n");
	return ferror(out) ? -EIO : 0;
}
