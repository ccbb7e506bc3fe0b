// SPDX-License-Identifier: GPL-2.0
/*
 * jr_verdict.c - --fail-if conditions: parsed once, judged on the finished
 * model, one line for each CPU that fails one.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_parse.h"
#include "core/jr_verdict.h"

static const char *const jr_metric_names[] = {
	[JR_M_MAX] = "max",	[JR_M_MIN] = "min",   [JR_M_MEAN] = "mean",
	[JR_M_COUNT] = "count", [JR_M_PCT] = "p",     [JR_M_AVAIL] = "avail",
	[JR_M_NOISE] = "noise", [JR_M_RATE] = "rate",
};

#define JR_COND_HELP                                                           \
	"[cpu=N|all,][class=NAME,][source=GLOB,][side=kernel|user,]METRIC OP " \
	"VALUE; METRIC: max, min, mean, count, rate, pP, avail, noise; OP: > " \
	">= < <="

static bool jr_is_time(enum jr_metric m)
{
	return m != JR_M_COUNT && m != JR_M_AVAIL && m != JR_M_RATE;
}

/* jr_cond_key - one "key=value" before the comparison. */
static int jr_cond_key(char *kv, struct jr_cond *c)
{
	char *v = strchr(kv, '=');
	uint64_t n;

	if (!v)
		return -EINVAL;
	*v++ = '\0';
	if (!strcmp(kv, "cpu")) {
		if (!strcmp(v, "all")) {
			c->cpu = JR_COND_ALL;
			return 0;
		}
		if (jr_parse_u64(v, 0, JR_MAX_CPUS - 1, &n))
			return -EINVAL;
		c->cpu = (int)n;
		return 0;
	}
	if (!strcmp(kv, "class")) {
		c->hcls = jr_hclass_of(v);
		return c->hcls < 0 ? -EINVAL : 0;
	}
	if (!strcmp(kv, "source")) {
		if (!*v || strlen(v) >= sizeof(c->source))
			return -EINVAL;
		strcpy(c->source, v);
		return 0;
	}
	if (!strcmp(kv, "side")) {
		if (!strcmp(v, "kernel"))
			c->side = JR_SIDE_KERNEL;
		else if (!strcmp(v, "user"))
			c->side = JR_SIDE_USER;
		else
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/* jr_cond_metric - "max", "p99.99", ... */
static int jr_cond_metric(const char *s, struct jr_cond *c)
{
	char *end;
	int m;

	for (m = 0; m < JR_M_NR; m++) {
		if (m != JR_M_PCT && !strcmp(s, jr_metric_names[m])) {
			c->metric = m;
			return 0;
		}
	}
	if (s[0] != 'p' || !s[1])
		return -EINVAL;
	errno = 0;
	c->pct = strtod(s + 1, &end);
	if (errno || *end || !(c->pct > 0.0 && c->pct <= 100.0))
		return -EINVAL;
	c->metric = JR_M_PCT;
	return 0;
}

/* jr_cond_value - a time (bare: us), a count, a rate or a percentage. */
static int jr_cond_value(const char *s, struct jr_cond *c)
{
	uint64_t n;
	char *end;

	if (jr_is_time(c->metric)) {
		if (jr_parse_time(s, JR_US, 0, UINT64_MAX, &n))
			return -EINVAL;
		c->value = (double)n;
		return 0;
	}
	if (c->metric == JR_M_COUNT) {
		if (jr_parse_u64(s, 0, UINT64_MAX, &n))
			return -EINVAL;
		c->value = (double)n;
		return 0;
	}
	errno = 0;
	c->value = strtod(s, &end);
	if (errno || end == s || !(c->value >= 0.0))
		return -EINVAL;
	if (c->metric == JR_M_RATE)
		return *end && strcmp(end, "/s") ? -EINVAL : 0;
	if ((*end && strcmp(end, "%")) || c->value > 100.0)
		return -EINVAL;
	return 0;
}

int jr_cond_parse(const char *text, struct jr_cond *c, struct jr_err *e)
{
	char buf[128], *p, *comma, *op, *value;

	memset(c, 0, sizeof(*c));
	c->text = text;
	c->cpu = JR_COND_EACH;
	c->hcls = JR_H_GAP;
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		goto bad;
	for (p = buf; (comma = strchr(p, ',')); p = comma + 1) {
		*comma = '\0';
		if (jr_cond_key(p, c))
			goto bad;
	}
	op = strpbrk(p, "<>");
	if (!op)
		goto bad;
	c->less = *op == '<';
	c->or_equal = op[1] == '=';
	value = op + 1 + c->or_equal;
	*op = '\0';
	if (jr_cond_metric(p, c) || jr_cond_value(value, c))
		goto bad;
	if (c->source[0] && (c->metric == JR_M_AVAIL || c->metric == JR_M_PCT))
		return jr_fail(
			e, -EINVAL,
			"--fail-if '%s': a source has count, rate, max, min, mean and noise",
			text);
	if (!c->source[0] &&
	    (c->metric == JR_M_AVAIL || c->metric == JR_M_NOISE) &&
	    c->hcls != JR_H_GAP)
		return jr_fail(
			e, -EINVAL,
			"--fail-if '%s': avail and noise are a CPU's, not a class's",
			text);
	return 0;
bad:
	return jr_fail(e, -EINVAL, "bad --fail-if '%s' (%s)", text,
		       JR_COND_HELP);
}

/*
 * struct jr_tally - what a condition is judged on, from one CPU or from
 * several merged: a histogram (a class) or the matching sources' events.
 */
struct jr_tally {
	const struct jr_hist *h; /* a class's; NULL for source= */
	uint64_t count, total_ns, min_ns, max_ns; /* source= */
	int matched; /* sources that matched source= */
	double rate; /* events per second, summed over the CPUs */
	uint64_t runtime, noise; /* the period summaries' */
	bool summarised; /* every CPU had a summary */
};

/* jr_tally_cpu - add CPU pc to t: its sources, or its rate of h's. */
static void jr_tally_cpu(struct jr_tally *t, const struct jr_cond *c,
			 const struct jr_cpu *pc)
{
	uint64_t count = 0;
	int i;

	if (!c->source[0]) {
		count = pc->hist[c->hcls].count;
	} else {
		for (i = 0; i < pc->nr_src; i++) {
			const struct jr_source *s = &pc->src[i];

			if ((c->hcls != JR_H_GAP && s->hcls != c->hcls) ||
			    fnmatch(c->source, s->key, 0))
				continue;
			t->matched++;
			count += s->count;
			t->total_ns += s->total_ns;
			if (s->max_ns > t->max_ns)
				t->max_ns = s->max_ns;
			if (s->min_ns < t->min_ns)
				t->min_ns = s->min_ns;
		}
		t->count += count;
	}
	if (pc->runtime_ns)
		t->rate += count / (pc->runtime_ns / 1e9);
	else
		t->summarised = false;
	t->runtime += pc->runtime_ns;
	t->noise += pc->noise_ns;
}

/* jr_tally_start - an empty tally on h (NULL for source=). */
static void jr_tally_start(struct jr_tally *t, const struct jr_hist *h)
{
	memset(t, 0, sizeof(*t));
	t->h = h;
	t->min_ns = UINT64_MAX;
	t->summarised = true;
}

/*
 * jr_metric_of - the condition's metric on t; *known is false when it
 * needs a summary that a CPU lacks.
 */
static double jr_metric_of(const struct jr_cond *c, const struct jr_tally *t,
			   bool *known)
{
	const struct jr_hist *h = t->h;
	uint64_t n = h ? h->count : t->count;

	*known = true;
	switch (c->metric) {
	case JR_M_MAX:
		return !n ? 0.0 : h ? (double)h->max : (double)t->max_ns;
	case JR_M_MIN:
		return !n ? 0.0 : h ? (double)h->min : (double)t->min_ns;
	case JR_M_MEAN:
		return !n ? 0.0 : h ? jr_hist_mean(h) : (double)t->total_ns / n;
	case JR_M_COUNT:
		return (double)n;
	case JR_M_PCT:
		return n ? (double)jr_hist_percentile(h, c->pct) : 0.0;
	case JR_M_RATE:
		*known = t->summarised;
		return t->rate;
	case JR_M_AVAIL:
		*known = t->runtime > 0;
		return *known ? 100.0 * (1.0 - (double)t->noise / t->runtime) :
				0.0;
	default:
		if (!h)
			return (double)t->total_ns; /* a source's noise */
		*known = t->runtime > 0;
		return (double)t->noise;
	}
}

static bool jr_holds(const struct jr_cond *c, double v)
{
	if (c->less)
		return c->or_equal ? v <= c->value : v < c->value;
	return c->or_equal ? v >= c->value : v > c->value;
}

/* jr_say - one line: the condition, where it failed, what was measured. */
static void jr_say(FILE *out, const struct jr_cond *c, const char *side,
		   const char *where, const struct jr_tally *t, double v,
		   bool known)
{
	char what[96];

	if (c->source[0])
		snprintf(what, sizeof(what), "source %s (%d matched)",
			 c->source, t->matched);
	else
		snprintf(what, sizeof(what), "%s", jr_hclass_name(c->hcls));
	fprintf(out, "jitread: fail-if '%s': %s%s%s: ", c->text,
		side ? side : "", side ? " side, " : "", where);
	if (!known)
		fprintf(out, "no period summary to judge\n");
	else if (c->metric == JR_M_AVAIL)
		fprintf(out, "avail %.4f%%\n", v);
	else if (c->metric == JR_M_COUNT)
		fprintf(out, "%s count %.0f\n", what, v);
	else if (c->metric == JR_M_RATE)
		fprintf(out, "%s rate %.3f/s\n", what, v);
	else if (c->metric == JR_M_NOISE && !c->source[0])
		fprintf(out, "noise %.3f us\n", v / 1000.0);
	else if (c->metric == JR_M_PCT)
		fprintf(out, "%s p%g %.3f us\n", what, c->pct, v / 1000.0);
	else
		fprintf(out, "%s %s %.3f us\n", what,
			jr_metric_names[c->metric], v / 1000.0);
}

/* jr_absent - the line for a condition with no CPU to judge. */
static int jr_absent(FILE *out, const struct jr_cond *c, const char *side)
{
	char where[32] = "no CPU is";

	if (c->cpu >= 0)
		snprintf(where, sizeof(where), "CPU %d is not", c->cpu);
	fprintf(out, "jitread: fail-if '%s': %s%s%s in the report\n", c->text,
		side ? side : "", side ? " side: " : "", where);
	return 1;
}

/* jr_verdict_all - cpu=all: the wanted CPUs merged. */
static int jr_verdict_all(FILE *out, const struct jr_model *m,
			  const struct jr_report_opts *o,
			  const struct jr_cond *c, const char *side)
{
	struct jr_tally t;
	struct jr_hist all;
	int cpu, seen = 0;
	bool known, failed;
	double v;

	if (jr_merge_cpus(m, o, c->hcls, &all)) {
		jr_hist_free(&all);
		return -ENOMEM;
	}
	jr_tally_start(&t, c->source[0] ? NULL : &all);
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!jr_cpu_wanted(m, o, cpu))
			continue;
		jr_tally_cpu(&t, c, &m->cpu[cpu]);
		seen++;
	}
	if (!seen) {
		jr_hist_free(&all);
		return jr_absent(out, c, side);
	}
	v = jr_metric_of(c, &t, &known);
	failed = !known || jr_holds(c, v);
	if (failed)
		jr_say(out, c, side, "all CPUs", &t, v, known);
	jr_hist_free(&all);
	return failed;
}

/*
 * jr_verdict - judge c on m, writing a line per failure to out; side
 * names the model in a comparison (NULL otherwise).  1 when c fails, 0
 * when not, -ENOMEM.  A condition with nothing to judge fails: a gate
 * that saw no CPU must not pass.
 */
int jr_verdict(FILE *out, const struct jr_model *m,
	       const struct jr_report_opts *o, const struct jr_cond *c,
	       const char *side)
{
	const struct jr_cpu *pc;
	int cpu, seen = 0, failed = 0;
	struct jr_tally t;
	char where[32];
	bool known;
	double v;

	if (c->cpu == JR_COND_ALL)
		return jr_verdict_all(out, m, o, c, side);
	for (cpu = 0; cpu < m->nr_cpus; cpu++) {
		if (!jr_cpu_wanted(m, o, cpu) || (c->cpu >= 0 && cpu != c->cpu))
			continue;
		seen++;
		pc = &m->cpu[cpu];
		jr_tally_start(&t, c->source[0] ? NULL : &pc->hist[c->hcls]);
		jr_tally_cpu(&t, c, pc);
		v = jr_metric_of(c, &t, &known);
		if (known && !jr_holds(c, v))
			continue;
		snprintf(where, sizeof(where), "CPU %d", cpu);
		jr_say(out, c, side, where, &t, v, known);
		failed = 1;
	}
	return seen ? failed : jr_absent(out, c, side);
}
