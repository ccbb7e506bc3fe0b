// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_advise.c - libFuzzer target: jitread advise on arbitrary bytes as
 * a report.  A report that parses is judged against a fixed audit of
 * its CPUs, and against its own audit block when that parses too; the
 * advice is written as text and JSON.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/jr_rdoc.h"
#include "tune/jr_advise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An audit of a mistuned virtual machine, every CPU alike. */
static const char jr_fixed_audit[] =
	"{\"audit_version\": 1, \"system\": {\"cmdline\": \"\","
	" \"clocksource\": \"hpet\", \"irqbalance_pid\": 7,"
	" \"thp\": \"always\", \"vm.stat_interval\": 1,"
	" \"kernel.nmi_watchdog\": 1, \"virtual\": true,"
	" \"hypervisor\": \"KVM\", \"cpu_vendor\": \"GenuineIntel\","
	" \"kernel_nohz_full\": false}, \"cpus\": [";

static int jr_audit_of(struct jr_audit *a, const struct jr_rdoc *d)
{
	char text[65536];
	size_t i, n = snprintf(text, sizeof(text), "%s", jr_fixed_audit);
	struct jr_err e;

	for (i = 0; i < d->nr_cpu && n < sizeof(text) - 256; i++)
		n += snprintf(
			text + n, sizeof(text) - n,
			"%s{\"cpu\": %d, \"nr_irqs\": 1, \"irqs\":"
			" [{\"irq\": 24, \"name\": \"eth0\", \"count\": 9}],"
			" \"nr_kthreads\": 2, \"kthreads\": \"kworker/u8:1 ksmd\","
			" \"nr_tasks\": 1, \"tasks\": \"app\","
			" \"governor\": \"powersave\", \"sibling_busy_pct\": 40}",
			i ? ", " : "", d->cpu[i].cpu);
	snprintf(text + n, sizeof(text) - n, "]}");
	return jr_audit_parse(a, text, &e);
}

static void jr_judge(const struct jr_rdoc *d, struct jr_audit *a, FILE *out)
{
	struct jr_advise v = { .min_ppm = 1,
			       .min_count = 2,
			       .audit_from = "fuzz" };
	struct jr_err e;

	if (!jr_advise_run(&v, d, a, &e)) {
		jr_advise_text(out, &v);
		jr_advise_json(out, &v);
	}
	jr_advise_free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_audit a;
	struct jr_rdoc d;
	struct jr_err e;
	FILE *out;

	if (jr_rdoc_parse(&d, (const char *)data, size, &e)) {
		jr_rdoc_free(&d);
		return 0;
	}
	out = fopen("/dev/null", "w");
	if (out) {
		memset(&a, 0, sizeof(a));
		if (!jr_audit_of(&a, &d))
			jr_judge(&d, &a, out);
		jr_audit_free(&a);
		memset(&a, 0, sizeof(a));
		if (d.audit && !jr_audit_parse(&a, d.audit, &e))
			jr_judge(&d, &a, out);
		jr_audit_free(&a);
		fclose(out);
	}
	jr_rdoc_free(&d);
	return 0;
}
