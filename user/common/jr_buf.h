/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_buf.h - a growable text buffer written with printf.
 *
 * A failed allocation is remembered (oom) and later writes do nothing,
 * so a writer makes all its calls and checks once at the end.
 */
#ifndef JR_BUF_H
#define JR_BUF_H

#include <stdbool.h>
#include <stddef.h>

struct jr_buf {
	char *p; /* NUL-terminated once anything was written */
	size_t len, cap;
	size_t max; /* 0: no limit; else a write past it sets oom */
	bool oom;
};

void jr_buf_printf(struct jr_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void jr_buf_put(struct jr_buf *b, const void *p, size_t n);
void jr_buf_reset(struct jr_buf *b);
void jr_buf_free(struct jr_buf *b);

#endif /* JR_BUF_H */
