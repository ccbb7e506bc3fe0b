// SPDX-License-Identifier: GPL-2.0
/*
 * jr_advise.c - match the report's rows to the rules, CPU by CPU, and
 * rank what comes out by the share of noise it would remove.
 *
 * Evidence is measured only: a rule whose rows are absent, or together
 * below min_ppm of the CPU's sampled time or min_count events, gives no
 * advice, whatever the audit says.  A quiet CPU therefore gets none.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_sys.h"
#include "tune/jr_advise.h"
#include "tune/jr_advise_fill.h"

static const struct jr_audit_cpu *jr_audit_cpu_of(const struct jr_audit *a,
						  int cpu)
{
	int i;

	for (i = 0; i < a->nr_cpu; i++)
		if (a->cpu[i].cpu == cpu)
			return &a->cpu[i];
	return NULL;
}

/* jr_sibling - the other CPU of x's SMT siblings, "" when none. */
static void jr_sibling(const struct jr_audit_cpu *x, char *buf, size_t len)
{
	unsigned char set[JR_MAX_CPUS];
	int i;

	buf[0] = '\0';
	if (!x || jr_audit_cpulist(x->siblings, set))
		return;
	for (i = 0; i < JR_MAX_CPUS; i++)
		if (set[i] && i != x->cpu) {
			snprintf(buf, len, "%d", i);
			return;
		}
}

static struct jr_advice *jr_adv_new(struct jr_advise *v)
{
	struct jr_advice *n = realloc(v->adv, (v->nr + 1) * sizeof(*n));

	if (!n)
		return NULL;
	v->adv = n;
	memset(&n[v->nr], 0, sizeof(n[0]));
	return &n[v->nr++];
}

/* jr_adv_add - one row of evidence into a piece of advice. */
static void jr_adv_add(struct jr_advice *x, const char *src, const char *det,
		       uint64_t count, uint64_t total_ns)
{
	if (x->nr_ev < JR_ADV_EVIDENCE) {
		struct jr_adv_row *r = &x->ev[x->nr_ev++];

		snprintf(r->name, sizeof(r->name), "%s%s%s", src,
			 det ? " > " : "", det ? det : "");
		r->count = count;
		r->total_ns = total_ns;
	}
	x->nr_rows++;
	x->count += count;
	x->total_ns += total_ns;
}

/*
 * struct jr_cpu_scan - one CPU's rows as they are handed to rules: a row
 * (or detail row) taken by a rule that does not share is not evidence for
 * a later rule.
 */
struct jr_cpu_scan {
	const struct jr_rcpu *c;
	bool *src_taken;
	bool **det_taken;
	unsigned char *src_cov; /* enum jr_cov: what covers the row */
	unsigned char **det_cov;
	size_t (*pend)[2]; /* rows of the advice being built: source, detail+1 */
	size_t nr_pend;
};

/* how a row is covered; a fix outranks an outside remedy */
enum jr_cov {
	JR_COV_NONE,
	JR_COV_OUTSIDE,
	JR_COV_FIX,
};

/*
 * jr_fix_text - the fix for this kernel: the rule's own, or where the
 * kernel lacks what it needs, what to change instead (when the kernel
 * has what that needs), else none.
 */
static void jr_fix_text(struct jr_advice *x, const struct jr_fill *f,
			const struct jr_audit *a, const struct jr_audit_cpu *ax)
{
	const struct jr_rule *r = x->rule;
	const char *tmpl = r->fix;

	x->lacks = jr_adv_needs_in(r->needs, JR_NO, a, ax);
	x->unknown = jr_adv_needs_in(r->needs, JR_UNKNOWN, a, ax);
	if (x->lacks) {
		tmpl = NULL;
		if (r->instead &&
		    !jr_adv_needs_in(r->instead_needs, JR_NO, a, ax)) {
			x->unknown |= jr_adv_needs_in(r->instead_needs,
						      JR_UNKNOWN, a, ax);
			tmpl = r->instead;
		} else {
			x->lacks |=
				jr_adv_needs_in(r->instead_needs, JR_NO, a, ax);
		}
	}
	x->feasible = tmpl != NULL;
	x->fix[0] = '\0';
	if (tmpl)
		jr_expand(tmpl, f, x->fix, sizeof(x->fix), &x->cmds);
}

/*
 * jr_finish - fill the texts and decide whether the evidence is enough;
 * the rows of advice that stands are marked covered.
 */
static bool jr_finish(struct jr_advise *v, struct jr_advice *x,
		      struct jr_cpu_scan *s, struct jr_fill *f,
		      const struct jr_audit *a)
{
	const struct jr_rcpu *c = s->c;
	unsigned char cov = x->rule->outside ? JR_COV_OUTSIDE : JR_COV_FIX;
	uint64_t base = c->noise_ns;
	size_t i;

	if (!base)
		for (i = 0; i < c->nr_src; i++)
			base += c->src[i].total_ns;
	x->share = base ? (double)x->total_ns / base : 0;
	x->ppm = c->runtime_ns ? 1e6 * x->total_ns / c->runtime_ns : 0;
	if (!x->total_ns || x->count < v->min_count ||
	    (c->runtime_ns && x->ppm < v->min_ppm))
		return false;
	jr_expand(x->rule->what, f, x->what, sizeof(x->what), NULL);
	jr_fix_text(x, f, a, jr_audit_cpu_of(a, c->cpu));
	jr_expand(x->rule->caveat, f, x->caveat, sizeof(x->caveat), NULL);
	jr_expand(x->rule->verify, f, x->verify, sizeof(x->verify), &x->cmds);
	if (x->cmds.why[0]) { /* a value unfit for a command: none at all */
		x->fix[0] = x->verify[0] = '\0';
		x->cmds.nr = 0;
	}
	for (i = 0; i < s->nr_pend; i++) {
		size_t k = s->pend[i][0], j = s->pend[i][1];
		unsigned char *m = j ? &s->det_cov[k][j - 1] : &s->src_cov[k];

		if (*m < cov)
			*m = cov;
	}
	return true;
}

/* jr_close - finish x, or take it back when its evidence is too thin */
static void jr_close(struct jr_advise *v, struct jr_advice *x,
		     struct jr_cpu_scan *s, struct jr_fill *f,
		     const struct jr_audit *a)
{
	if (x && !jr_finish(v, x, s, f, a))
		v->nr--;
	s->nr_pend = 0;
}

/*
 * jr_rule_on_cpu - apply rule r to one CPU's rows.  0, or -ENOMEM.
 */
static int jr_rule_on_cpu(struct jr_advise *v, const struct jr_rule *r,
			  struct jr_cpu_scan *s, const struct jr_audit *a,
			  const struct jr_rdoc *d)
{
	const struct jr_audit_cpu *ax = jr_audit_cpu_of(a, s->c->cpu);
	struct jr_advice *x = NULL;
	struct jr_fill f0 = { .cpu = s->c->cpu,
			      .hk = v->hk,
			      .hkmask = v->hkmask,
			      .hv = a->hypervisor[0] ?
					    a->hypervisor :
					    "a hypervisor it does not name" };
	struct jr_fill f;
	char tell[JR_ADV_TEXT] = "";
	size_t i, j;

	jr_sibling(ax, f0.sib, sizeof(f0.sib));
	if (r->outside)
		jr_adv_hw_tell(a, ax, d, tell, sizeof(tell));
	f0.tell = tell;
	f = f0;
	for (i = 0; i < s->c->nr_src; i++) {
		const struct jr_rsource *src = &s->c->src[i];

		if (fnmatch(r->source, src->name, 0))
			continue;
		for (j = 0; j < (r->detail ? src->nr_det : 1); j++) {
			const char *det = r->detail ? src->det[j].name : NULL;
			bool *taken = r->detail ? &s->det_taken[i][j] :
						  &s->src_taken[i];
			struct jr_fill rf = f0;

			if (*taken || (det && fnmatch(r->detail, det, 0)))
				continue;
			jr_fill_row(&rf, src->name, det);
			if (!jr_adv_cond_holds(r->cond, a, ax, d, rf.comm))
				continue;
			if (!r->shares)
				*taken = true;
			if (r->cond == JR_IF_NEVER)
				continue;
			if (!x || r->per_row) {
				jr_close(v, x, s, &f, a);
				x = jr_adv_new(v);
				if (!x)
					return -ENOMEM;
				x->rule = r;
				x->cpu = s->c->cpu;
				f = rf;
			}
			jr_adv_add(x, src->name, det,
				   det ? src->det[j].count : src->count,
				   det ? src->det[j].total_ns : src->total_ns);
			s->pend[s->nr_pend][0] = i;
			s->pend[s->nr_pend++][1] = det ? j + 1 : 0;
		}
	}
	jr_close(v, x, s, &f, a);
	return 0;
}

static int jr_adv_cmp(const void *p, const void *q)
{
	const struct jr_advice *x = p, *y = q;

	if (x->ppm != y->ppm)
		return x->ppm < y->ppm ? 1 : -1;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return x->cpu - y->cpu;
}

/*
 * jr_housekeeping - the online CPUs that are neither measured, isolated
 * nor nohz_full, as a cpulist and a hex mask; "0" when none is left.
 */
static void jr_housekeeping(struct jr_advise *v, const struct jr_rdoc *d,
			    const struct jr_audit *a)
{
	static unsigned char on[JR_MAX_CPUS], iso[JR_MAX_CPUS],
		nohz[JR_MAX_CPUS];
	char text[1024];
	size_t n = 0, m = 0;
	int cpu, top = -1, i;

	if (jr_read_cpulist("/sys/devices/system/cpu/online", on, text,
			    sizeof(text))) {
		memset(on, 0, sizeof(on));
		on[0] = 1;
	}
	if (jr_audit_cpulist(a->isolcpus, iso))
		memset(iso, 0, sizeof(iso));
	if (jr_audit_cpulist(a->nohz_full, nohz))
		memset(nohz, 0, sizeof(nohz));
	for (i = 0; i < (int)d->nr_cpu; i++)
		on[d->cpu[i].cpu] = 0;
	v->hk[0] = '\0';
	for (cpu = 0; cpu < JR_MAX_CPUS && n < sizeof(v->hk); cpu++) {
		int last = cpu;

		if (!on[cpu] || iso[cpu] || nohz[cpu])
			continue;
		while (last + 1 < JR_MAX_CPUS && on[last + 1] &&
		       !iso[last + 1] && !nohz[last + 1])
			last++;
		if (last > cpu)
			n += snprintf(v->hk + n, sizeof(v->hk) - n, "%s%d-%d",
				      n ? "," : "", cpu, last);
		else
			n += snprintf(v->hk + n, sizeof(v->hk) - n, "%s%d",
				      n ? "," : "", cpu);
		top = last;
		cpu = last;
	}
	if (!v->hk[0]) {
		snprintf(v->hk, sizeof(v->hk), "0");
		on[0] = 1;
		iso[0] = nohz[0] = 0;
		top = 0;
	}
	/* the mask, most significant nibble first */
	for (cpu = top - top % 4; cpu >= 0 && m + 1 < sizeof(v->hkmask);
	     cpu -= 4) {
		int nib = 0;

		for (i = 0; i < 4; i++)
			if (cpu + i <= top && on[cpu + i] && !iso[cpu + i] &&
			    !nohz[cpu + i])
				nib |= 1 << i;
		v->hkmask[m++] = "0123456789abcdef"[nib];
	}
	v->hkmask[m] = '\0';
}

/* jr_scan_new - the per-row flags of c's rows; 0 or -ENOMEM */
static int jr_scan_new(struct jr_cpu_scan *s, const struct jr_rcpu *c)
{
	size_t k, rows = c->nr_src;

	s->c = c;
	s->src_taken = calloc(c->nr_src + 1, sizeof(bool));
	s->det_taken = calloc(c->nr_src + 1, sizeof(bool *));
	s->src_cov = calloc(c->nr_src + 1, 1);
	s->det_cov = calloc(c->nr_src + 1, sizeof(unsigned char *));
	if (!s->src_taken || !s->det_taken || !s->src_cov || !s->det_cov)
		return -ENOMEM;
	for (k = 0; k < c->nr_src; k++) {
		s->det_taken[k] = calloc(c->src[k].nr_det + 1, sizeof(bool));
		s->det_cov[k] = calloc(c->src[k].nr_det + 1, 1);
		if (!s->det_taken[k] || !s->det_cov[k])
			return -ENOMEM;
		rows += c->src[k].nr_det;
	}
	s->pend = calloc(rows + 1, sizeof(*s->pend));
	return s->pend ? 0 : -ENOMEM;
}

static void jr_scan_free(struct jr_cpu_scan *s)
{
	size_t k;

	for (k = 0; k < s->c->nr_src; k++) {
		if (s->det_taken)
			free(s->det_taken[k]);
		if (s->det_cov)
			free(s->det_cov[k]);
	}
	free(s->det_taken);
	free(s->src_taken);
	free(s->det_cov);
	free(s->src_cov);
	free(s->pend);
}

/*
 * jr_coverage - how much of the CPU's noise the advice given covers: by
 * fixes on this system, by remedies outside it, and what no rule
 * covers, by class.  A row covered through its detail rows is covered
 * as far as they go.  The noise beyond the sum of the rows (gross gaps
 * against the net time of what ran in them) is unattributed.
 */
static void jr_coverage(struct jr_adv_cpu *o, const struct jr_cpu_scan *s)
{
	const struct jr_rcpu *c = s->c;
	uint64_t rows = 0;
	size_t i, j;

	for (i = 0; i < c->nr_src; i++) {
		const struct jr_rsource *src = &c->src[i];
		uint64_t left = src->total_ns, fix = 0, out = 0;
		int h = src->hcls > 0 && src->hcls < JR_H_NR ? src->hcls :
							       JR_H_GAP;

		rows += src->total_ns;
		if (s->src_cov[i] == JR_COV_FIX)
			fix = left;
		else if (s->src_cov[i] == JR_COV_OUTSIDE)
			out = left;
		for (j = 0; !fix && !out && j < src->nr_det; j++) {
			uint64_t t = src->det[j].total_ns;

			t = t < left ? t : left;
			if (s->det_cov[i][j] == JR_COV_NONE)
				continue;
			if (s->det_cov[i][j] == JR_COV_FIX)
				o->fix_ns += t;
			else
				o->outside_ns += t;
			left -= t;
		}
		o->fix_ns += fix;
		o->outside_ns += out;
		o->unc_ns[h] += fix || out ? 0 : left;
	}
	o->base_ns = c->noise_ns > rows ? c->noise_ns : rows;
	o->unc_ns[JR_ADV_UNATTRIBUTED] = o->base_ns - rows;
}

/*
 * jr_advise_run - every rule over every CPU of the report d, judged by
 * the audit a.  0, or -ENOMEM with e saying so.
 */
int jr_advise_run(struct jr_advise *v, const struct jr_rdoc *d,
		  const struct jr_audit *a, struct jr_err *e)
{
	size_t i;
	int r, ret = 0;

	jr_housekeeping(v, d, a);
	v->cpu = calloc(d->nr_cpu ? d->nr_cpu : 1, sizeof(*v->cpu));
	if (!v->cpu)
		return jr_fail(e, -ENOMEM, "out of memory");
	v->nr_cpu = (int)d->nr_cpu;
	for (i = 0; i < d->nr_cpu && !ret; i++) {
		const struct jr_rcpu *c = &d->cpu[i];
		struct jr_cpu_scan s = { 0 };
		int before = v->nr;

		ret = jr_scan_new(&s, c);
		for (r = 0; r < jr_nr_rules && !ret; r++)
			ret = jr_rule_on_cpu(v, &jr_rules[r], &s, a, d);
		if (!ret)
			jr_coverage(&v->cpu[i], &s);
		jr_scan_free(&s);
		v->cpu[i].cpu = c->cpu;
		v->cpu[i].runtime_ns = c->runtime_ns;
		v->cpu[i].noise_ns = c->noise_ns;
		v->cpu[i].nr_advice = v->nr - before;
	}
	if (!ret)
		ret = jr_advise_user(v, d);
	if (ret)
		return jr_fail(e, -ENOMEM, "out of memory");
	if (v->nr > 1)
		qsort(v->adv, v->nr, sizeof(*v->adv), jr_adv_cmp);
	return 0;
}

void jr_advise_free(struct jr_advise *v)
{
	free(v->adv);
	free(v->cpu);
	free(v->uadv);
	v->adv = NULL;
	v->cpu = NULL;
	v->uadv = NULL;
	v->nr = v->nr_cpu = v->nr_uadv = 0;
}
