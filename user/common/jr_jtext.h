/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_jtext.h - the bytes of JSON text (RFC 8259), for jr_jdoc.c's check
 * and jr_jv.c's reads.  p..end is the text; a "checked" string or number
 * is one jr_jdoc_open() took.
 */
#ifndef JR_JTEXT_H
#define JR_JTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool jr_jt_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

const uint8_t *jr_jt_ws(const uint8_t *p, const uint8_t *end);
int jr_jt_utf8_len(const uint8_t *p, const uint8_t *end);
size_t jr_jt_unescape(const uint8_t *p, const uint8_t *end, unsigned char *b,
		      int *n);
const char *jr_jt_check_str(const uint8_t **pp, const uint8_t *end,
			    uint64_t *hash);
const char *jr_jt_check_scalar(const uint8_t **pp, const uint8_t *end);
const uint8_t *jr_jt_num_end(const uint8_t *p, const uint8_t *end, bool *real,
			     bool *ok);
int jr_jt_int_of(const uint8_t *s, size_t n, int64_t *x);
int jr_jt_real_of(const uint8_t *s, size_t n, double *x);
const uint8_t *jr_jt_str_end(const uint8_t *p);
char *jr_jt_decode(const uint8_t *p, const uint8_t *end);

#endif /* JR_JTEXT_H */
