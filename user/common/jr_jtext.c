// SPDX-License-Identifier: GPL-2.0
/*
 * jr_jtext.c - the bytes of JSON text, for common/jr_jdoc.c's check and
 * its reads: blanks, strings with their escapes and UTF-8, numbers.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_jtext.h"
#include "common/jr_text.h"

#define JR_FNV_BASIS 14695981039346656037ULL
#define JR_FNV_PRIME 1099511628211ULL

const uint8_t *jr_jt_ws(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static int jr_hex4(const uint8_t *p, const uint8_t *end, unsigned int *v)
{
	unsigned int x = 0, c;
	int i;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		c = p[i];
		if (jr_jt_digit(c))
			c -= '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			c = (c | 0x20) - 'a' + 10;
		else
			return -1;
		x = x << 4 | c;
	}
	*v = x;
	return 0;
}

/* jr_utf8_put - code point u (below 0x110000) as UTF-8 into b: its length */
static int jr_utf8_put(unsigned int u, unsigned char *b)
{
	if (u < 0x80) {
		b[0] = u;
		return 1;
	}
	if (u < 0x800) {
		b[0] = 0xc0 | u >> 6;
		b[1] = 0x80 | (u & 0x3f);
		return 2;
	}
	if (u < 0x10000) {
		b[0] = 0xe0 | u >> 12;
		b[1] = 0x80 | (u >> 6 & 0x3f);
		b[2] = 0x80 | (u & 0x3f);
		return 3;
	}
	b[0] = 0xf0 | u >> 18;
	b[1] = 0x80 | (u >> 12 & 0x3f);
	b[2] = 0x80 | (u >> 6 & 0x3f);
	b[3] = 0x80 | (u & 0x3f);
	return 4;
}

/*
 * jr_jt_utf8_len - the length of the UTF-8 character at p, 0 if it is
 * none (by jr_utf8_len()'s rules), never reading at or past end
 */
int jr_jt_utf8_len(const uint8_t *p, const uint8_t *end)
{
	unsigned char tail[5] = { 0 };
	int n;

	if (end - p >= 4) {
		n = jr_utf8_len(p);
	} else {
		memcpy(tail, p, end - p);
		n = jr_utf8_len(tail);
	}
	return n < 0 ? 0 : n;
}

/*
 * jr_jt_unescape - the escape after a backslash at p, decoded into b (*n
 * bytes): the bytes it took, 0 if JSON does not allow it or jansson
 * refuses it (a lone surrogate, \u0000)
 */
size_t jr_jt_unescape(const uint8_t *p, const uint8_t *end, unsigned char *b,
		      int *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	unsigned int u, lo;
	const char *c;

	if (p >= end)
		return 0;
	if (*p != 'u') {
		c = *p ? strchr(from, *p) : NULL;
		if (!c)
			return 0;
		b[0] = to[c - from];
		*n = 1;
		return 1;
	}
	if (jr_hex4(p + 1, end, &u) || !u || (u >= 0xdc00 && u <= 0xdfff))
		return 0;
	if (u < 0xd800 || u > 0xdbff) {
		*n = jr_utf8_put(u, b);
		return 5;
	}
	if (end - p < 11 || p[5] != '\\' || p[6] != 'u' ||
	    jr_hex4(p + 7, end, &lo) || lo < 0xdc00 || lo > 0xdfff)
		return 0;
	*n = jr_utf8_put(0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00), b);
	return 11;
}

/*
 * jr_jt_check_str - the string whose opening quote is at *pp: *pp moves past
 * its closing quote and, when hash is given, it gets the decoded bytes'
 * hash; NULL, or why the string is not one
 */
const char *jr_jt_check_str(const uint8_t **pp, const uint8_t *end,
			    uint64_t *hash)
{
	uint64_t h = JR_FNV_BASIS;
	const uint8_t *p = *pp + 1, *q;
	unsigned char b[4];
	int n, i;
	size_t k;

	for (;;) {
		for (q = p; p < end && *p >= 0x20 && *p < 0x80 && *p != '"' &&
			    *p != '\\';
		     p++)
			;
		if (hash)
			for (; q < p; q++)
				h = (h ^ *q) * JR_FNV_PRIME;
		if (p >= end)
			return "premature end of input";
		if (*p == '"')
			break;
		if (*p < 0x20)
			return "control character in a string";
		if (*p == '\\') {
			k = jr_jt_unescape(p + 1, end, b, &n);
			if (!k)
				return "invalid escape in a string";
			p += 1 + k;
		} else {
			n = jr_jt_utf8_len(p, end);
			if (!n)
				return "invalid UTF-8 in a string";
			memcpy(b, p, n);
			p += n;
		}
		for (i = 0; hash && i < n; i++)
			h = (h ^ b[i]) * JR_FNV_PRIME;
	}
	*pp = p + 1;
	if (hash)
		*hash = h;
	return NULL;
}

/* jr_jt_int_of - the integer of n bytes at s, -1 beyond int64_t */
int jr_jt_int_of(const uint8_t *s, size_t n, int64_t *x)
{
	bool neg = *s == '-';
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
	unsigned int dgt;
	size_t i;

	for (i = neg; i < n; i++) {
		dgt = s[i] - '0';
		if (v > (lim - dgt) / 10)
			return -1;
		v = v * 10 + dgt;
	}
	if (x)
		*x = neg && v ? -(int64_t)(v - 1) - 1 : (int64_t)v;
	return 0;
}

/* jr_jt_real_of - the real of n bytes at s, -1 if it overflows or no memory */
int jr_jt_real_of(const uint8_t *s, size_t n, double *x)
{
	char small[64], *b = n < sizeof(small) ? small : malloc(n + 1);
	double v;

	if (!b)
		return -1;
	memcpy(b, s, n);
	b[n] = '\0';
	v = strtod(b, NULL);
	if (b != small)
		free(b);
	if (isinf(v))
		return -1;
	if (x)
		*x = v;
	return 0;
}

/* jr_jt_num_end - past the number at p; *real: it has a fraction or exponent */
const uint8_t *jr_jt_num_end(const uint8_t *p, const uint8_t *end, bool *real,
			     bool *ok)
{
	*real = false;
	*ok = false;
	if (p < end && *p == '-')
		p++;
	if (p >= end || !jr_jt_digit(*p))
		return p;
	if (*p == '0')
		p++;
	else
		while (p < end && jr_jt_digit(*p))
			p++;
	if (p < end && *p == '.') {
		*real = true;
		if (++p >= end || !jr_jt_digit(*p))
			return p;
		while (p < end && jr_jt_digit(*p))
			p++;
	}
	if (p < end && (*p | 0x20) == 'e') {
		*real = true;
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !jr_jt_digit(*p))
			return p;
		while (p < end && jr_jt_digit(*p))
			p++;
	}
	*ok = true;
	return p;
}

static const char *jr_jt_check_num(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *s = *pp, *p;
	bool real, ok;

	p = jr_jt_num_end(s, end, &real, &ok);
	if (!ok)
		return "invalid number";
	if (real && jr_jt_real_of(s, p - s, NULL))
		return "real number overflow";
	if (!real && jr_jt_int_of(s, p - s, NULL))
		return "too big integer";
	*pp = p;
	return NULL;
}

static const char *jr_jt_check_word(const uint8_t **pp, const uint8_t *end,
				    const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *pp) < n || memcmp(*pp, w, n))
		return "invalid token";
	*pp += n;
	return NULL;
}

/*
 * jr_jt_str_end - past the closing quote of the checked string whose
 * opening quote is at p
 */
const uint8_t *jr_jt_str_end(const uint8_t *p)
{
	for (p++; *p != '"'; p++)
		p += *p == '\\';
	return p + 1;
}

/*
 * jr_jt_decode - the checked string at p, decoded, NUL-terminated,
 * malloc()ed: no longer than its text less the quotes, since no escape is
 * shorter than what it stands for
 */
char *jr_jt_decode(const uint8_t *p, const uint8_t *end)
{
	char *s = malloc(jr_jt_str_end(p) - p), *o = s;
	unsigned char b[4];
	int n;

	for (p++; s && *p != '"';) {
		if (*p == '\\') {
			p += 1 + jr_jt_unescape(p + 1, end, b, &n);
			memcpy(o, b, n);
			o += n;
		} else {
			*o++ = *p++;
		}
	}
	if (s)
		*o = '\0';
	return s;
}

/*
 * jr_jt_check_scalar - the string, number, true, false or null at *pp:
 * *pp moves past it; NULL, or why it is none
 */
const char *jr_jt_check_scalar(const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;

	if (p >= end)
		return "premature end of input";
	switch (*p) {
	case '"':
		return jr_jt_check_str(pp, end, NULL);
	case 't':
		return jr_jt_check_word(pp, end, "true");
	case 'f':
		return jr_jt_check_word(pp, end, "false");
	case 'n':
		return jr_jt_check_word(pp, end, "null");
	}
	if (*p == '-' || jr_jt_digit(*p))
		return jr_jt_check_num(pp, end);
	return "invalid token";
}
