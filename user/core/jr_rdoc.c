// SPDX-License-Identifier: GPL-2.0
/*
 * jr_rdoc.c - read a JSON report of jitread back (common/jr_jdoc.c).
 *
 * Only what jitread diff compares is kept.  Every member is checked for
 * its type and range: a report edited by hand, cut short or from another
 * program is refused with the member that is wrong.
 */
#include <errno.h>
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
static int jr_u64(const struct jr_jdoc *j, struct jr_jv obj, const char *name,
		  uint64_t *v, struct jr_err *e)
{
	struct jr_jv x = jr_jv_get(j, obj, name);
	int64_t i;

	if (!jr_jv_present(x))
		return jr_bad(e, name, "missing");
	if (!jr_jv_int(j, x, &i) || i < 0)
		return jr_bad(e, name, "not a count");
	*v = (uint64_t)i;
	return 0;
}

/*
 * jr_rdoc_slots - a histogram's [value, count] pairs: no more than a
 * histogram of the report's precision has (max_slots), ascending, adding
 * up to its count.
 */
static int jr_rdoc_slots(const struct jr_jdoc *j, struct jr_jv arr,
			 struct jr_rclass *c, size_t max_slots,
			 struct jr_err *e)
{
	uint64_t prev = 0, sum = 0;
	struct jr_jv s, v, n;
	int64_t value, count;
	size_t i;

	if (!jr_jv_is(j, arr, JR_JV_ARRAY))
		return jr_bad(e, "slots", "not an array");
	i = jr_jv_size(j, arr);
	if (i > max_slots)
		return jr_bad(e, "slots",
			      "more than a histogram of its precision holds");
	if (!i)
		return 0;
	c->slots = calloc(i, sizeof(*c->slots));
	if (!c->slots)
		return jr_fail(e, -ENOMEM, "out of memory");
	c->nr_slots = i;
	s = jr_jv_first(j, arr);
	for (i = 0; i < c->nr_slots; i++, s = jr_jv_next(j, s)) {
		v = jr_jv_first(j, s);
		n = jr_jv_next(j, v);
		if (!jr_jv_is(j, s, JR_JV_ARRAY) || jr_jv_size(j, s) != 2 ||
		    !jr_jv_int(j, v, &value) || !jr_jv_int(j, n, &count) ||
		    value < 0 || count <= 0)
			return jr_bad(e, "slots", "not [value, count] pairs");
		c->slots[i].value = (uint64_t)value;
		c->slots[i].count = (uint64_t)count;
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

static int jr_rdoc_class(const struct jr_jdoc *j, struct jr_jv obj,
			 struct jr_rclass *c, size_t max_slots,
			 struct jr_err *e)
{
	if (!jr_jv_is(j, obj, JR_JV_OBJECT))
		return jr_bad(e, "classes", "a class is not an object");
	if (jr_u64(j, obj, "count", &c->count, e) ||
	    jr_u64(j, obj, "min_ns", &c->min_ns, e) ||
	    jr_u64(j, obj, "max_ns", &c->max_ns, e))
		return -EINVAL;
	if (!jr_jv_num(j, jr_jv_get(j, obj, "mean_ns"), &c->mean_ns))
		return jr_bad(e, "mean_ns", "not a number");
	return jr_rdoc_slots(j, jr_jv_get(j, obj, "slots"), c, max_slots, e);
}

/* jr_rdoc_detail - a source's detail rows (absent in older reports). */
static int jr_rdoc_detail(const struct jr_jdoc *j, struct jr_jv arr,
			  struct jr_rsource *s, struct jr_err *e)
{
	struct jr_jv r;
	size_t i;

	if (!jr_jv_present(arr))
		return 0;
	if (!jr_jv_is(j, arr, JR_JV_ARRAY))
		return jr_bad(e, "detail", "not an array");
	if (jr_jv_size(j, arr) > JR_MAX_DETAIL + 1)
		return jr_bad(e, "detail", "more rows than a source has");
	if (!jr_jv_size(j, arr))
		return 0;
	s->det = calloc(jr_jv_size(j, arr), sizeof(*s->det));
	if (!s->det)
		return jr_fail(e, -ENOMEM, "out of memory");
	s->nr_det = jr_jv_size(j, arr);
	r = jr_jv_first(j, arr);
	for (i = 0; i < s->nr_det; i++, r = jr_jv_next(j, r)) {
		struct jr_jv n = jr_jv_get(j, r, "name");

		if (!jr_jv_is(j, n, JR_JV_STRING))
			return jr_bad(e, "detail", "a row without its name");
		jr_jv_str(j, n, s->det[i].name, sizeof(s->det[i].name));
		if (jr_u64(j, r, "count", &s->det[i].count, e) ||
		    jr_u64(j, r, "total_ns", &s->det[i].total_ns, e))
			return -EINVAL;
	}
	return 0;
}

/* jr_rdoc_more - rate, period and detail, where the report has them. */
static int jr_rdoc_more(const struct jr_jdoc *j, struct jr_jv obj,
			struct jr_rsource *s, struct jr_err *e)
{
	struct jr_jv rate = jr_jv_get(j, obj, "rate_hz");
	struct jr_jv share = jr_jv_get(j, obj, "period_share");

	s->rate_hz = 0;
	s->period_share = 0;
	if (jr_jv_present(rate) &&
	    (!jr_jv_num(j, rate, &s->rate_hz) || s->rate_hz < 0))
		return jr_bad(e, "rate_hz", "not a number >= 0");
	if (jr_jv_present(share) &&
	    (!jr_jv_num(j, share, &s->period_share) || s->period_share < 0 ||
	     s->period_share > 1))
		return jr_bad(e, "period_share", "not a number in 0..1");
	if (jr_jv_present(jr_jv_get(j, obj, "period_ns")) &&
	    jr_u64(j, obj, "period_ns", &s->period_ns, e))
		return -EINVAL;
	return jr_rdoc_detail(j, jr_jv_get(j, obj, "detail"), s, e);
}

/* jr_rdoc_hclass - the class the string v names, <= 0 for none */
static int jr_rdoc_hclass(const struct jr_jdoc *j, struct jr_jv v)
{
	char cls[32];

	return jr_jv_str(j, v, cls, sizeof(cls)) ? -1 : jr_hclass_of(cls);
}

static int jr_rdoc_source(const struct jr_jdoc *j, struct jr_jv obj,
			  struct jr_rsource *s, struct jr_err *e)
{
	struct jr_jv name = jr_jv_get(j, obj, "source");
	struct jr_jv cls = jr_jv_get(j, obj, "class");

	if (!jr_jv_is(j, name, JR_JV_STRING) || !jr_jv_is(j, cls, JR_JV_STRING))
		return jr_bad(e, "sources",
			      "a source without its name or class");
	s->hcls = jr_rdoc_hclass(j, cls);
	if (s->hcls <= 0)
		return jr_bad(e, "sources", "unknown class");
	s->name = jr_jv_strdup(j, name);
	if (!s->name)
		return jr_fail(e, -ENOMEM, "out of memory");
	if (jr_rdoc_more(j, obj, s, e))
		return -EINVAL;
	return jr_u64(j, obj, "count", &s->count, e) ||
			       jr_u64(j, obj, "total_ns", &s->total_ns, e) ||
			       jr_u64(j, obj, "max_ns", &s->max_ns, e) ?
		       -EINVAL :
		       0;
}

static int jr_rdoc_sources(const struct jr_jdoc *j, struct jr_jv arr,
			   struct jr_rcpu *c, struct jr_err *e)
{
	struct jr_jv x;
	size_t i;

	if (!jr_jv_is(j, arr, JR_JV_ARRAY))
		return jr_bad(e, "sources", "not an array");
	if (jr_jv_size(j, arr) > JR_MAX_SOURCES_ALL)
		return jr_bad(e, "sources",
			      "more sources than a CPU's report holds");
	if (!jr_jv_size(j, arr))
		return 0;
	c->src = calloc(jr_jv_size(j, arr), sizeof(*c->src));
	if (!c->src)
		return jr_fail(e, -ENOMEM, "out of memory");
	c->nr_src = jr_jv_size(j, arr);
	x = jr_jv_first(j, arr);
	for (i = 0; i < c->nr_src; i++, x = jr_jv_next(j, x))
		if (jr_rdoc_source(j, x, &c->src[i], e))
			return -EINVAL;
	return 0;
}

static int jr_rgap_cmp(const void *x, const void *y)
{
	const struct jr_rgap *p = x, *q = y;

	return p->ts_ns < q->ts_ns ? -1 : p->ts_ns > q->ts_ns;
}

/* jr_rdoc_timeline - the kept gaps, [ts, dur, class] each; optional. */
static int jr_rdoc_timeline(const struct jr_jdoc *j, struct jr_jv obj,
			    struct jr_rcpu *c, struct jr_err *e)
{
	struct jr_jv gaps = jr_jv_get(j, obj, "gaps"), g, ts, dur, cv;
	const char *raw, *last = NULL;
	size_t i, n, last_n = 0;
	bool sorted = true;
	int64_t t, d;

	if (!jr_jv_present(obj))
		return 0;
	if (!jr_jv_is(j, gaps, JR_JV_ARRAY))
		return jr_bad(e, "timeline", "no gaps array");
	if (jr_jv_size(j, gaps) > JR_TL_MAX)
		return jr_bad(e, "timeline", "more gaps than a report keeps");
	if (!jr_jv_size(j, gaps))
		return 0;
	c->tl = calloc(jr_jv_size(j, gaps), sizeof(*c->tl));
	if (!c->tl)
		return jr_fail(e, -ENOMEM, "out of memory");
	c->nr_tl = jr_jv_size(j, gaps);
	g = jr_jv_first(j, gaps);
	for (i = 0; i < c->nr_tl; i++, g = jr_jv_next(j, g)) {
		ts = jr_jv_first(j, g);
		dur = jr_jv_next(j, ts);
		cv = jr_jv_next(j, dur);
		if (!jr_jv_int(j, ts, &t) || !jr_jv_int(j, dur, &d) || t < 0 ||
		    d < 0 || !jr_jv_is(j, cv, JR_JV_STRING))
			return jr_bad(e, "timeline", "not [ts, dur, class]");
		c->tl[i].ts_ns = (uint64_t)t;
		c->tl[i].dur_ns = (uint64_t)d;
		/* most gaps are of the class before them */
		n = jr_jv_raw(j, cv, &raw);
		if (i && n == last_n && !memcmp(raw, last, n))
			c->tl[i].hcls = c->tl[i - 1].hcls;
		else
			c->tl[i].hcls = jr_rdoc_hclass(j, cv);
		last = raw;
		last_n = n;
		if (c->tl[i].hcls <= 0)
			return jr_bad(e, "timeline", "unknown class");
		sorted = sorted && (!i || c->tl[i - 1].ts_ns <= c->tl[i].ts_ns);
	}
	if (!sorted)
		qsort(c->tl, c->nr_tl, sizeof(*c->tl), jr_rgap_cmp);
	return 0;
}

static int jr_rdoc_cpu1(const struct jr_jdoc *j, struct jr_jv obj,
			struct jr_rcpu *c, size_t max_slots, struct jr_err *e)
{
	struct jr_jv sum = jr_jv_get(j, obj, "summary");
	struct jr_jv cls = jr_jv_get(j, obj, "classes");
	uint64_t folded = 0;
	int64_t cpu;
	int h;

	/* jitread writes no CPU at or above JR_MAX_CPUS: the readers'
	 * arrays, advise's and diff's, are that long */
	if (!jr_jv_int(j, jr_jv_get(j, obj, "cpu"), &cpu) || cpu < 0 ||
	    cpu >= JR_MAX_CPUS)
		return jr_bad(e, "cpu", "not a CPU number below 4096");
	c->cpu = (int)cpu;
	if (!jr_jv_is(j, sum, JR_JV_OBJECT) || !jr_jv_is(j, cls, JR_JV_OBJECT))
		return jr_bad(e, "cpus", "a CPU without summary or classes");
	if (jr_u64(j, sum, "runtime_ns", &c->runtime_ns, e) ||
	    jr_u64(j, sum, "noise_ns", &c->noise_ns, e) ||
	    jr_u64(j, sum, "max_single_ns", &c->max_single_ns, e) ||
	    jr_u64(j, sum, "lost_events", &c->lost_events, e))
		return -EINVAL;
	for (h = 0; h < JR_H_NR; h++) {
		struct jr_jv x = jr_jv_get(j, cls, jr_hclass_name(h));

		if (!jr_jv_present(x))
			return jr_bad(e, jr_hclass_name(h), "class missing");
		if (jr_rdoc_class(j, x, &c->cls[h], max_slots, e))
			return -EINVAL;
	}
	if (jr_jv_present(jr_jv_get(j, obj, "sources_folded")) &&
	    jr_u64(j, obj, "sources_folded", &folded, e))
		return -EINVAL;
	c->sources_folded = folded;
	if (jr_rdoc_timeline(j, jr_jv_get(j, obj, "timeline"), c, e))
		return -EINVAL;
	return jr_rdoc_sources(j, jr_jv_get(j, obj, "sources"), c, e);
}

static int jr_rdoc_cpus(const struct jr_jdoc *j, struct jr_jv arr,
			struct jr_rdoc *d, struct jr_err *e)
{
	struct jr_hist shape;
	struct jr_jv x;
	size_t i;

	if (!jr_jv_is(j, arr, JR_JV_ARRAY))
		return jr_bad(e, "cpus", "missing or not an array");
	if (jr_jv_size(j, arr) > JR_MAX_CPUS)
		return jr_bad(e, "cpus", "more CPUs than jitread reports");
	if (!jr_jv_size(j, arr))
		return 0;
	d->cpu = calloc(jr_jv_size(j, arr), sizeof(*d->cpu));
	if (!d->cpu)
		return jr_fail(e, -ENOMEM, "out of memory");
	d->nr_cpu = jr_jv_size(j, arr);
	jr_hist_init(&shape, d->precision);
	x = jr_jv_first(j, arr);
	for (i = 0; i < d->nr_cpu; i++, x = jr_jv_next(j, x)) {
		if (jr_rdoc_cpu1(j, x, &d->cpu[i], (size_t)shape.nr_counts, e))
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

static int jr_rdoc_system(const struct jr_jdoc *j, struct jr_jv root,
			  struct jr_rdoc *d, struct jr_err *e)
{
	struct jr_jv sys = jr_jv_get(j, root, "system"), t;
	int64_t prec, th;

	if (!jr_jv_is(j, sys, JR_JV_OBJECT))
		return jr_bad(e, "system", "missing");
	d->kernel = jr_jv_strdup(j, jr_jv_get(j, sys, "kernel"));
	d->cmdline = jr_jv_strdup(j, jr_jv_get(j, sys, "cmdline"));
	d->params = jr_jv_strdup(j, jr_jv_get(j, sys, "module_params"));
	d->kernel = d->kernel ?: strdup("");
	d->cmdline = d->cmdline ?: strdup("");
	d->params = d->params ?: strdup("");
	if (!d->kernel || !d->cmdline || !d->params)
		return jr_fail(e, -ENOMEM, "out of memory");
	d->threshold_ns = jr_threshold_of(d->params);
	if (!strcmp(d->side, "attach"))
		d->threshold_ns = 0; /* no sampler, no threshold */
	if (!strcmp(d->side, "user")) {
		t = jr_jv_get(j, jr_jv_get(j, root, "sampler"), "threshold_ns");
		d->threshold_ns = 0;
		if (jr_jv_int(j, t, &th) && th > 0)
			d->threshold_ns = (uint64_t)th;
	}
	if (!jr_jv_int(j, jr_jv_get(j, root, "precision"), &prec) || prec < 1 ||
	    prec > 4)
		return jr_bad(e, "precision", "not 1-4");
	d->precision = (int)prec;
	return 0;
}

static int jr_rdoc_side(const struct jr_jdoc *j, struct jr_jv root,
			struct jr_rdoc *d, struct jr_err *e)
{
	struct jr_jv side = jr_jv_get(j, root, "side");

	if (!jr_jv_streq(j, side, "kernel") && !jr_jv_streq(j, side, "user") &&
	    !jr_jv_streq(j, side, "attach"))
		return jr_bad(e, "side", "not kernel, user or attach");
	jr_jv_str(j, side, d->side, sizeof(d->side));
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
 * jr_rdoc_read - fill d from a report checked into j, whose value root
 * is.  The report's primary side (kernel for hist, report and compare;
 * user for user; attach for attach) is what is read.
 * d is to be freed with jr_rdoc_free() whatever this returns.
 */
int jr_rdoc_read(struct jr_rdoc *d, const struct jr_jdoc *j, struct jr_jv root,
		 struct jr_err *e)
{
	struct jr_jv audit = jr_jv_get(j, root, "audit");
	int64_t ver = 0;
	int ret = -EINVAL;
	const char *raw;
	size_t i, n;

	memset(d, 0, sizeof(*d));
	if (!jr_jv_is(j, root, JR_JV_OBJECT) ||
	    !jr_jv_int(j, jr_jv_get(j, root, "file_version"), &ver))
		jr_bad(e, "file_version", "missing: not a jitread report");
	else if (ver != 2)
		jr_fail(e, -EINVAL, "file_version %lld: jitread reads 2",
			(long long)ver);
	else if (jr_rdoc_side(j, root, d, e) || jr_rdoc_system(j, root, d, e))
		ret = -EINVAL;
	else
		ret = jr_rdoc_cpus(j, jr_jv_get(j, root, "cpus"), d, e);
	for (i = 0; !ret && !strcmp(d->side, "attach") && i < d->nr_cpu; i++)
		ret = jr_rdoc_events_as_gaps(&d->cpu[i], e);
	if (!ret && jr_jv_present(jr_jv_get(j, root, "compare")))
		ret = jr_rdoc_why(j, jr_jv_get(j, root, "compare"), d, e);
	if (!ret && jr_jv_is(j, audit, JR_JV_OBJECT)) {
		n = jr_jv_raw(j, audit, &raw);
		d->audit = strndup(raw, n);
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
	struct jr_jdoc j = { 0 };
	struct jr_jv root;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = jr_jdoc_open(&j, text, len, &root, e);
	if (!ret)
		ret = jr_rdoc_read(d, &j, root, e);
	jr_jdoc_free(&j);
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
