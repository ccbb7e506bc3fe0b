// SPDX-License-Identifier: GPL-2.0
/*
 * jr_prom.c - which sources get series of their own, and what is left
 * for source="other" (see jr_prom.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/jr_prom.h"

void jr_prom_init(struct jr_prom *p, int top, const struct jr_prom_info *info)
{
	memset(p, 0, sizeof(*p));
	p->top = top;
	p->info = *info;
}

void jr_prom_free(struct jr_prom *p)
{
	int i;

	for (i = 0; i < p->nr_cpus; i++) {
		free(p->cpu[i].top);
		free(p->cpu[i].prev);
	}
	free(p->cpu);
	p->cpu = NULL;
	p->nr_cpus = 0;
}

/*
 * jr_prom_label_of - a model source's labels, as they will be exposed
 * (jr_prom_char): "thread:comm[pid]" and the folded "thread:comm[*]" are
 * both class thread, name comm; "hw:unknown" is class hw:unknown, name
 * unknown, as the class label of the per-class families.
 */
static void jr_prom_label_of(const struct jr_source *s, struct jr_prom_label *l)
{
	const char *colon = strchr(s->key, ':');
	size_t k = colon ? (size_t)(colon - s->key) : 0, n;
	const char *name = colon ? colon + 1 : s->key;

	if (k == 2 && !strncmp(s->key, "hw", 2))
		k = strlen(s->key);
	if (k >= sizeof(l->cls))
		k = sizeof(l->cls) - 1;
	memcpy(l->cls, s->key, k);
	l->cls[k] = '\0';
	n = strlen(name);
	if (!strcmp(l->cls, "thread") && n && name[n - 1] == ']') {
		const char *open = strrchr(name, '[');

		if (open)
			n = open - name;
	}
	if (n >= sizeof(l->name))
		n = sizeof(l->name) - 1;
	memcpy(l->name, name, n);
	l->name[n] = '\0';
	for (n = 0; l->cls[n]; n++)
		l->cls[n] = jr_prom_char(l->cls[n]);
	for (n = 0; l->name[n]; n++)
		l->name[n] = jr_prom_char(l->name[n]);
	l->ns = s->total_ns;
	l->n = s->count;
	l->score = 0;
}

static int jr_label_cmp(const void *a, const void *b)
{
	const struct jr_prom_label *x = a, *y = b;
	int d = strcmp(x->cls, y->cls);

	return d ? d : strcmp(x->name, y->name);
}

/* jr_prom_labels - the CPU's sources by label, summed, sorted; or NULL */
static struct jr_prom_label *jr_prom_labels(const struct jr_cpu *c, int *nr)
{
	struct jr_prom_label *l = calloc(c->nr_src ? c->nr_src : 1, sizeof(*l));
	int i, n = 0;

	if (!l)
		return NULL;
	for (i = 0; i < c->nr_src; i++)
		jr_prom_label_of(&c->src[i], &l[i]);
	qsort(l, c->nr_src, sizeof(*l), jr_label_cmp);
	for (i = 0; i < c->nr_src; i++) {
		if (n && !jr_label_cmp(&l[n - 1], &l[i])) {
			l[n - 1].ns += l[i].ns;
			l[n - 1].n += l[i].n;
		} else {
			l[n++] = l[i];
		}
	}
	*nr = n;
	return l;
}

static struct jr_prom_label *jr_find(struct jr_prom_label *l, int nr,
				     const struct jr_prom_label *key)
{
	return bsearch(key, l, nr, sizeof(*l), jr_label_cmp);
}

/* jr_prom_scores - each label's recent time, from the last update's */
static void jr_prom_scores(struct jr_prom_cpu *pc, struct jr_prom_label *l,
			   int nr)
{
	const struct jr_prom_label *old;
	int i;

	for (i = 0; i < nr; i++) {
		old = jr_find(pc->prev, pc->nr_prev, &l[i]);
		l[i].score = old ? old->score * JR_PROM_DECAY +
					     (double)(l[i].ns - old->ns) :
				   (double)l[i].ns;
	}
}

static int jr_score_cmp(const void *a, const void *b)
{
	const struct jr_prom_label *const *x = a, *const *y = b;

	if ((*x)->score != (*y)->score)
		return (*x)->score < (*y)->score ? 1 : -1;
	return jr_label_cmp(*x, *y);
}

/* jr_prom_weakest - the chosen series with the lowest score */
static int jr_prom_weakest(const struct jr_prom_cpu *pc)
{
	int i, w = 0;

	for (i = 1; i < pc->nr_top; i++)
		if (pc->top[i].l.score < pc->top[w].l.score)
			w = i;
	return w;
}

/*
 * jr_prom_choose - the unchosen labels with recent time, best first, into
 * free places, then in place of a weaker series (see jr_prom.h).  A
 * series starts from the label's totals at the last update, so its time
 * before stays in "other".
 */
static int jr_prom_choose(struct jr_prom *p, struct jr_prom_cpu *pc,
			  struct jr_prom_label *l, int nr, const bool *taken)
{
	struct jr_prom_label **c = calloc(nr ? nr : 1, sizeof(*c));
	const struct jr_prom_label *old;
	struct jr_prom_series *s;
	int i, n = 0, w;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		if (!taken[i] && l[i].score > 0)
			c[n++] = &l[i];
	qsort(c, n, sizeof(*c), jr_score_cmp);
	for (i = 0; i < n && p->top > 0; i++) {
		if (pc->nr_top < p->top) {
			s = &pc->top[pc->nr_top++];
		} else {
			w = jr_prom_weakest(pc);
			if (c[i]->score <= JR_PROM_SWAP * pc->top[w].l.score)
				break;
			s = &pc->top[w];
		}
		old = jr_find(pc->prev, pc->nr_prev, c[i]);
		s->l = *c[i];
		s->base_ns = old ? old->ns : 0;
		s->base_n = old ? old->n : 0;
	}
	free(c);
	return 0;
}

/* jr_prom_cpu_update - the chosen sources' totals, new choices, "other" */
static int jr_prom_cpu_update(struct jr_prom *p, struct jr_prom_cpu *pc,
			      const struct jr_cpu *c)
{
	struct jr_prom_label *l, *cur;
	uint64_t all_ns = 0, all_n = 0;
	bool *taken;
	int i, nr = 0, ret;

	l = jr_prom_labels(c, &nr);
	taken = calloc(nr ? nr : 1, sizeof(*taken));
	if (!pc->top)
		pc->top = calloc(p->top ? p->top : 1, sizeof(*pc->top));
	if (!l || !taken || !pc->top) {
		free(l);
		free(taken);
		return -ENOMEM;
	}
	jr_prom_scores(pc, l, nr);
	for (i = 0; i < pc->nr_top; i++) {
		cur = jr_find(l, nr, &pc->top[i].l);
		if (!cur)
			continue; /* a model never loses a source */
		pc->top[i].l.ns = cur->ns;
		pc->top[i].l.n = cur->n;
		pc->top[i].l.score = cur->score;
		taken[cur - l] = true;
	}
	ret = jr_prom_choose(p, pc, l, nr, taken);
	free(taken);
	if (ret) {
		free(l);
		return ret;
	}
	for (i = 0; i < nr; i++) {
		all_ns += l[i].ns;
		all_n += l[i].n;
	}
	for (i = 0; i < pc->nr_top; i++) {
		all_ns -= pc->top[i].l.ns - pc->top[i].base_ns;
		all_n -= pc->top[i].l.n - pc->top[i].base_n;
	}
	pc->other_ns = all_ns;
	pc->other_n = all_n;
	free(pc->prev);
	pc->prev = l;
	pc->nr_prev = nr;
	return 0;
}

/* jr_prom_update - before each jr_prom_write; 0 or -ENOMEM */
int jr_prom_update(struct jr_prom *p, const struct jr_model *m)
{
	struct timespec now;
	int i, ret;

	clock_gettime(CLOCK_REALTIME, &now);
	p->refreshed_ns = (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec;

	if (m->nr_cpus > p->nr_cpus) {
		struct jr_prom_cpu *c =
			realloc(p->cpu, m->nr_cpus * sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(c + p->nr_cpus, 0,
		       (m->nr_cpus - p->nr_cpus) * sizeof(*c));
		p->cpu = c;
		p->nr_cpus = m->nr_cpus;
	}
	for (i = 0; i < m->nr_cpus; i++) {
		if (!m->cpu[i].seen)
			continue;
		ret = jr_prom_cpu_update(p, &p->cpu[i], &m->cpu[i]);
		if (ret)
			return ret;
	}
	return 0;
}
