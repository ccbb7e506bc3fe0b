// SPDX-License-Identifier: GPL-2.0
/*
 * jr_buf.c - a growable text buffer written with printf.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_buf.h"

/* jr_buf_room - room for n more bytes and a NUL; false once oom. */
static bool jr_buf_room(struct jr_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->oom)
		return false;
	if (b->max && b->len + n + 1 > b->max) {
		b->oom = true;
		return false;
	}
	if (b->len + n + 1 <= b->cap)
		return true;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void jr_buf_put(struct jr_buf *b, const void *p, size_t n)
{
	if (!jr_buf_room(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void jr_buf_printf(struct jr_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !jr_buf_room(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* jr_buf_reset - empty, keeping the memory; forgets an earlier oom. */
void jr_buf_reset(struct jr_buf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->p)
		b->p[0] = '\0';
}

void jr_buf_free(struct jr_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
	b->oom = false;
}
