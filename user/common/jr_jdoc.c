// SPDX-License-Identifier: GPL-2.0
/*
 * jr_jdoc.c - the check of jr_jdoc.h: one pass over a JSON text that
 * refuses what jansson would and records each container.
 *
 * The check is a loop over the text with an explicit stack, so that the
 * depth of a hostile file costs heap, not the C stack.  Every later read
 * (jr_jv.c) trusts what it passed: a string ends at its quote, a number at
 * the first byte that is not part of one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_jdoc.h"
#include "common/jr_jtext.h"

/* struct jr_jkey - a key of an object still open: its decoded bytes'
 * FNV-1a hash and its opening quote */
struct jr_jkey {
	uint64_t hash;
	size_t at;
};

/* struct jr_jopen - a container being checked */
struct jr_jopen {
	size_t ord;
	size_t key0; /* its first key in keys */
	bool object;
};

static int jr_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *x;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	x = realloc(*v, n * size);
	if (!x)
		return -ENOMEM;
	*v = x;
	*cap = n;
	return 0;
}

static int jr_key_cmp(const void *a, const void *b)
{
	const struct jr_jkey *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/* jr_dup_keys - the object whose keys start at key0 has one twice (1),
 * or not (0); -ENOMEM */
static int jr_dup_keys(struct jr_jdoc *d, size_t key0)
{
	size_t n = d->nr_keys - key0, i;
	struct jr_jkey *k;
	char *a, *b;
	int same;

	if (n < 2) /* keys may be NULL: no key was seen yet */
		return 0;
	k = d->keys + key0;
	qsort(k, n, sizeof(*k), jr_key_cmp);
	for (i = 1; i < n; i++) {
		if (k[i].hash != k[i - 1].hash)
			continue;
		a = jr_jt_decode((const uint8_t *)d->text + k[i].at,
				 (const uint8_t *)d->text + d->len);
		b = jr_jt_decode((const uint8_t *)d->text + k[i - 1].at,
				 (const uint8_t *)d->text + d->len);
		same = a && b && !strcmp(a, b);
		free(a);
		free(b);
		if (!a || !b)
			return -ENOMEM;
		if (same)
			return 1;
	}
	return 0;
}

static int jr_jfail(const struct jr_jdoc *d, const uint8_t *p, const char *why,
		    struct jr_err *e)
{
	const char *q = d->text, *at = (const char *)p;
	int line = 1;

	while ((q = memchr(q, '\n', at - q)))
		line++, q++;
	return jr_fail(e, -EINVAL, "not JSON: line %d: %s", line, why);
}

/* jr_open_one - a container opens at at: its tape entry and stack entry */
static int jr_open_one(struct jr_jdoc *d, size_t depth, size_t at)
{
	if (jr_grow((void **)&d->tape, &d->cap, d->nr + 1, sizeof(*d->tape)) ||
	    jr_grow((void **)&d->open, &d->cap_open, depth + 1,
		    sizeof(*d->open)))
		return -ENOMEM;
	d->open[depth].ord = d->nr;
	d->open[depth].key0 = d->nr_keys;
	d->open[depth].object = d->text[at] == '{';
	d->tape[d->nr++] = (struct jr_jnode){ 0 };
	return 0;
}

/*
 * jr_close_one - the container top closes at at: its tape entry done and
 * an object's keys let go, once checked for one twice (1; -ENOMEM)
 */
static int jr_close_one(struct jr_jdoc *d, const struct jr_jopen *top,
			size_t at)
{
	int dup = top->object ? jr_dup_keys(d, top->key0) : 0;

	d->tape[top->ord].end = at;
	d->tape[top->ord].next = d->nr;
	d->nr_keys = top->key0;
	return dup;
}

/*
 * jr_check_key - an object's key at *pp, its colon and the blanks after
 * it: *pp moves to the value; *why says what is wrong (else NULL);
 * -ENOMEM
 */
static int jr_check_key(struct jr_jdoc *d, const uint8_t **pp,
			const uint8_t *end, const char **why)
{
	const uint8_t *p = *pp;
	uint64_t h;

	*why = "string or '}' expected";
	if (p >= end || *p != '"')
		return 0;
	if (jr_grow((void **)&d->keys, &d->cap_keys, d->nr_keys + 1,
		    sizeof(*d->keys)))
		return -ENOMEM;
	d->keys[d->nr_keys].at = p - (const uint8_t *)d->text;
	*why = jr_jt_check_str(&p, end, &h);
	*pp = p;
	if (*why)
		return 0;
	d->keys[d->nr_keys++].hash = h;
	p = jr_jt_ws(p, end);
	*pp = p;
	*why = "':' expected";
	if (p >= end || *p != ':')
		return 0;
	*pp = jr_jt_ws(p + 1, end);
	*why = NULL;
	return 0;
}

/*
 * jr_jdoc_open - check text (len bytes) as one JSON document and index its
 * containers into d, whose earlier tape it reuses; *root: the document's
 * value.  d is freed with jr_jdoc_free() whatever this returns; text must
 * outlive every read.
 */
int jr_jdoc_open(struct jr_jdoc *d, const char *text, size_t len,
		 struct jr_jv *root, struct jr_err *e)
{
	const uint8_t *s = (const uint8_t *)text, *p, *end = s + len;
	const char *why = NULL;
	struct jr_jopen *top;
	size_t depth = 0;
	int dup;

	d->text = text;
	d->len = len;
	d->nr = 0;
	d->nr_keys = 0;
	*root = JR_JV_ABSENT;
	p = jr_jt_ws(s, end);
	if (p >= end || (*p != '{' && *p != '['))
		return jr_jfail(d, p, "'[' or '{' expected", e);
	*root = (struct jr_jv){ p - s, 0 };
value:
	switch (p < end ? *p : 0) {
	case '{':
	case '[':
		if (depth == JR_JDOC_DEPTH)
			return jr_jfail(d, p, "too deeply nested", e);
		if (jr_open_one(d, depth, p - s))
			goto nomem;
		top = &d->open[depth++];
		p = jr_jt_ws(p + 1, end);
		if (p < end && *p == (top->object ? '}' : ']'))
			goto close;
		if (top->object)
			goto key;
		goto value;
	default:
		why = jr_jt_check_scalar(&p, end);
	}
	if (why)
		return jr_jfail(d, p, why, e);
after:
	if (!depth) {
		p = jr_jt_ws(p, end);
		return p == end ? 0 : jr_jfail(d, p, "end of file expected", e);
	}
	top = &d->open[depth - 1];
	d->tape[top->ord].size++;
	p = jr_jt_ws(p, end);
	if (p < end && *p == ',') {
		p = jr_jt_ws(p + 1, end);
		if (top->object)
			goto key;
		goto value;
	}
	if (p >= end || *p != (top->object ? '}' : ']'))
		return jr_jfail(
			d, p, top->object ? "'}' expected" : "']' expected", e);
close:
	dup = jr_close_one(d, &d->open[--depth], p - s);
	if (dup < 0)
		goto nomem;
	if (dup)
		return jr_jfail(d, p, "duplicate object key", e);
	p++;
	goto after;
key:
	if (jr_check_key(d, &p, end, &why))
		goto nomem;
	if (why)
		return jr_jfail(d, p, why, e);
	goto value;
nomem:
	return jr_fail(e, -ENOMEM, "out of memory");
}

void jr_jdoc_free(struct jr_jdoc *d)
{
	free(d->tape);
	free(d->keys);
	free(d->open);
	memset(d, 0, sizeof(*d));
}
