// SPDX-License-Identifier: GPL-2.0
/*
 * jr_rdoc.c - read a JSON report of jitread back (jansson).
 *
 * Only what jitread diff compares is kept.  Every member is checked for
 * its type and range: a report edited by hand, cut short or from another
 * program is refused with the member that is wrong.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_sys.h"
#include "core/jr_detail.h"
#include "core/jr_hist.h"
#include "core/jr_model.h"
#include "core/jr_rdoc.h"

static int jr_bad(struct jr_err *e, const char *what, const char *why)
{
	return jr_fail(e, -EINVAL, "%s: %s", what, why);
}

/* jr_u64 - obj's member name as a count (a non-negative integer). */
static int jr_u64(json_t *obj, const char *name, uint64_t *v, struct jr_err *e)
{
	json_t *x = json_object_get(obj, name);

	if (!x)
		return jr_bad(e, name, "missing");
	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return jr_bad(e, name, "not a count");
	*v = (uint64_t)json_integer_value(x);
	return 0;
}

/*
 * jr_rdoc_slots - a histogram's [value, count] pairs: no more than a
 * histogram of the report's precision has (max_slots), ascending, adding
 * up to its count.
 */
static int jr_rdoc_slots(json_t *arr, struct jr_rclass *c, size_t max_slots,
			 struct jr_err *e)
{
	uint64_t prev = 0, sum = 0;
	size_t i, n;

	if (!json_is_array(arr))
		return jr_bad(e, "slots", "not an array");
	n = json_array_size(arr);
	if (n > max_slots)
		return jr_bad(e, "slots",
			      "more than a histogram of its precision holds");
	if (!n)
		return 0;
	c->slots = calloc(n, sizeof(*c->slots));
	if (!c->slots)
		return jr_fail(e, -ENOMEM, "out of memory");
	c->nr_slots = n;
	for (i = 0; i < c->nr_slots; i++) {
		json_t *s = json_array_get(arr, i);
		json_t *v = json_array_get(s, 0), *n = json_array_get(s, 1);

		if (!json_is_array(s) || json_array_size(s) != 2 ||
		    !json_is_integer(v) || !json_is_integer(n) ||
		    json_integer_value(v) < 0 || json_integer_value(n) <= 0)
			return jr_bad(e, "slots", "not [value, count] pairs");
		c->slots[i].value = (uint64_t)json_integer_value(v);
		c->slots[i].count = (uint64_t)json_integer_value(n);
		if (i && c->slots[i].value <= prev)
			return jr_bad(e, "slots", "not ascending");
		prev = c->slots[i].value;
		if (sum + c->slots[i].count < sum)
			return jr_bad(e, "slots", "counts overflow");
		sum += c->slots[i].count;
	}
	if (sum != c->count)
		return jr_bad(e, "slots", "do not add up to count");
	return 0;
}

static int jr_rdoc_class(json_t *obj, struct jr_rclass *c, size_t max_slots,
			 struct jr_err *e)
{
	json_t *mean = json_object_get(obj, "mean_ns");

	if (!json_is_object(obj))
		return jr_bad(e, "classes", "a class is not an object");
	if (jr_u64(obj, "count", &c->count, e) ||
	    jr_u64(obj, "min_ns", &c->min_ns, e) ||
	    jr_u64(obj, "max_ns", &c->max_ns, e))
		return -EINVAL;
	if (!json_is_number(mean))
		return jr_bad(e, "mean_ns", "not a number");
	c->mean_ns = json_number_value(mean);
	return jr_rdoc_slots(json_object_get(obj, "slots"), c, max_slots, e);
}

/* jr_rdoc_detail - a source's detail rows (absent in older reports). */
static int jr_rdoc_detail(json_t *arr, struct jr_rsource *s, struct jr_err *e)
{
	size_t i;

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return jr_bad(e, "detail", "not an array");
	if (json_array_size(arr) > JR_MAX_DETAIL + 1)
		return jr_bad(e, "detail", "more rows than a source has");
	if (!json_array_size(arr))
		return 0;
	s->det = calloc(json_array_size(arr), sizeof(*s->det));
	if (!s->det)
		return jr_fail(e, -ENOMEM, "out of memory");
	s->nr_det = json_array_size(arr);
	for (i = 0; i < s->nr_det; i++) {
		json_t *r = json_array_get(arr, i);
		const char *n = json_string_value(json_object_get(r, "name"));

		if (!n)
			return jr_bad(e, "detail", "a row without its name");
		snprintf(s->det[i].name, sizeof(s->det[i].name), "%s", n);
		if (jr_u64(r, "count", &s->det[i].count, e) ||
		    jr_u64(r, "total_ns", &s->det[i].total_ns, e))
			return -EINVAL;
	}
	return 0;
}

/* jr_rdoc_more - rate, period and detail, where the report has them. */
static int jr_rdoc_more(json_t *obj, struct jr_rsource *s, struct jr_err *e)
{
	json_t *rate = json_object_get(obj, "rate_hz");
	json_t *share = json_object_get(obj, "period_share");

	if (rate && (!json_is_number(rate) || json_number_value(rate) < 0))
		return jr_bad(e, "rate_hz", "not a number >= 0");
	if (share && (!json_is_number(share) || json_number_value(share) < 0 ||
		      json_number_value(share) > 1))
		return jr_bad(e, "period_share", "not a number in 0..1");
	s->rate_hz = rate ? json_number_value(rate) : 0;
	s->period_share = share ? json_number_value(share) : 0;
	if (json_object_get(obj, "period_ns") &&
	    jr_u64(obj, "period_ns", &s->period_ns, e))
		return -EINVAL;
	return jr_rdoc_detail(json_object_get(obj, "detail"), s, e);
}

static int jr_rdoc_source(json_t *obj, struct jr_rsource *s, struct jr_err *e)
{
	json_t *name = json_object_get(obj, "source");
	json_t *cls = json_object_get(obj, "class");

	if (!json_is_string(name) || !json_is_string(cls))
		return jr_bad(e, "sources",
			      "a source without its name or class");
	s->hcls = jr_hclass_of(json_string_value(cls));
	if (s->hcls <= 0)
		return jr_bad(e, "sources", "unknown class");
	s->name = strdup(json_string_value(name));
	if (!s->name)
		return jr_fail(e, -ENOMEM, "out of memory");
	if (jr_rdoc_more(obj, s, e))
		return -EINVAL;
	return jr_u64(obj, "count", &s->count, e) ||
			       jr_u64(obj, "total_ns", &s->total_ns, e) ||
			       jr_u64(obj, "max_ns", &s->max_ns, e) ?
		       -EINVAL :
		       0;
}

static int jr_rdoc_sources(json_t *arr, struct jr_rcpu *c, struct jr_err *e)
{
	size_t i;

	if (!json_is_array(arr))
		return jr_bad(e, "sources", "not an array");
	if (json_array_size(arr) > JR_MAX_SOURCES_ALL)
		return jr_bad(e, "sources",
			      "more sources than a CPU's report holds");
	if (!json_array_size(arr))
		return 0;
	c->src = calloc(json_array_size(arr), sizeof(*c->src));
	if (!c->src)
		return jr_fail(e, -ENOMEM, "out of memory");
	c->nr_src = json_array_size(arr);
	for (i = 0; i < c->nr_src; i++)
		if (jr_rdoc_source(json_array_get(arr, i), &c->src[i], e))
			return -EINVAL;
	return 0;
}

static int jr_rgap_cmp(const void *x, const void *y)
{
	const struct jr_rgap *p = x, *q = y;

	return p->ts_ns < q->ts_ns ? -1 : p->ts_ns > q->ts_ns;
}

/* jr_rdoc_timeline - the kept gaps, [ts, dur, class] each; optional. */
static int jr_rdoc_timeline(json_t *obj, struct jr_rcpu *c, struct jr_err *e)
{
	json_t *gaps = json_object_get(obj, "gaps");
	size_t i;

	if (!obj)
		return 0;
	if (!json_is_array(gaps))
		return jr_bad(e, "timeline", "no gaps array");
	if (json_array_size(gaps) > JR_TL_MAX)
		return jr_bad(e, "timeline", "more gaps than a report keeps");
	if (!json_array_size(gaps))
		return 0;
	c->tl = calloc(json_array_size(gaps), sizeof(*c->tl));
	if (!c->tl)
		return jr_fail(e, -ENOMEM, "out of memory");
	c->nr_tl = json_array_size(gaps);
	for (i = 0; i < c->nr_tl; i++) {
		json_t *g = json_array_get(gaps, i);
		json_t *ts = json_array_get(g, 0), *dur = json_array_get(g, 1);
		const char *cls = json_string_value(json_array_get(g, 2));

		if (!json_is_integer(ts) || !json_is_integer(dur) || !cls ||
		    json_integer_value(ts) < 0 || json_integer_value(dur) < 0)
			return jr_bad(e, "timeline", "not [ts, dur, class]");
		c->tl[i].ts_ns = (uint64_t)json_integer_value(ts);
		c->tl[i].dur_ns = (uint64_t)json_integer_value(dur);
		c->tl[i].hcls = jr_hclass_of(cls);
		if (c->tl[i].hcls <= 0)
			return jr_bad(e, "timeline", "unknown class");
	}
	qsort(c->tl, c->nr_tl, sizeof(*c->tl), jr_rgap_cmp);
	return 0;
}

static int jr_rdoc_cpu1(json_t *obj, struct jr_rcpu *c, size_t max_slots,
			struct jr_err *e)
{
	json_t *cpu = json_object_get(obj, "cpu");
	json_t *sum = json_object_get(obj, "summary");
	json_t *cls = json_object_get(obj, "classes");
	uint64_t folded = 0;
	int h;

	/* jitread writes no CPU at or above JR_MAX_CPUS: the readers'
	 * arrays, advise's and diff's, are that long */
	if (!json_is_integer(cpu) || json_integer_value(cpu) < 0 ||
	    json_integer_value(cpu) >= JR_MAX_CPUS)
		return jr_bad(e, "cpu", "not a CPU number below 4096");
	c->cpu = (int)json_integer_value(cpu);
	if (!json_is_object(sum) || !json_is_object(cls))
		return jr_bad(e, "cpus", "a CPU without summary or classes");
	if (jr_u64(sum, "runtime_ns", &c->runtime_ns, e) ||
	    jr_u64(sum, "noise_ns", &c->noise_ns, e) ||
	    jr_u64(sum, "max_single_ns", &c->max_single_ns, e) ||
	    jr_u64(sum, "lost_events", &c->lost_events, e))
		return -EINVAL;
	for (h = 0; h < JR_H_NR; h++) {
		json_t *x = json_object_get(cls, jr_hclass_name(h));

		if (!x)
			return jr_bad(e, jr_hclass_name(h), "class missing");
		if (jr_rdoc_class(x, &c->cls[h], max_slots, e))
			return -EINVAL;
	}
	if (json_object_get(obj, "sources_folded") &&
	    jr_u64(obj, "sources_folded", &folded, e))
		return -EINVAL;
	c->sources_folded = folded;
	if (jr_rdoc_timeline(json_object_get(obj, "timeline"), c, e))
		return -EINVAL;
	return jr_rdoc_sources(json_object_get(obj, "sources"), c, e);
}

static int jr_rdoc_cpus(json_t *arr, struct jr_rdoc *d, struct jr_err *e)
{
	struct jr_hist shape;
	size_t i;

	if (!json_is_array(arr))
		return jr_bad(e, "cpus", "missing or not an array");
	if (json_array_size(arr) > JR_MAX_CPUS)
		return jr_bad(e, "cpus", "more CPUs than jitread reports");
	if (!json_array_size(arr))
		return 0;
	d->cpu = calloc(json_array_size(arr), sizeof(*d->cpu));
	if (!d->cpu)
		return jr_fail(e, -ENOMEM, "out of memory");
	d->nr_cpu = json_array_size(arr);
	jr_hist_init(&shape, d->precision);
	for (i = 0; i < d->nr_cpu; i++) {
		if (jr_rdoc_cpu1(json_array_get(arr, i), &d->cpu[i],
				 (size_t)shape.nr_counts, e))
			return -EINVAL;
		if (i && d->cpu[i].cpu <= d->cpu[i - 1].cpu)
			return jr_bad(e, "cpus", "not ascending");
	}
	return 0;
}

/* jr_threshold_of - threshold_ns=N in jitmod's parameter line, or 0. */
static uint64_t jr_threshold_of(const char *params)
{
	char v[32];

	return jr_param_value(params, "threshold_ns", v, sizeof(v)) ?
		       strtoull(v, NULL, 10) :
		       0;
}

static int jr_rdoc_system(json_t *root, struct jr_rdoc *d, struct jr_err *e)
{
	json_t *sys = json_object_get(root, "system");
	json_t *prec = json_object_get(root, "precision");

	if (!json_is_object(sys))
		return jr_bad(e, "system", "missing");
	d->kernel =
		strdup(json_string_value(json_object_get(sys, "kernel")) ?: "");
	d->cmdline = strdup(
		json_string_value(json_object_get(sys, "cmdline")) ?: "");
	d->params = strdup(
		json_string_value(json_object_get(sys, "module_params")) ?: "");
	if (!d->kernel || !d->cmdline || !d->params)
		return jr_fail(e, -ENOMEM, "out of memory");
	d->threshold_ns = jr_threshold_of(
		json_string_value(json_object_get(sys, "module_params")));
	if (!strcmp(d->side, "attach"))
		d->threshold_ns = 0; /* no sampler, no threshold */
	if (!strcmp(d->side, "user")) {
		json_t *t = json_object_get(json_object_get(root, "sampler"),
					    "threshold_ns");

		d->threshold_ns = 0;
		if (json_is_integer(t) && json_integer_value(t) > 0)
			d->threshold_ns = (uint64_t)json_integer_value(t);
	}
	if (!json_is_integer(prec) || json_integer_value(prec) < 1 ||
	    json_integer_value(prec) > 4)
		return jr_bad(e, "precision", "not 1-4");
	d->precision = (int)json_integer_value(prec);
	return 0;
}

static int jr_rdoc_side(json_t *root, struct jr_rdoc *d, struct jr_err *e)
{
	const char *side = json_string_value(json_object_get(root, "side"));

	if (!side || (strcmp(side, "kernel") && strcmp(side, "user") &&
		      strcmp(side, "attach")))
		return jr_bad(e, "side", "not kernel, user or attach");
	snprintf(d->side, sizeof(d->side), "%s", side);
	return 0;
}

static int jr_rslot_cmp(const void *x, const void *y)
{
	const struct jr_rslot *a = x, *b = y;

	return (a->value > b->value) - (a->value < b->value);
}

/*
 * jr_rdoc_events_as_gaps - an attach report has no gaps: each of its
 * events is one delay of a target thread, so its irq to thread classes,
 * merged, stand in for the gap class that diff and advise read.
 */
static int jr_rdoc_events_as_gaps(struct jr_rcpu *c, struct jr_err *e)
{
	struct jr_rclass *g = &c->cls[JR_H_GAP];
	size_t n = 0, i, k, out = 0;
	struct jr_rslot *all;
	double sum = 0;
	int h;

	for (h = JR_H_IRQ; h <= JR_H_THREAD; h++)
		n += c->cls[h].nr_slots;
	all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return jr_fail(e, -ENOMEM, "out of memory");
	free(g->slots);
	memset(g, 0, sizeof(*g));
	for (h = JR_H_IRQ, k = 0; h <= JR_H_THREAD; h++) {
		const struct jr_rclass *x = &c->cls[h];

		for (i = 0; i < x->nr_slots; i++)
			all[k++] = x->slots[i];
		if (!x->count)
			continue;
		if (!g->count || x->min_ns < g->min_ns)
			g->min_ns = x->min_ns;
		if (x->max_ns > g->max_ns)
			g->max_ns = x->max_ns;
		g->count += x->count;
		sum += x->mean_ns * (double)x->count;
	}
	qsort(all, n, sizeof(*all), jr_rslot_cmp);
	for (i = 0; i < n; i++) {
		if (out && all[out - 1].value == all[i].value)
			all[out - 1].count += all[i].count;
		else
			all[out++] = all[i];
	}
	g->slots = all;
	g->nr_slots = out;
	g->mean_ns = g->count ? sum / (double)g->count : 0;
	return 0;
}

/*
 * jr_rdoc_json - a report's text as JSON, duplicate keys refused; NULL
 * with e set if it is not.  The caller json_decref()s it.
 */
json_t *jr_rdoc_json(const char *text, size_t len, struct jr_err *e)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);

	if (!root)
		jr_fail(e, -EINVAL, "not JSON: line %d: %s", je.line, je.text);
	return root;
}

/*
 * jr_rdoc_read - fill d from a report's JSON, root, which the caller
 * keeps.  The report's primary side (kernel for hist, report and
 * compare; user for user; attach for attach) is what is read.
 * d is to be freed with jr_rdoc_free() whatever this returns.
 */
int jr_rdoc_read(struct jr_rdoc *d, json_t *root, struct jr_err *e)
{
	json_t *ver = json_object_get(root, "file_version");
	int ret = -EINVAL;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!json_is_object(root) || !json_is_integer(ver))
		jr_bad(e, "file_version", "missing: not a jitread report");
	else if (json_integer_value(ver) != 2)
		jr_fail(e, -EINVAL, "file_version %lld: jitread reads 2",
			(long long)json_integer_value(ver));
	else if (jr_rdoc_side(root, d, e) || jr_rdoc_system(root, d, e))
		ret = -EINVAL;
	else
		ret = jr_rdoc_cpus(json_object_get(root, "cpus"), d, e);
	for (i = 0; !ret && !strcmp(d->side, "attach") && i < d->nr_cpu; i++)
		ret = jr_rdoc_events_as_gaps(&d->cpu[i], e);
	if (!ret && json_object_get(root, "compare"))
		ret = jr_rdoc_why(json_object_get(root, "compare"), d, e);
	if (!ret && json_is_object(json_object_get(root, "audit"))) {
		d->audit = json_dumps(json_object_get(root, "audit"), 0);
		if (!d->audit)
			ret = jr_fail(e, -ENOMEM, "out of memory");
	}
	return ret;
}

/*
 * jr_rdoc_parse - fill d from a report's text, as jr_rdoc_read().
 * d is to be freed with jr_rdoc_free() whatever this returns.
 */
int jr_rdoc_parse(struct jr_rdoc *d, const char *text, size_t len,
		  struct jr_err *e)
{
	json_t *root;
	int ret;

	memset(d, 0, sizeof(*d));
	root = jr_rdoc_json(text, len, e);
	if (!root)
		return -EINVAL;
	ret = jr_rdoc_read(d, root, e);
	json_decref(root);
	return ret;
}

/* jr_rdoc_load - read and parse the report at path (a regular file). */
int jr_rdoc_load(struct jr_rdoc *d, const char *path, struct jr_err *e)
{
	size_t len = 0;
	char *text;
	int ret;

	memset(d, 0, sizeof(*d));
	text = jr_read_file(path, JR_RDOC_MAX_BYTES, &len, e);
	if (!text)
		return -EINVAL;
	ret = jr_rdoc_parse(d, text, len, e);
	free(text);
	d->path = path;
	return ret;
}

void jr_rdoc_free(struct jr_rdoc *d)
{
	size_t i, j;
	int h;

	for (i = 0; i < d->nr_cpu; i++) {
		for (h = 0; h < JR_H_NR; h++)
			free(d->cpu[i].cls[h].slots);
		for (j = 0; j < d->cpu[i].nr_src; j++) {
			free(d->cpu[i].src[j].name);
			free(d->cpu[i].src[j].det);
		}
		free(d->cpu[i].src);
		free(d->cpu[i].tl);
		free(d->cpu[i].why);
	}
	free(d->cpu);
	free(d->kernel);
	free(d->cmdline);
	free(d->params);
	free(d->audit);
	memset(d, 0, sizeof(*d));
}

/* jr_rdoc_cpu - the CPU's data, or NULL when the report has none. */
const struct jr_rcpu *jr_rdoc_cpu(const struct jr_rdoc *d, int cpu)
{
	size_t i;

	for (i = 0; i < d->nr_cpu; i++)
		if (d->cpu[i].cpu == cpu)
			return &d->cpu[i];
	return NULL;
}
