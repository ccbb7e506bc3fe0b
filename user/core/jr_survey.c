// SPDX-License-Identifier: GPL-2.0
/*
 * jr_survey.c - jitread survey's fleet report on rank 0: the ranks'
 * reports read and merged as they come (see jr_survey.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/jr_report.h"
#include "core/jr_survey.h"

int jr_survey_init(struct jr_survey *s, int nr, const char *mode, int precision)
{
	uint32_t why;
	int h, i;

	memset(s, 0, sizeof(*s));
	snprintf(s->mode, sizeof(s->mode), "%s", mode);
	s->precision = precision;
	s->r = calloc(nr, sizeof(*s->r));
	if (!s->r || jr_strtab_put(&s->names, "no report came", &why)) {
		jr_strtab_free(&s->names);
		free(s->r);
		s->r = NULL;
		return -ENOMEM;
	}
	if (jr_spool_open(&s->spool)) {
		jr_strtab_free(&s->names);
		free(s->r);
		s->r = NULL;
		return -EIO;
	}
	s->nr = nr;
	for (i = 0; i < nr; i++) {
		s->r[i].cpu = -1;
		s->r[i].rtt_ns = -1;
		s->r[i].why = why;
	}
	for (h = 0; h < JR_H_NR; h++)
		jr_hist_init(&s->fleet[h], precision);
	s->bsp_worst_rank = -1;
	return 0;
}

void jr_survey_free(struct jr_survey *s)
{
	int h;

	jr_spool_close(&s->spool);
	jr_jdoc_free(&s->jdoc);
	for (h = 0; h < JR_H_NR; h++)
		jr_hist_free(&s->fleet[h]);
	jr_strtab_free(&s->names);
	free(s->r);
	s->r = NULL;
}

/* jr_survey_missing - why rank sent no report: its reason, or none */
void jr_survey_missing(struct jr_survey *s, int rank, const char *why)
{
	char text[128];

	snprintf(text, sizeof(text), "%s", why);
	if (jr_strtab_put(&s->names, text, &s->r[rank].why))
		s->r[rank].why = 0;
}

/* jr_survey_cold - what the spool keeps of rank r, which reported */
int jr_survey_cold(const struct jr_survey *s, const struct jr_srank *r,
		   struct jr_scold *c)
{
	memset(c, 0, sizeof(*c));
	if (!r->ok)
		return -ENOENT;
	return jr_spool_get(&s->spool, r->cold_at, c, sizeof(*c));
}

/* jr_add_slots - a report's class into h, slot for slot */
static int jr_add_slots(struct jr_hist *h, const struct jr_rclass *c)
{
	size_t i;
	int ret;

	for (i = 0; i < c->nr_slots; i++) {
		ret = jr_hist_record_n(h, c->slots[i].value, c->slots[i].count);
		if (ret)
			return ret;
	}
	if (c->count && c->min_ns < h->min)
		h->min = c->min_ns;
	return 0;
}

struct jr_named {
	char name[64];
	uint64_t total_ns;
};

static int jr_named_cmp(const void *a, const void *b)
{
	const struct jr_named *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * jr_top_sources - the CPU's largest sources by total, a thread by its
 * comm: its pids summed, as a fleet compares them
 */
static int jr_top_sources(struct jr_survey *s, struct jr_srank *r,
			  const struct jr_rcpu *c)
{
	struct jr_named *v = calloc(c->nr_src ? c->nr_src : 1, sizeof(*v));
	size_t i, j, n = 0;
	char *b;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < c->nr_src; i++) {
		snprintf(v[n].name, sizeof(v[n].name), "%s", c->src[i].name);
		b = strrchr(v[n].name, '[');
		if (!strncmp(v[n].name, "thread:", 7) && b)
			*b = '\0';
		for (j = 0; j < n && strcmp(v[j].name, v[n].name); j++)
			;
		v[j].total_ns += c->src[i].total_ns;
		n += j == n;
	}
	qsort(v, n, sizeof(*v), jr_named_cmp);
	for (i = 0; i < n && i < JR_SURVEY_TOP_SRC; i++)
		if (jr_strtab_put(&s->names, v[i].name, &r->top[i]))
			break;
	free(v);
	return i < n && i < JR_SURVEY_TOP_SRC ? -ENOMEM : 0;
}

/* jr_sv_u64 - the survey member's field as a non-negative integer */
static int jr_sv_u64(const struct jr_jdoc *j, struct jr_jv sv, const char *name,
		     uint64_t *v, struct jr_err *e)
{
	struct jr_jv x = jr_jv_get(j, sv, name);
	int64_t i;

	*v = 0;
	if (!jr_jv_present(x))
		return 0;
	if (!jr_jv_int(j, x, &i) || i < 0)
		return jr_fail(e, -EINVAL, "survey: %s: not a count", name);
	*v = (uint64_t)i;
	return 0;
}

/* jr_spool_windows - fwq: a rank's windows_ns, checked, into the spool */
static int jr_spool_windows(struct jr_survey *s, struct jr_scold *r,
			    const struct jr_jdoc *j, struct jr_jv w,
			    struct jr_err *e)
{
	size_t i, k, nw = jr_jv_size(j, w);
	uint64_t v[JR_SURVEY_CHUNK], at;
	struct jr_jv x = jr_jv_first(j, w);
	int64_t n;

	if (nw > JR_SURVEY_MAX_QUANTA)
		return jr_fail(
			e, -EINVAL,
			"survey: windows_ns: more windows than quanta a rank times");
	r->win_at = s->spool.end;
	for (i = 0; i < nw; i += k) {
		for (k = 0; k < JR_SURVEY_CHUNK && i + k < nw; k++) {
			if (!jr_jv_int(j, x, &n) || n < 0)
				return jr_fail(
					e, -EINVAL,
					"survey: windows_ns: not durations");
			v[k] = (uint64_t)n;
			x = jr_jv_next(j, x);
		}
		if (jr_spool_put(&s->spool, v, k * sizeof(*v), &at))
			return jr_fail(e, -EIO,
				       "survey: cannot spool its windows");
	}
	r->nr_win = nw;
	return 0;
}

/*
 * jr_survey_meta - the report's "survey" member: who sent it, and each
 * number the merge will index or loop by, within what a rank writes.
 */
static int jr_survey_meta(struct jr_survey *s, struct jr_srank *r,
			  struct jr_scold *c, const struct jr_jdoc *j,
			  struct jr_jv root, struct jr_err *e)
{
	struct jr_jv sv = jr_jv_get(j, root, "survey");
	struct jr_jv host = jr_jv_get(j, sv, "host");
	char name[64], backend[8];
	uint64_t cpu;

	if (!jr_jv_is(j, host, JR_JV_STRING) ||
	    !jr_jv_present(jr_jv_get(j, sv, "cpu")))
		return jr_fail(e, -EINVAL,
			       "no survey member naming host and cpu");
	if (jr_sv_u64(j, sv, "cpu", &cpu, e) ||
	    jr_sv_u64(j, sv, "t0_ns", &c->t0_ns, e) ||
	    jr_sv_u64(j, sv, "quantum_ns", &c->quantum_ns, e) ||
	    jr_sv_u64(j, sv, "quanta", &c->quanta, e))
		return -EINVAL;
	if (cpu >= JR_MAX_CPUS)
		return jr_fail(e, -EINVAL,
			       "survey: cpu: not a CPU number below %d",
			       JR_MAX_CPUS);
	jr_jv_str(j, host, name, sizeof(name));
	if (jr_jv_str(j, jr_jv_get(j, sv, "backend"), backend,
		      sizeof(backend)) == -EINVAL)
		snprintf(backend, sizeof(backend), "user");
	if (jr_strtab_put(&s->names, name, &r->host) ||
	    jr_strtab_put(&s->names, backend, &r->backend))
		return jr_fail(e, -ENOMEM, "out of memory");
	r->cpu = (int)cpu;
	return jr_spool_windows(s, c, j, jr_jv_get(j, sv, "windows_ns"), e);
}

/*
 * jr_spool_gaps - the CPU's gap histogram (whose figures r keeps) as
 * JSON, and its timeline, into the spool
 */
static int jr_spool_gaps(struct jr_survey *s, struct jr_srank *hot,
			 struct jr_scold *r, const struct jr_rcpu *c)
{
	struct jr_sgap g[JR_SURVEY_CHUNK];
	struct jr_hist h;
	char *text = NULL;
	size_t i, k, len = 0;
	uint64_t at;
	FILE *f;
	int ret;

	jr_hist_init(&h, s->precision);
	ret = jr_add_slots(&h, &c->cls[JR_H_GAP]);
	f = ret ? NULL : open_memstream(&text, &len);
	if (!ret && !f)
		ret = -ENOMEM;
	if (!ret) {
		r->gaps = h.count;
		r->p99_ns = jr_hist_percentile(&h, 99.0);
		r->p9999_ns = jr_hist_percentile(&h, 99.99);
		hot->max_ns = h.count ? h.max : 0;
		jr_json_hist(f, &h);
		ret = fclose(f) ? -ENOMEM : 0;
	}
	jr_hist_free(&h);
	if (!ret)
		ret = jr_spool_put(&s->spool, text, len, &r->hist_at);
	r->hist_len = len;
	free(text);
	r->tl_at = s->spool.end;
	for (i = 0; !ret && i < c->nr_tl; i += k) {
		for (k = 0; k < JR_SURVEY_CHUNK && i + k < c->nr_tl; k++) {
			g[k].ts_ns = c->tl[i + k].ts_ns;
			g[k].dur_ns = c->tl[i + k].dur_ns;
		}
		ret = jr_spool_put(&s->spool, g, k * sizeof(*g), &at);
	}
	r->nr_tl = c->nr_tl;
	if (c->nr_tl) {
		r->tl_first = c->tl[0].ts_ns;
		r->tl_last = c->tl[c->nr_tl - 1].ts_ns;
	}
	return ret;
}

/*
 * jr_survey_add - rank's report, parsed once, merged into the fleet's
 * and let go: what is kept of it is its struct jr_srank and its part of
 * the spool
 */
int jr_survey_add(struct jr_survey *s, int rank, const char *json, size_t len,
		  struct jr_err *e)
{
	struct jr_srank *r = &s->r[rank];
	const struct jr_rcpu *c;
	struct jr_scold cold;
	struct jr_rdoc doc;
	struct jr_jv root;
	int h, ret;

	if (r->ok)
		return jr_fail(e, -EEXIST, "a second report from rank %d",
			       rank);
	memset(&doc, 0, sizeof(doc));
	memset(&cold, 0, sizeof(cold));
	ret = jr_jdoc_open(&s->jdoc, json, len, &root, e);
	if (!ret)
		ret = jr_rdoc_read(&doc, &s->jdoc, root, e);
	if (!ret)
		ret = jr_survey_meta(s, r, &cold, &s->jdoc, root, e);
	if (!ret && doc.precision != s->precision)
		ret = jr_fail(e, -EINVAL, "precision %d, not the survey's %d",
			      doc.precision, s->precision);
	c = ret ? NULL : jr_rdoc_cpu(&doc, r->cpu);
	if (!ret && !c)
		ret = jr_fail(e, -EINVAL, "no report of its CPU %d", r->cpu);
	if (ret)
		goto out;
	r->runtime_ns = c->runtime_ns;
	r->noise_ns = c->noise_ns;
	r->noise_share = c->runtime_ns ? (double)c->noise_ns / c->runtime_ns :
					 0;
	ret = jr_top_sources(s, r, c);
	if (!ret)
		ret = jr_spool_gaps(s, r, &cold, c);
	if (!ret)
		ret = jr_spool_put(&s->spool, &cold, sizeof(cold), &r->cold_at);
	if (ret) {
		ret = jr_fail(e, ret, "cannot keep its gaps: %s",
			      strerror(-ret));
		goto out;
	}
	for (h = 0; !ret && h < JR_H_NR; h++) {
		ret = jr_add_slots(&s->fleet[h], &c->cls[h]);
		s->sum_counts[h] += c->cls[h].count;
	}
	if (ret)
		ret = jr_fail(e, ret, "out of memory");
	r->ok = !ret;
out:
	jr_rdoc_free(&doc);
	return ret;
}
