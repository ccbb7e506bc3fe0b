// SPDX-License-Identifier: GPL-2.0
/*
 * jr_jv.c - the reads of jr_jdoc.h: a value of a checked text, where it
 * lies, a container stepped over by its entry in the document's tape.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_jv.h"
#include "common/jr_jtext.h"

/* jr_byte - v's first byte; for none, the text's (never read) */
static const uint8_t *jr_byte(const struct jr_jdoc *d, struct jr_jv v)
{
	return (const uint8_t *)d->text + (jr_jv_present(v) ? v.at : 0);
}

static size_t jr_skip_ws(const struct jr_jdoc *d, size_t at)
{
	return (const uint8_t *)jr_jt_ws((const uint8_t *)d->text + at,
					 (const uint8_t *)d->text + d->len) -
	       (const uint8_t *)d->text;
}

/* jr_after - where v's text ends, and the ordinal of the next container */
static struct jr_jv jr_after(const struct jr_jdoc *d, struct jr_jv v)
{
	const char *t = d->text;
	size_t at = v.at;
	bool real, ok;

	if (t[at] == '{' || t[at] == '[')
		return (struct jr_jv){ d->tape[v.ord].end + 1,
				       d->tape[v.ord].next };
	if (t[at] == '"')
		return (struct jr_jv){ jr_jt_str_end((const uint8_t *)t + at) -
					       (const uint8_t *)t,
				       v.ord };
	if (t[at] == 't' || t[at] == 'n')
		return (struct jr_jv){ at + 4, v.ord };
	if (t[at] == 'f')
		return (struct jr_jv){ at + 5, v.ord };
	at = jr_jt_num_end((const uint8_t *)t + at, (const uint8_t *)t + d->len,
			   &real, &ok) -
	     (const uint8_t *)t;
	return (struct jr_jv){ at, v.ord };
}

enum jr_jtype jr_jv_type(const struct jr_jdoc *d, struct jr_jv v)
{
	const uint8_t *p = jr_byte(d, v);
	bool real, ok;

	if (!jr_jv_present(v))
		return JR_JV_NONE;
	switch (*p) {
	case '{':
		return JR_JV_OBJECT;
	case '[':
		return JR_JV_ARRAY;
	case '"':
		return JR_JV_STRING;
	case 't':
		return JR_JV_TRUE;
	case 'f':
		return JR_JV_FALSE;
	case 'n':
		return JR_JV_NULL;
	}
	jr_jt_num_end(p, (const uint8_t *)d->text + d->len, &real, &ok);
	return real ? JR_JV_REAL : JR_JV_INTEGER;
}

/* jr_jv_size - an array's elements, an object's members; 0 for others */
size_t jr_jv_size(const struct jr_jdoc *d, struct jr_jv v)
{
	if (!jr_jv_present(v) || (d->text[v.at] != '{' && d->text[v.at] != '['))
		return 0;
	return d->tape[v.ord].size;
}

/* jr_jv_first - an array's first element, an object's first key; none
 * when it has none or c is no container */
struct jr_jv jr_jv_first(const struct jr_jdoc *d, struct jr_jv c)
{
	size_t at;

	if (!jr_jv_size(d, c))
		return JR_JV_ABSENT;
	at = jr_skip_ws(d, c.at + 1);
	return (struct jr_jv){ at, c.ord + 1 };
}

/* jr_jv_next - after an array's element, the next; after an object's
 * value, its next key; none at the end */
struct jr_jv jr_jv_next(const struct jr_jdoc *d, struct jr_jv v)
{
	struct jr_jv a;

	if (!jr_jv_present(v))
		return v;
	a = jr_after(d, v);
	a.at = jr_skip_ws(d, a.at);
	if (a.at >= d->len || d->text[a.at] != ',')
		return JR_JV_ABSENT;
	a.at = jr_skip_ws(d, a.at + 1);
	return a;
}

/* jr_jv_value - the value of an object's key */
struct jr_jv jr_jv_value(const struct jr_jdoc *d, struct jr_jv key)
{
	struct jr_jv a;

	if (!jr_jv_present(key))
		return key;
	a = jr_after(d, key);
	a.at = jr_skip_ws(d, jr_skip_ws(d, a.at) + 1);
	return a;
}

/* jr_jv_get - obj's member key, none if it has none or is no object */
struct jr_jv jr_jv_get(const struct jr_jdoc *d, struct jr_jv obj,
		       const char *key)
{
	struct jr_jv k;

	if (!jr_jv_is(d, obj, JR_JV_OBJECT))
		return JR_JV_ABSENT;
	for (k = jr_jv_first(d, obj); jr_jv_present(k);
	     k = jr_jv_next(d, jr_jv_value(d, k)))
		if (jr_jv_streq(d, k, key))
			return jr_jv_value(d, k);
	return JR_JV_ABSENT;
}

/* jr_jv_int - v as an integer: false if it is none (in one pass over
 * its digits, the reader's most frequent read) */
bool jr_jv_int(const struct jr_jdoc *d, struct jr_jv v, int64_t *x)
{
	const uint8_t *p = jr_byte(d, v);
	uint64_t n = 0;
	bool neg;

	if (!jr_jv_present(v))
		return false;
	neg = *p == '-';
	p += neg;
	if (!jr_jt_digit(*p))
		return false;
	for (; jr_jt_digit(*p); p++)
		n = n * 10 + (*p - '0'); /* checked: it fits int64_t */
	if (*p == '.' || (*p | 0x20) == 'e')
		return false;
	*x = neg && n ? -(int64_t)(n - 1) - 1 : (int64_t)n;
	return true;
}

/* jr_jv_num - v as a number, integer or real: false if it is none */
bool jr_jv_num(const struct jr_jdoc *d, struct jr_jv v, double *x)
{
	const uint8_t *p = jr_byte(d, v), *q;
	bool real, ok;
	int64_t i;

	if (!jr_jv_present(v) || (*p != '-' && !jr_jt_digit(*p)))
		return false;
	q = jr_jt_num_end(p, (const uint8_t *)d->text + d->len, &real, &ok);
	if (real)
		return !jr_jt_real_of(p, q - p, x);
	if (jr_jt_int_of(p, q - p, &i))
		return false;
	*x = (double)i;
	return true;
}

/*
 * jr_jv_str - the string v, decoded, into buf (cap > 0 bytes with its NUL):
 * 0; -E2BIG when it is cut, at a character's edge, to fit; -EINVAL when v
 * is no string (buf is then "")
 */
int jr_jv_str(const struct jr_jdoc *d, struct jr_jv v, char *buf, size_t cap)
{
	const uint8_t *p = jr_byte(d, v), *q, *from;
	const uint8_t *end = (const uint8_t *)d->text + d->len;
	unsigned char b[4];
	size_t o = 0, n;
	int k;

	buf[0] = '\0';
	if (!jr_jv_is(d, v, JR_JV_STRING))
		return -EINVAL;
	for (p++; *p != '"';) {
		if (*p == '\\') {
			p += 1 + jr_jt_unescape(p + 1, end, b, &k);
			from = b;
			n = k;
		} else if (*p >= 0x80) {
			from = p;
			n = jr_jt_utf8_len(p, end);
			p += n;
		} else {
			for (q = p; *q != '"' && *q != '\\' && *q < 0x80; q++)
				;
			from = p;
			n = q - p;
			p = q;
			if (o + n >= cap) /* ASCII: cut anywhere */
				memcpy(buf + o, from, cap - 1 - o), o = cap - 1;
		}
		if (o + n >= cap) {
			buf[o] = '\0';
			return -E2BIG;
		}
		memcpy(buf + o, from, n);
		o += n;
	}
	buf[o] = '\0';
	return 0;
}

/* jr_jv_strdup - the string v, decoded, malloc()ed; NULL if v is none or
 * no memory */
char *jr_jv_strdup(const struct jr_jdoc *d, struct jr_jv v)
{
	if (!jr_jv_is(d, v, JR_JV_STRING))
		return NULL;
	return jr_jt_decode((const uint8_t *)d->text + v.at,
			    (const uint8_t *)d->text + d->len);
}

/* jr_jv_streq - v is the string s */
bool jr_jv_streq(const struct jr_jdoc *d, struct jr_jv v, const char *s)
{
	const uint8_t *p = jr_byte(d, v);
	const uint8_t *end = (const uint8_t *)d->text + d->len;
	const unsigned char *q = (const unsigned char *)s;
	unsigned char b[4];
	int n, i;

	if (!jr_jv_present(v) || *p != '"')
		return false;
	for (p++; *p != '"';) {
		if (*p != '\\') {
			if (*q++ != *p++)
				return false;
			continue;
		}
		p += 1 + jr_jt_unescape(p + 1, end, b, &n);
		for (i = 0; i < n; i++)
			if (*q++ != b[i])
				return false;
	}
	return !*q;
}

/* jr_jv_raw - v's text: *text and its length (0 for none) */
size_t jr_jv_raw(const struct jr_jdoc *d, struct jr_jv v, const char **text)
{
	if (!jr_jv_present(v)) {
		*text = "";
		return 0;
	}
	*text = d->text + v.at;
	return jr_after(d, v).at - v.at;
}
