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
static int jr_rate_of(json_t *obj, const char *name, double *v,
		      struct jr_err *e)
{
	json_t *x = json_object_get(obj, name);

	if (!json_is_number(x) || !isfinite(json_number_value(x)) ||
	    json_number_value(x) < 0)
		return jr_wbad(e, name, "not a rate of ns per second");
	*v = json_number_value(x);
	return 0;
}

static int jr_why_row(json_t *obj, struct jr_rwhy_row *r, struct jr_err *e)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const char *name = json_string_value(json_object_get(obj, "name"));

	if (!kind || (strcmp(kind, "class") && strcmp(kind, "source")))
		return jr_wbad(e, "kind", "not class or source");
	if (!name || !name[0] || strlen(name) >= sizeof(r->name))
		return jr_wbad(e, "name", "missing or too long");
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->source = !strcmp(kind, "source");
	return jr_rate_of(obj, "kernel_ns_per_s", &r->ns_per_s[0], e) ||
	       jr_rate_of(obj, "user_ns_per_s", &r->ns_per_s[1], e);
}

/* jr_why_counts - user_only: null, or each count an integer or null */
static int jr_why_counts(json_t *obj, struct jr_rwhy *w, struct jr_err *e)
{
	int i;

	if (!obj || json_is_null(obj))
		return 0;
	if (!json_is_object(obj))
		return jr_wbad(e, "user_only", "not an object");
	w->has_counts = true;
	for (i = 0; i < JR_RW_NR; i++) {
		json_t *x = json_object_get(obj, jr_rwhy_count_names[i]);

		w->count[i] = -1;
		if (json_is_null(x))
			continue;
		if (!json_is_integer(x) || json_integer_value(x) < 0)
			return jr_wbad(e, jr_rwhy_count_names[i],
				       "not a count or null");
		w->count[i] = json_integer_value(x);
	}
	return 0;
}

static int jr_why_of_json(json_t *obj, struct jr_rwhy *w, struct jr_err *e)
{
	json_t *noise = json_object_get(obj, "noise_ns_per_s");
	json_t *rows = json_object_get(obj, "rows");
	size_t i;

	if (!json_is_object(obj) || !json_is_object(noise))
		return jr_wbad(e, "why", "not an object with noise_ns_per_s");
	if (jr_rate_of(noise, "kernel", &w->noise_ns_per_s[0], e) ||
	    jr_rate_of(noise, "user", &w->noise_ns_per_s[1], e))
		return -EINVAL;
	if (!json_is_array(rows) || json_array_size(rows) > JR_RWHY_ROWS)
		return jr_wbad(e, "rows", "not an array of at most 64");
	w->nr = json_array_size(rows);
	for (i = 0; i < w->nr; i++)
		if (jr_why_row(json_array_get(rows, i), &w->row[i], e))
			return -EINVAL;
	return jr_why_counts(json_object_get(obj, "user_only"), w, e);
}

/*
 * jr_rdoc_why - each compared CPU's why onto d's CPU of that number; a
 * CPU the primary side lacks (it saw no gap there) keeps none
 */
int jr_rdoc_why(json_t *compare, struct jr_rdoc *d, struct jr_err *e)
{
	json_t *cpus = json_object_get(compare, "cpus");
	size_t i, j;

	if (!json_is_object(compare) || !json_is_array(cpus))
		return jr_wbad(e, "cpus", "missing or not an array");
	for (i = 0; i < json_array_size(cpus); i++) {
		json_t *c = json_array_get(cpus, i);
		json_t *n = json_object_get(c, "cpu");
		struct jr_rcpu *rc = NULL;

		if (!json_is_integer(n))
			return jr_wbad(e, "cpu", "not a CPU number");
		for (j = 0; j < d->nr_cpu; j++)
			if (d->cpu[j].cpu == json_integer_value(n))
				rc = &d->cpu[j];
		if (!rc || !json_object_get(c, "why"))
			continue;
		if (rc->why)
			return jr_wbad(e, "cpus", "a CPU twice");
		rc->why = calloc(1, sizeof(*rc->why));
		if (!rc->why)
			return jr_fail(e, -ENOMEM, "out of memory");
		if (jr_why_of_json(json_object_get(c, "why"), rc->why, e))
			return -EINVAL;
	}
	return 0;
}
