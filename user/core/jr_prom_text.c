// SPDX-License-Identifier: GPL-2.0
/*
 * jr_prom_text.c - the text format 0.0.4 and OpenMetrics 1.0, which names
 * counter families without "_total", gives units and ends with "# EOF".
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/jr_prom.h"
#include "core/jr_prom_emit.h"

static void jr_text_family(struct jr_emit *e, const char *name, enum jr_ptype t,
			   const char *unit, const char *help)
{
	static const char *const types[] = { "counter", "gauge", "histogram",
					     "info" };
	const char *sfx = "", *type = types[t];

	e->name = name;
	e->type = t;
	if (!e->om && t == JR_P_COUNTER)
		sfx = "_total";
	if (!e->om && t == JR_P_INFO) {
		sfx = "_info";
		type = "gauge";
	}
	jr_buf_printf(e->b, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help,
		      name, sfx, type);
	if (e->om && unit)
		jr_buf_printf(e->b, "# UNIT %s %s\n", name, unit);
}

/*
 * jr_text_value - a label value, escaped as both formats want, its bytes
 * as jr_prom_char() exposes them.
 */
static void jr_text_value(struct jr_buf *b, const char *s)
{
	char c;

	for (; *s; s++) {
		c = *s;
		if (c == '\\' || c == '"')
			jr_buf_put(b, "\\", 1);
		c = jr_prom_char(c);
		jr_buf_put(b, &c, 1);
	}
}

/* jr_text_name - name{labels (and le), as far as the closing brace */
static void jr_text_name(struct jr_emit *e, const char *sfx,
			 const struct jr_plabel *l, int nl, const char *le)
{
	int i;

	jr_buf_printf(e->b, "%s%s", e->name, sfx);
	if (!nl && !le)
		return;
	jr_buf_put(e->b, "{", 1);
	for (i = 0; i < nl; i++) {
		jr_buf_printf(e->b, "%s%s=\"", i ? "," : "", l[i].name);
		jr_text_value(e->b, l[i].value);
		jr_buf_put(e->b, "\"", 1);
	}
	if (le)
		jr_buf_printf(e->b, "%sle=\"%s\"", nl ? "," : "", le);
	jr_buf_put(e->b, "}", 1);
}

static void jr_text_sample(struct jr_emit *e, const struct jr_plabel *l, int nl,
			   struct jr_pval v)
{
	const char *sfx = e->type == JR_P_COUNTER ? "_total" :
			  e->type == JR_P_INFO	  ? "_info" :
						    "";

	jr_text_name(e, sfx, l, nl, NULL);
	if (v.kind == JR_PV_COUNT)
		jr_buf_printf(e->b, " %" PRIu64 "\n", v.n);
	else if (v.kind == JR_PV_NS)
		jr_buf_printf(e->b, " %" PRIu64 ".%09" PRIu64 "\n",
			      v.n / 1000000000, v.n % 1000000000);
	else
		jr_buf_printf(e->b, " %.9f\n", v.real);
}

static void jr_text_hist(struct jr_emit *e, const struct jr_plabel *l, int nl,
			 const struct jr_hist *h)
{
	uint64_t below[JR_PROM_NR_LE];
	int i;

	jr_prom_buckets(h, below);
	for (i = 0; i < JR_PROM_NR_LE; i++) {
		jr_text_name(e, "_bucket", l, nl, jr_prom_le[i]);
		jr_buf_printf(e->b, " %" PRIu64 "\n", below[i]);
	}
	jr_text_name(e, "_bucket", l, nl, "+Inf");
	jr_buf_printf(e->b, " %" PRIu64 "\n", h->count);
	jr_text_name(e, "_sum", l, nl, NULL);
	jr_buf_printf(e->b, " %.9Lf\n", h->sum / 1e9L);
	jr_text_name(e, "_count", l, nl, NULL);
	jr_buf_printf(e->b, " %" PRIu64 "\n", h->count);
}

static void jr_text_end(struct jr_emit *e)
{
	if (e->om)
		jr_buf_printf(e->b, "# EOF\n");
}

const struct jr_emit_ops jr_emit_text = {
	.family = jr_text_family,
	.sample = jr_text_sample,
	.hist = jr_text_hist,
	.end = jr_text_end,
};
