// SPDX-License-Identifier: GPL-2.0
/*
 * jr_attach_out.c - jitread attach's own part of the report: what it
 * watched, what it cannot see, and each target thread's account, as text
 * and as the JSON report's "attach" member.
 */
#include <inttypes.h>
#include <stdio.h>

#include "common/jr_text.h"
#include "core/jr_report.h"
#include "usamp/jr_attach.h"

static const char *const jr_acls_names[JR_ACLS] = { "irq", "softirq", "nmi",
						    "thread" };

/* the probes' tallies are __u64, unsigned long long */
#define U(x) ((uint64_t)(x))

#define JR_HW_UNSEEN                                                       \
	"hardware noise (SMIs, a hypervisor's steal) is not measured: it " \
	"takes the CPU without a kernel event, so only a sampler sees it"

/* jr_noise_ns - everything that took t's CPU away, net */
static uint64_t jr_noise_ns(const struct jr_athread *t)
{
	uint64_t sum = 0;
	int k;

	for (k = 0; k < JR_ACLS; k++)
		sum += t->ns[k];
	return sum;
}

void jr_attach_text(FILE *out, const struct jr_attach *a, double div,
		    const char *unit)
{
	char safe[4 * sizeof(a->comm)];
	size_t i;
	int k;

	/* the names are the target's to choose: escapes are shown, not run */
	fprintf(out,
		"\nattach: process %d (%s), %zu threads seen, for %.1f s\n",
		a->cfg.tgid, jr_text_safe(a->comm, safe, sizeof(safe)),
		a->nr_th, (double)(a->end_ns - a->start_ns) / 1e9);
	fprintf(out, "  %s\n", JR_HW_UNSEEN);
	fprintf(out, "  page faults: %s\n",
		a->b.faults ? "timed (handle_mm_fault, gross)" :
		a->b.fault_count ?
			      "counted, not timed (no fentry here)" :
			      "not seen (neither fentry nor the tracepoint)");
	if (a->tasks_full)
		fprintf(out, "  %" PRIu64 " threads beyond the tally's %d\n",
			a->tasks_full, JR_UBPF_MAX_TASKS);
	fprintf(out,
		"\nper thread (%s): noise net of nesting; waits: switched "
		"out runnable until back\n",
		unit);
	fprintf(out, "%8s %-16s %12s", "tid", "comm", "run");
	for (k = 0; k < JR_ACLS; k++)
		fprintf(out, " %10s", jr_acls_names[k]);
	fprintf(out, " %7s %10s %10s %7s %7s %10s %5s\n", "waits", "wait",
		"wait_max", "sleeps", "faults", "fault", "migr");
	for (i = 0; i < a->nr_th; i++) {
		const struct jr_athread *t = &a->th[i];

		fprintf(out, "%8d %-16s %12.1f", t->tid,
			jr_text_safe(t->t.comm, safe, sizeof(safe)),
			t->t.run_ns / div);
		for (k = 0; k < JR_ACLS; k++)
			fprintf(out, " %10.1f", t->ns[k] / div);
		fprintf(out,
			" %7" PRIu64 " %10.1f %10.1f %7" PRIu64 " %7" PRIu64
			" %10.1f %5" PRIu64 "\n",
			U(t->t.waits), t->t.wait_ns / div,
			t->t.wait_max_ns / div, U(t->t.sleeps), U(t->t.faults),
			t->t.fault_ns / div, U(t->t.migrations));
	}
}

static void jr_json_thread(FILE *out, const struct jr_athread *t)
{
	int k;

	fprintf(out, "{\"tid\": %d, \"comm\": ", t->tid);
	jr_json_str(out, t->t.comm);
	fprintf(out, ", \"run_ns\": %" PRIu64 ", \"noise_ns\": %" PRIu64,
		U(t->t.run_ns), jr_noise_ns(t));
	fprintf(out, ", \"classes\": {");
	for (k = 0; k < JR_ACLS; k++)
		fprintf(out,
			"%s\"%s\": {\"count\": %" PRIu64
			", \"total_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 "}",
			k ? ", " : "", jr_acls_names[k], t->n[k], t->ns[k],
			t->max_ns[k]);
	fprintf(out,
		"}, \"waits\": {\"count\": %" PRIu64 ", \"total_ns\": %" PRIu64
		", \"max_ns\": %" PRIu64 "}",
		U(t->t.waits), U(t->t.wait_ns), U(t->t.wait_max_ns));
	fprintf(out,
		", \"sleeps\": {\"count\": %" PRIu64 ", \"total_ns\": %" PRIu64
		"}",
		U(t->t.sleeps), U(t->t.sleep_ns));
	fprintf(out,
		", \"faults\": {\"count\": %" PRIu64 ", \"total_ns\": %" PRIu64
		", \"max_ns\": %" PRIu64 "}",
		U(t->t.faults), U(t->t.fault_ns), U(t->t.fault_max_ns));
	fprintf(out, ", \"migrations\": %" PRIu64 "}", U(t->t.migrations));
}

int jr_attach_json(FILE *out, const struct jr_attach *a)
{
	size_t i;

	fprintf(out, ",\n  \"attach\": {\"pid\": %d, \"comm\": ", a->cfg.tgid);
	jr_json_str(out, a->comm);
	fprintf(out,
		", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
		", \"duration_ns\": %" PRIu64 ", \"events\": %" PRIu64
		", \"bpf_drops\": %" PRIu64 ", \"tasks_full\": %" PRIu64
		", \"faults_timed\": %s, \"faults_counted\": %s,\n"
		"    \"hw_noise\": ",
		a->start_ns, a->end_ns, a->end_ns - a->start_ns, a->events,
		a->drops, a->tasks_full, a->b.faults ? "true" : "false",
		a->b.fault_count ? "true" : "false");
	jr_json_str(out, JR_HW_UNSEEN);
	fprintf(out, ",\n    \"threads\": [");
	for (i = 0; i < a->nr_th; i++) {
		fprintf(out, "%s\n      ", i ? "," : "");
		jr_json_thread(out, &a->th[i]);
	}
	fprintf(out, "\n    ]}");
	return ferror(out) ? -1 : 0;
}
