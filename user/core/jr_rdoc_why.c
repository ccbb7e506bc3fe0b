// SPDX-License-Identifier: GPL-2.0
/*
 * jr_rdoc_why.c - a comparison's "why" read back: per compared CPU
 * (compare.cpus[].why) the rows of time lost per second on each side and
 * the user thread's own counts (user_only), for diff and advise.  Checked
 * as the rest of the report is: a wrong member is refused by name.  The
 * counts' object is written here too, for the report and for diff, so
 * that writer and reader share its keys.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jr_rdoc.h"

const char *const jr_rwhy_count_names[JR_RW_NR] = {
	"minor_faults", "major_faults", "preempted", "waited", "migrations",
};

/* jr_rwhy_counts_json - user_only's object; a count below 0 is null */
void jr_rwhy_counts_json(FILE *out, const int64_t count[JR_RW_NR])
{
	int k;

	fprintf(out, "{");
	for (k = 0; k < JR_RW_NR; k++) {
		fprintf(out, "%s\"%s\": ", k ? ", " : "",
			jr_rwhy_count_names[k]);
		if (count[k] < 0)
			fprintf(out, "null");
		else
			fprintf(out, "%" PRId64, count[k]);
	}
	fprintf(out, "}");
}

static int jr_wbad(struct jr_err *e, const char *what, const char *why)
{
	return jr_fail(e, -EINVAL, "compare: %s: %s", what, why);
}

/* jr_rate_of - obj's member name as a finite, non-negative ns/s */
static int jr_rate_of(const struct jr_jdoc *j, struct jr_jv obj,
		      const char *name, double *v, struct jr_err *e)
{
	if (!jr_jv_num(j, jr_jv_get(j, obj, name), v) || !isfinite(*v) ||
	    *v < 0)
		return jr_wbad(e, name, "not a rate of ns per second");
	return 0;
}

static int jr_why_row(const struct jr_jdoc *j, struct jr_jv obj,
		      struct jr_rwhy_row *r, struct jr_err *e)
{
	struct jr_jv kind = jr_jv_get(j, obj, "kind");

	if (!jr_jv_streq(j, kind, "class") && !jr_jv_streq(j, kind, "source"))
		return jr_wbad(e, "kind", "not class or source");
	if (jr_jv_str(j, jr_jv_get(j, obj, "name"), r->name, sizeof(r->name)) ||
	    !r->name[0])
		return jr_wbad(e, "name", "missing or too long");
	r->source = jr_jv_streq(j, kind, "source");
	return jr_rate_of(j, obj, "kernel_ns_per_s", &r->ns_per_s[0], e) ||
	       jr_rate_of(j, obj, "user_ns_per_s", &r->ns_per_s[1], e);
}

/* jr_why_counts - user_only: null, or each count an integer or null */
static int jr_why_counts(const struct jr_jdoc *j, struct jr_jv obj,
			 struct jr_rwhy *w, struct jr_err *e)
{
	struct jr_jv x;
	int i;

	if (!jr_jv_present(obj) || jr_jv_is(j, obj, JR_JV_NULL))
		return 0;
	if (!jr_jv_is(j, obj, JR_JV_OBJECT))
		return jr_wbad(e, "user_only", "not an object");
	w->has_counts = true;
	for (i = 0; i < JR_RW_NR; i++) {
		x = jr_jv_get(j, obj, jr_rwhy_count_names[i]);
		w->count[i] = -1;
		if (jr_jv_is(j, x, JR_JV_NULL))
			continue;
		if (!jr_jv_int(j, x, &w->count[i]) || w->count[i] < 0)
			return jr_wbad(e, jr_rwhy_count_names[i],
				       "not a count or null");
	}
	return 0;
}

static int jr_why_of_json(const struct jr_jdoc *j, struct jr_jv obj,
			  struct jr_rwhy *w, struct jr_err *e)
{
	struct jr_jv noise = jr_jv_get(j, obj, "noise_ns_per_s");
	struct jr_jv rows = jr_jv_get(j, obj, "rows"), r;
	size_t i;

	if (!jr_jv_is(j, obj, JR_JV_OBJECT) ||
	    !jr_jv_is(j, noise, JR_JV_OBJECT))
		return jr_wbad(e, "why", "not an object with noise_ns_per_s");
	if (jr_rate_of(j, noise, "kernel", &w->noise_ns_per_s[0], e) ||
	    jr_rate_of(j, noise, "user", &w->noise_ns_per_s[1], e))
		return -EINVAL;
	if (!jr_jv_is(j, rows, JR_JV_ARRAY) ||
	    jr_jv_size(j, rows) > JR_RWHY_ROWS)
		return jr_wbad(e, "rows", "not an array of at most 64");
	w->nr = jr_jv_size(j, rows);
	r = jr_jv_first(j, rows);
	for (i = 0; i < w->nr; i++, r = jr_jv_next(j, r))
		if (jr_why_row(j, r, &w->row[i], e))
			return -EINVAL;
	return jr_why_counts(j, jr_jv_get(j, obj, "user_only"), w, e);
}

/*
 * jr_rdoc_why - each compared CPU's why onto d's CPU of that number; a
 * CPU the primary side lacks (it saw no gap there) keeps none
 */
int jr_rdoc_why(const struct jr_jdoc *j, struct jr_jv compare,
		struct jr_rdoc *d, struct jr_err *e)
{
	struct jr_jv cpus = jr_jv_get(j, compare, "cpus"), c;
	int64_t n;
	size_t i;

	if (!jr_jv_is(j, cpus, JR_JV_ARRAY))
		return jr_wbad(e, "cpus", "missing or not an array");
	for (c = jr_jv_first(j, cpus); jr_jv_present(c); c = jr_jv_next(j, c)) {
		struct jr_rcpu *rc = NULL;

		if (!jr_jv_int(j, jr_jv_get(j, c, "cpu"), &n))
			return jr_wbad(e, "cpu", "not a CPU number");
		for (i = 0; i < d->nr_cpu; i++)
			if (d->cpu[i].cpu == n)
				rc = &d->cpu[i];
		if (!rc || !jr_jv_present(jr_jv_get(j, c, "why")))
			continue;
		if (rc->why)
			return jr_wbad(e, "cpus", "a CPU twice");
		rc->why = calloc(1, sizeof(*rc->why));
		if (!rc->why)
			return jr_fail(e, -ENOMEM, "out of memory");
		if (jr_why_of_json(j, jr_jv_get(j, c, "why"), rc->why, e))
			return -EINVAL;
	}
	return 0;
}
