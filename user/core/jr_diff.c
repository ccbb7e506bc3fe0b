// SPDX-License-Identifier: GPL-2.0
/*
 * jr_diff.c - compare two reports CPU by CPU (see jr_diff.h for the rule).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_parse.h"
#include "core/jr_diff.h"
#include "core/jr_disp.h"

const char *jr_dverdict_name(enum jr_dverdict v)
{
	static const char *const names[] = { "unchanged", "better", "worse",
					     "not judged" };

	return names[v];
}

/* jr_rate - n per second of runtime. */
double jr_rate(uint64_t n, uint64_t runtime_ns)
{
	return runtime_ns ? (double)n * 1e9 / (double)runtime_ns : 0.0;
}

/* jr_rclass_percentile - as jr_hist_percentile(), from a report's slots. */
uint64_t jr_rclass_percentile(const struct jr_rclass *c, double pct)
{
	uint64_t want, seen = 0, v = c->max_ns;
	size_t i;

	if (!c->count)
		return 0;
	if (pct >= 100.0)
		return c->max_ns;
	want = (uint64_t)ceil(pct / 100.0 * (double)c->count);
	if (want < 1)
		want = 1;
	for (i = 0; i < c->nr_slots; i++) {
		seen += c->slots[i].count;
		if (seen >= want) {
			v = c->slots[i].value;
			break;
		}
	}
	if (v > c->max_ns)
		v = c->max_ns;
	return v < c->min_ns ? c->min_ns : v;
}

/* jr_above - gaps whose slot lies above level. */
static uint64_t jr_above(const struct jr_rclass *c, uint64_t level)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < c->nr_slots; i++)
		if (c->slots[i].value > level)
			n += c->slots[i].count;
	return n;
}

/*
 * jr_sums - the sum of the gaps at or above floor, and of their squares
 * (in s^2: the variance of the noise total, as a compound Poisson sum).
 */
static void jr_sums(const struct jr_rclass *c, uint64_t floor, double *sum,
		    double *sq)
{
	size_t i;

	*sum = 0;
	*sq = 0;
	for (i = 0; i < c->nr_slots; i++) {
		double v = (double)c->slots[i].value / 1e9;

		if (c->slots[i].value < floor)
			continue;
		*sum += (double)c->slots[i].count * v;
		*sq += (double)c->slots[i].count * v * v;
	}
}

/*
 * jr_crit - the |z| from which a change counts: JR_DIFF_Z, or Student's t
 * at the same level when a dispersion was estimated (the fewer degrees
 * of freedom of the two; Cornish-Fisher's expansion to 1/dof^3).
 */
static double jr_crit(struct jr_disp a, struct jr_disp b)
{
	double z = JR_DIFF_Z, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
	int dof = a.dof && (!b.dof || a.dof < b.dof) ? a.dof : b.dof;
	double n = dof;

	if (!dof)
		return z;
	return z + (z3 + z) / (4 * n) +
	       (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n);
}

/*
 * jr_judge - the verdict on a change from a to b of z standard errors,
 * where less is better.
 */
static enum jr_dverdict jr_judge(double a, double b, double z, double crit,
				 double min)
{
	if (z >= crit && b > a * (1 + min))
		return JR_DV_WORSE;
	if (z <= -crit && b < a * (1 - min))
		return JR_DV_BETTER;
	return JR_DV_SAME;
}

/*
 * jr_poisson_z - rate nb/tb against na/ta, in standard errors: the pooled
 * rate's Poisson variance, each side's widened by its dispersion.
 */
static double jr_poisson_z(uint64_t na, uint64_t ta, double da, uint64_t nb,
			   uint64_t tb, double db)
{
	double sa = (double)ta / 1e9, sb = (double)tb / 1e9;
	double pool = (double)(na + nb) / (sa + sb);

	if (!pool)
		return 0;
	return ((double)nb / sb - (double)na / sa) /
	       sqrt(pool * (da / sa + db / sb));
}

/*
 * jr_measure_noise - the share of runtime lost to noise: the summaries'
 * when both runs had one threshold, else the gaps from the floor up.
 */
static void jr_measure_noise(struct jr_dcpu *c, const struct jr_diff *d)
{
	const struct jr_rcpu *a = c->a, *b = c->b;
	double ta = (double)a->runtime_ns / 1e9,
	       tb = (double)b->runtime_ns / 1e9;
	uint64_t floor = d->noise_from_slots ? d->floor_ns : 0;
	struct jr_dmeasure *m = &c->m[c->nr_m++];
	double suma, sumb, sqa, sqb, sd;
	struct jr_disp da, db;

	jr_sums(&a->cls[JR_H_GAP], floor, &suma, &sqa);
	jr_sums(&b->cls[JR_H_GAP], floor, &sumb, &sqb);
	if (!d->noise_from_slots) {
		suma = (double)a->noise_ns / 1e9;
		sumb = (double)b->noise_ns / 1e9;
	}
	da = jr_disp_total(a, floor);
	db = jr_disp_total(b, floor);
	m->disp_a = da.phi;
	m->disp_b = db.phi;
	m->crit = jr_crit(da, db);
	sd = sqrt(m->disp_a * sqa / (ta * ta) + m->disp_b * sqb / (tb * tb));
	m->level_ns = 0;
	m->a = suma / ta;
	m->b = sumb / tb;
	m->z = sd > 0 ? (m->b - m->a) / sd : 0;
	m->verdict = jr_judge(m->a, m->b, m->z, m->crit, d->min_change);
}

/* jr_next_level - the 1-2-5 ladder's next step above v. */
static uint64_t jr_next_level(uint64_t v)
{
	uint64_t p = 1;

	while (p * 10 <= v)
		p *= 10;
	if (v < 2 * p)
		return 2 * p;
	if (v < 5 * p)
		return 5 * p;
	return 10 * p;
}

static void jr_measure_levels(struct jr_dcpu *c, uint64_t floor_ns, double min)
{
	const struct jr_rclass *a = &c->a->cls[JR_H_GAP],
			       *b = &c->b->cls[JR_H_GAP];
	uint64_t top = a->max_ns > b->max_ns ? a->max_ns : b->max_ns;
	uint64_t level = floor_ns;

	while (level < top && c->nr_m < JR_DIFF_MAX_MEASURES) {
		struct jr_dmeasure *m = &c->m[c->nr_m++];
		uint64_t na = jr_above(a, level), nb = jr_above(b, level);
		struct jr_disp da = jr_disp_count(c->a, level, 0);
		struct jr_disp db = jr_disp_count(c->b, level, 0);

		m->level_ns = level;
		m->a = jr_rate(na, c->a->runtime_ns);
		m->b = jr_rate(nb, c->b->runtime_ns);
		m->disp_a = da.phi;
		m->disp_b = db.phi;
		m->crit = jr_crit(da, db);
		m->z = jr_poisson_z(na, c->a->runtime_ns, m->disp_a, nb,
				    c->b->runtime_ns, m->disp_b);
		m->verdict = jr_judge(m->a, m->b, m->z, m->crit, min);
		level = jr_next_level(level);
	}
}

static int jr_dsource_cmp(const void *x, const void *y)
{
	const struct jr_dsource *p = x, *q = y;
	double dp = fabs(p->time_b - p->time_a),
	       dq = fabs(q->time_b - q->time_a);

	if (dp != dq)
		return dp < dq ? 1 : -1;
	return strcmp(p->name, q->name);
}

static struct jr_dsource *jr_dsource_of(struct jr_dsource *s, size_t n,
					const struct jr_rsource *r)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].hcls == r->hcls && !strcmp(s[i].name, r->name))
			return &s[i];
	s[n].name = r->name;
	s[n].hcls = r->hcls;
	return NULL;
}

/*
 * jr_diff_sources - every source of either run.  A source's dispersion is
 * that of its class's gaps.
 */
static int jr_diff_sources(struct jr_dcpu *c, double min)
{
	const struct jr_rcpu *a = c->a, *b = c->b;
	struct jr_disp da[JR_H_NR], db[JR_H_NR];
	size_t i, n = 0;
	int h;

	c->src = calloc(a->nr_src + b->nr_src + 1, sizeof(*c->src));
	if (!c->src)
		return -ENOMEM;
	for (i = 0; i < a->nr_src; i++) {
		struct jr_dsource *s = jr_dsource_of(c->src, n, &a->src[i]);

		if (!s)
			s = &c->src[n++];
		s->count_a += a->src[i].count;
		s->total_a += a->src[i].total_ns;
	}
	for (i = 0; i < b->nr_src; i++) {
		struct jr_dsource *s = jr_dsource_of(c->src, n, &b->src[i]);

		if (!s)
			s = &c->src[n++];
		s->count_b += b->src[i].count;
		s->total_b += b->src[i].total_ns;
	}
	for (h = 1; h < JR_H_NR; h++) {
		da[h] = jr_disp_count(a, 0, h);
		db[h] = jr_disp_count(b, 0, h);
	}
	for (i = 0; i < n; i++) {
		struct jr_dsource *s = &c->src[i];

		s->time_a = jr_rate(s->total_a, a->runtime_ns);
		s->time_b = jr_rate(s->total_b, b->runtime_ns);
		s->z = jr_poisson_z(s->count_a, a->runtime_ns, da[s->hcls].phi,
				    s->count_b, b->runtime_ns, db[s->hcls].phi);
		s->verdict = jr_judge(jr_rate(s->count_a, a->runtime_ns),
				      jr_rate(s->count_b, b->runtime_ns), s->z,
				      jr_crit(da[s->hcls], db[s->hcls]), min);
	}
	qsort(c->src, n, sizeof(*c->src), jr_dsource_cmp);
	c->nr_src = n;
	return 0;
}

/* jr_fold - the verdict of several: worse wins, then better. */
static enum jr_dverdict jr_fold(enum jr_dverdict all, enum jr_dverdict v)
{
	if (v == JR_DV_UNJUDGED)
		return all;
	if (all == JR_DV_UNJUDGED)
		return v;
	if (all == JR_DV_WORSE || v == JR_DV_WORSE)
		return JR_DV_WORSE;
	if (all == JR_DV_BETTER || v == JR_DV_BETTER)
		return JR_DV_BETTER;
	return JR_DV_SAME;
}

static int jr_diff_cpu(struct jr_diff *d, struct jr_dcpu *c)
{
	int i;

	c->verdict = JR_DV_UNJUDGED;
	if (!c->a->runtime_ns || !c->b->runtime_ns) {
		c->unjudged = !c->a->runtime_ns ? "no summary in A" :
						  "no summary in B";
		return 0;
	}
	if (c->a->lost_events || c->b->lost_events) {
		c->unjudged = "events were lost";
		return jr_diff_sources(c, d->min_change);
	}
	jr_measure_noise(c, d);
	jr_measure_levels(c, d->floor_ns, d->min_change);
	c->verdict = JR_DV_UNJUDGED;
	for (i = 0; i < c->nr_m; i++)
		c->verdict = jr_fold(c->verdict, c->m[i].verdict);
	return jr_diff_sources(c, d->min_change);
}

/*
 * jr_floor - the lowest level both runs saw every gap above: the higher
 * of the two thresholds, or without them the higher smallest gap.
 */
static uint64_t jr_floor(const struct jr_diff *d)
{
	uint64_t f = d->a->threshold_ns > d->b->threshold_ns ?
			     d->a->threshold_ns :
			     d->b->threshold_ns;
	int i;

	if (f)
		return f;
	for (i = 0; i < d->nr_cpu; i++) {
		const struct jr_dcpu *c = &d->cpu[i];

		if (c->a->cls[JR_H_GAP].min_ns > f)
			f = c->a->cls[JR_H_GAP].min_ns;
		if (c->b->cls[JR_H_GAP].min_ns > f)
			f = c->b->cls[JR_H_GAP].min_ns;
	}
	return f ? f : 1;
}

static bool jr_wanted(const unsigned char *want, int cpu)
{
	return !want || (cpu < JR_MAX_CPUS && want[cpu]);
}

static void jr_diff_only(const struct jr_rdoc *x, const struct jr_rdoc *y,
			 const unsigned char *want, int *only, int *nr)
{
	size_t i;

	for (i = 0; i < x->nr_cpu; i++)
		if (jr_wanted(want, x->cpu[i].cpu) &&
		    !jr_rdoc_cpu(y, x->cpu[i].cpu) && (*nr)++ < 16)
			only[*nr - 1] = x->cpu[i].cpu;
}

/*
 * jr_diff_run - compare a (before) with b (after) on the CPUs in both and
 * in want (NULL: all).  0, or -ENOMEM.
 */
int jr_diff_run(struct jr_diff *d, const struct jr_rdoc *a,
		const struct jr_rdoc *b, const unsigned char *want,
		double min_change)
{
	size_t i;
	int k;

	memset(d, 0, sizeof(*d));
	d->a = a;
	d->b = b;
	d->min_change = min_change;
	d->cpu = calloc(a->nr_cpu + 1, sizeof(*d->cpu));
	if (!d->cpu)
		return -ENOMEM;
	for (i = 0; i < a->nr_cpu; i++) {
		const struct jr_rcpu *y = jr_rdoc_cpu(b, a->cpu[i].cpu);

		if (!y || !jr_wanted(want, a->cpu[i].cpu))
			continue;
		d->cpu[d->nr_cpu].cpu = a->cpu[i].cpu;
		d->cpu[d->nr_cpu].a = &a->cpu[i];
		d->cpu[d->nr_cpu++].b = y;
	}
	jr_diff_only(a, b, want, d->only_a, &d->nr_only_a);
	jr_diff_only(b, a, want, d->only_b, &d->nr_only_b);
	d->floor_ns = jr_floor(d);
	d->noise_from_slots = a->threshold_ns != b->threshold_ns ||
			      !a->threshold_ns;
	d->verdict = JR_DV_UNJUDGED;
	for (k = 0; k < d->nr_cpu; k++) {
		if (jr_diff_cpu(d, &d->cpu[k]))
			return -ENOMEM;
		d->verdict = jr_fold(d->verdict, d->cpu[k].verdict);
	}
	return 0;
}

void jr_diff_free(struct jr_diff *d)
{
	int k;

	for (k = 0; k < d->nr_cpu; k++)
		free(d->cpu[k].src);
	free(d->cpu);
	memset(d, 0, sizeof(*d));
}
