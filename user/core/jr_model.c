// SPDX-License-Identifier: GPL-2.0
/*
 * jr_model.c - fold records into per-CPU histograms and source tables.
 *
 * A class histogram holds the net durations of that class's own events
 * (irq_noise, softirq_noise, ...); the hw:* histograms hold the gaps the
 * module filed as hardware; the gap histogram holds every gap, gross.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitmod_abi.h"
#include "core/jr_model.h"

static const char *const jr_noise_names[JIT_NOISE_NR] =
	JIT_NOISE_CLASSES(JIT_X_NAME2);

const char *const jr_softirq_names[JIT_SOFTIRQ_NR] = JIT_SOFTIRQS(JIT_X_NAME);

/* jr_hclass_name - "gap", then jitmod's noise classes by enum jr_hclass */
const char *jr_hclass_name(int h)
{
	if (h == JR_H_GAP)
		return "gap";
	return h > JR_H_GAP && h < JR_H_NR ? jr_noise_names[h - 1] : "?";
}

/* jr_hclass_of - the enum jr_hclass named name, or -1. */
int jr_hclass_of(const char *name)
{
	int h;

	for (h = 0; h < JR_H_NR; h++)
		if (!strcmp(jr_hclass_name(h), name))
			return h;
	return -1;
}

int jr_model_init(struct jr_model *m, int precision, uint64_t bucket_ns,
		  int entries)
{
	memset(m, 0, sizeof(*m));
	m->precision = precision;
	m->bucket_ns = bucket_ns;
	m->entries = entries;
	return 0;
}

static void jr_cpu_free(struct jr_cpu *c)
{
	int i;

	for (i = 0; i < JR_H_NR; i++) {
		jr_hist_free(&c->hist[i]);
		free(c->lin[i]);
	}
	for (i = 0; i < c->nr_src; i++) {
		free(c->src[i].ia);
		free(c->src[i].det);
	}
	free(c->src);
	free(c->src_hash);
	free(c->tl);
	free(c->pend);
}

void jr_model_free(struct jr_model *m)
{
	int i;

	for (i = 0; i < m->nr_cpus; i++)
		jr_cpu_free(&m->cpu[i]);
	free(m->cpu);
	m->cpu = NULL;
	m->nr_cpus = 0;
}

/* jr_model_cpu - the CPU's state, created (with its neighbours) on demand. */
static struct jr_cpu *jr_model_cpu(struct jr_model *m, unsigned int cpu)
{
	struct jr_cpu *c;
	int i, j, n;

	if ((int)cpu >= m->nr_cpus) {
		n = cpu + 1;
		c = realloc(m->cpu, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + m->nr_cpus, 0, (n - m->nr_cpus) * sizeof(*c));
		for (i = m->nr_cpus; i < n; i++)
			for (j = 0; j < JR_H_NR; j++)
				jr_hist_init(&c[i].hist[j], m->precision);
		m->cpu = c;
		m->nr_cpus = n;
	}
	return &m->cpu[cpu];
}

/*
 * jr_join - a and b, one after the other, into buf; the length the whole
 * would have, as snprintf() gives.  The keys of the commonest events are
 * made with it: the model makes one for every event it is given.
 */
static int jr_join(char *buf, size_t len, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b), n, m;

	if (!len)
		return na + nb;
	n = na < len - 1 ? na : len - 1;
	m = nb < len - 1 - n ? nb : len - 1 - n;
	memcpy(buf, a, n);
	memcpy(buf + n, b, m);
	buf[n + m] = '\0';
	return na + nb;
}

/* jr_source_key - the source name of a class event or a hw gap. */
int jr_source_key(const struct jr_rec *r, char *buf, size_t len, int *hcls)
{
	switch (r->type) {
	case JR_IRQ:
		*hcls = JR_H_IRQ;
		if (r->id < 0)
			return jr_join(buf, len, "irq:", r->name);
		return snprintf(buf, len, "irq:%d %s", r->id, r->name);
	case JR_SOFTIRQ:
		*hcls = JR_H_SOFTIRQ;
		if (r->cls >= 0 && r->cls < JIT_SOFTIRQ_NR)
			return jr_join(buf, len,
				       "softirq:", jr_softirq_names[r->cls]);
		return snprintf(buf, len, "softirq:%d", r->cls);
	case JR_NMI:
		*hcls = JR_H_NMI;
		return jr_join(buf, len, "nmi:", r->name);
	case JR_THREAD:
		*hcls = JR_H_THREAD;
		return snprintf(buf, len, "thread:%s[%d]", r->name, r->id);
	case JR_GAP:
		if (r->cls < JIT_NOISE_HW_SMI)
			return -1;
		*hcls = JR_H_SMI + (r->cls - JIT_NOISE_HW_SMI);
		return jr_join(buf, len, "", jr_hclass_name(*hcls));
	default:
		return -1;
	}
}

static uint64_t jr_fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int jr_hash_grow(struct jr_cpu *c)
{
	int cap = c->hash_cap ? c->hash_cap * 2 : 64, i;
	int *h;

	while (cap < 2 * (c->nr_src + 1)) /* keep it at most half full */
		cap *= 2;
	h = malloc(cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		h[i] = -1;
	for (i = 0; i < c->nr_src; i++) {
		uint64_t k = jr_fnv(c->src[i].key) & (cap - 1);

		while (h[k] >= 0)
			k = (k + 1) & (cap - 1);
		h[k] = i;
	}
	free(c->src_hash);
	c->src_hash = h;
	c->hash_cap = cap;
	return 0;
}

/*
 * jr_source_get - the source with this key, added if new.  Past
 * JR_MAX_SOURCES on a CPU, a new thread (one key per pid) goes into its
 * comm's thread:comm[*] instead, so that many short tasks cannot make
 * the table grow without bound; past JR_MAX_SOURCES_NAMED, any new key
 * (many comms, many IRQs) goes into CLASS:other[*].  c->src_folded
 * counts those events.  fold: 0 for an event's own key, 1 for its
 * comm's, 2 for CLASS:other[*].
 */
static struct jr_source *jr_source_get(struct jr_cpu *c, const char *key,
				       int hcls, const struct jr_rec *r,
				       int fold)
{
	char folded[sizeof(c->src->key)];
	uint64_t k;
	struct jr_source *s;

	if (c->nr_src * 2 >= c->hash_cap && jr_hash_grow(c))
		return NULL;
	k = jr_fnv(key) & (c->hash_cap - 1);
	while (c->src_hash[k] >= 0) {
		s = &c->src[c->src_hash[k]];
		if (!strcmp(s->key, key))
			return s;
		k = (k + 1) & (c->hash_cap - 1);
	}
	if (!fold && c->nr_src >= JR_MAX_SOURCES && r->type == JR_THREAD) {
		c->src_folded++;
		snprintf(folded, sizeof(folded), "thread:%s[*]", r->name);
		return jr_source_get(c, folded, hcls, r, 1);
	}
	if (fold < 2 && c->nr_src >= JR_MAX_SOURCES_NAMED) {
		c->src_folded += !fold;
		snprintf(folded, sizeof(folded), "%s:other[*]",
			 jr_hclass_name(hcls));
		return jr_source_get(c, folded, hcls, r, 2);
	}
	if (c->nr_src == c->cap_src) {
		int cap = c->cap_src ? c->cap_src * 2 : 32;

		s = realloc(c->src, cap * sizeof(*s));
		if (!s)
			return NULL;
		c->src = s;
		c->cap_src = cap;
	}
	s = &c->src[c->nr_src];
	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->hcls = hcls;
	s->min_ns = UINT64_MAX;
	c->src_hash[k] = c->nr_src++;
	return s;
}

static int jr_lin_add(struct jr_model *m, struct jr_cpu *c, int h, uint64_t ns)
{
	uint64_t b = ns / m->bucket_ns;

	if (!c->lin[h]) {
		c->lin[h] = calloc(m->entries + 1, sizeof(uint64_t));
		if (!c->lin[h])
			return -ENOMEM;
	}
	c->lin[h][b < (uint64_t)m->entries ? b : (uint64_t)m->entries]++;
	return 0;
}

static int jr_count(struct jr_model *m, struct jr_cpu *c, int h, uint64_t ns)
{
	int ret = jr_hist_record(&c->hist[h], ns);

	return ret ? ret : jr_lin_add(m, c, h, ns);
}

static void jr_add_summary(struct jr_cpu *c, const struct jr_rec *r)
{
	uint64_t seen = 0;
	int h;

	for (h = 0; h < JR_H_NR; h++) {
		seen += c->open_ns[h];
		c->cls_ns[h] += c->open_ns[h];
		c->cls_gaps[h] += c->open_gaps[h];
		c->open_ns[h] = 0;
		c->open_gaps[h] = 0;
	}
	if (r->v[1] > seen)
		c->unseen_ns += r->v[1] - seen;
	for (h = 0; h < JR_H_NR; h++) {
		if (c->evt_open[h] > c->net_open[h])
			c->outside_ns[h] += c->evt_open[h] - c->net_open[h];
		c->net_ns[h] += c->net_open[h];
		c->net_open[h] = 0;
		c->evt_open[h] = 0;
	}
	c->periods++;
	/* a summary's id2 is what its irqs_off window held (cls: irqs_off) */
	c->held += (uint32_t)r->id2;
	c->runtime_ns += r->v[0];
	c->noise_ns += r->v[1];
	if (r->v[2] > c->max_gap_ns)
		c->max_gap_ns = r->v[2];
	c->iterations += r->v[3];
	if (r->v[4] && (!c->resolution_ps || r->v[4] < c->resolution_ps))
		c->resolution_ps = r->v[4];
	c->self_ns += r->v[5];
	c->anomalies += r->v[6];
	c->anomaly_mask |= (uint32_t)r->id;
}

/* jr_gap_hclass - the histogram class a gap record is filed under. */
static int jr_gap_hclass(const struct jr_rec *r)
{
	if (r->cls >= JIT_NOISE_HW_SMI && r->cls <= JIT_NOISE_HW_UNKNOWN)
		return JR_H_SMI + (r->cls - JIT_NOISE_HW_SMI);
	if (r->cls >= 0 && r->cls < JIT_NOISE_HW_SMI)
		return JR_H_IRQ + r->cls;
	return JR_H_UNKNOWN;
}

/*
 * jr_gap_net - split a gap by what explains it: each class's net time
 * inside it (scaled down to the gap's explained part should the events
 * claim more), the unexplained rest at JR_H_GAP, a hw gap whole.  A
 * record without per-class times (an older recording) gives its whole
 * explained part to its own class.
 */
static void jr_gap_net(struct jr_cpu *c, const struct jr_rec *r, int hcls)
{
	uint64_t gross = r->v[0], un = r->v[1] < gross ? r->v[1] : gross;
	uint64_t ex = gross - un, given = 0, part;
	unsigned __int128 sum = 0;
	int k;

	if (hcls >= JR_H_SMI) {
		c->net_open[hcls] += gross;
		return;
	}
	c->net_open[JR_H_GAP] += un;
	for (k = 0; k < JIT_NOISE_HW_SMI; k++)
		sum += r->v[3 + k];
	for (k = 0; sum && k < JIT_NOISE_HW_SMI; k++) {
		part = sum <= ex ? r->v[3 + k] :
				   (uint64_t)((unsigned __int128)r->v[3 + k] *
					      ex / sum);
		c->net_open[JR_H_IRQ + k] += part;
		given += part;
	}
	c->net_open[hcls] += ex - given;
}

/* jr_tl_add - keep the first JR_TL_MAX gaps per CPU for the timeline. */
static int jr_tl_add(struct jr_model *m, struct jr_cpu *c,
		     const struct jr_rec *r)
{
	if (!m->t0_ns || r->ts_ns < m->t0_ns)
		m->t0_ns = r->ts_ns;
	if (c->nr_tl == JR_TL_MAX) {
		c->tl_dropped++;
		return 0;
	}
	if (!c->tl) {
		c->tl = malloc(JR_TL_MAX * sizeof(*c->tl));
		if (!c->tl)
			return -ENOMEM;
	}
	c->tl[c->nr_tl].ts_ns = r->ts_ns;
	c->tl[c->nr_tl].dur_ns = r->v[0];
	c->tl[c->nr_tl].cls = jr_gap_hclass(r);
	c->nr_tl++;
	return 0;
}

/* jr_model_add - fold one record in; -ENOMEM is the only failure. */
int jr_model_add(struct jr_model *m, const struct jr_rec *r)
{
	struct jr_cpu *c = jr_model_cpu(m, r->cpu);
	struct jr_source *s;
	char key[64];
	int hcls, ret = 0;

	if (!c)
		return -ENOMEM;
	c->seen = true;
	c->events++;
	m->events++;
	switch (r->type) {
	case JR_SUMMARY:
		jr_add_summary(c, r);
		if (c->pend)
			jr_pend_flush(c->pend);
		return 0;
	case JR_LOST:
		c->lost += r->v[0];
		return 0;
	case JR_STOP:
		c->stops++;
		m->stops++;
		m->last_stop = *r;
		return 0;
	case JR_DETAIL:
		if (!c->pend) {
			c->pend = calloc(1, sizeof(*c->pend));
			if (!c->pend)
				return -ENOMEM;
		}
		jr_pend_add(c->pend, r);
		return 0;
	case JR_GAP:
		hcls = jr_gap_hclass(r);
		c->open_ns[hcls] += r->v[0];
		c->open_gaps[hcls]++;
		jr_gap_net(c, r, hcls);
		ret = jr_count(m, c, JR_H_GAP, r->v[0]);
		if (!ret)
			ret = jr_tl_add(m, c, r);
		break;
	default:
		break;
	}
	if (ret || jr_source_key(r, key, sizeof(key), &hcls) < 0)
		return ret;
	ret = jr_count(m, c, hcls, r->v[0]);
	if (ret)
		return ret;
	if (hcls < JR_H_SMI)
		c->evt_open[hcls] += r->v[0];
	s = jr_source_get(c, key, hcls, r, 0);
	if (!s)
		return -ENOMEM;
	s->count++;
	s->total_ns += r->v[0];
	if (r->v[0] < s->min_ns)
		s->min_ns = r->v[0];
	if (r->v[0] > s->max_ns)
		s->max_ns = r->v[0];
	if (jr_ia_add(&s->ia, &s->last_ns, r->ts_ns))
		return -ENOMEM;
	return c->pend && c->pend->nr ? jr_pend_claim(c->pend, r, &s->det) : 0;
}

static int jr_src_cmp(const void *a, const void *b)
{
	const struct jr_source *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* jr_cpu_sort_sources - by total, largest first; the hash is rebuilt. */
static void jr_cpu_sort_sources(struct jr_cpu *c)
{
	if (c->nr_src)
		qsort(c->src, c->nr_src, sizeof(*c->src), jr_src_cmp);
	free(c->src_hash);
	c->src_hash = NULL;
	c->hash_cap = 0;
	jr_hash_grow(c);
}

/*
 * jr_model_finish - the model as the writers take it, once nothing more
 * is added: each CPU's sources by total, largest first.  Adding to it
 * afterwards is allowed; finish it again before the next report.
 */
void jr_model_finish(struct jr_model *m)
{
	int cpu;

	for (cpu = 0; cpu < m->nr_cpus; cpu++)
		jr_cpu_sort_sources(&m->cpu[cpu]);
}

/* jr_cpu_avail_pct - % of the sampled time the CPU was the sampler's. */
double jr_cpu_avail_pct(const struct jr_cpu *c)
{
	if (!c->runtime_ns)
		return 0.0;
	return 100.0 * (1.0 - (double)c->noise_ns / c->runtime_ns);
}

/*
 * jr_cpu_avail_str - "99.1234%" for text tables, or "-" when no period
 * summary has arrived yet (a --top second inside a long period, or a run
 * shorter than one): 0% would read as a CPU that was all noise.
 */
/* jitmod's anomaly kinds, by enum jit_anomaly */
static const char *const jr_anomaly_names[JIT_ANOM_NR] =
	JIT_ANOMALIES(JIT_X_NAME2);

/* jr_anomaly_kinds - "window,tsc_back" for a mask; "" for none. */
const char *jr_anomaly_kinds(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < JIT_ANOM_NR; k++)
		if (mask & (1u << k))
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      n ? "," : "", jr_anomaly_names[k]);
	if (mask >> JIT_ANOM_NR)
		snprintf(buf + n, n < len ? len - n : 0, "%sother",
			 n ? "," : "");
	return buf;
}

const char *jr_cpu_avail_str(const struct jr_cpu *c, char *buf, size_t len)
{
	if (!c->runtime_ns)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4f%%", jr_cpu_avail_pct(c));
	return buf;
}
