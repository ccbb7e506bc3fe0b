// SPDX-License-Identifier: GPL-2.0
/*
 * jr_text.c - names from the traced machine, made safe to show.
 */
#include <inttypes.h>
#include <stdio.h>

#include "common/jr_text.h"

/*
 * jr_utf8_len - the length of the UTF-8 character at p (1 to 4), or -1
 * when p does not start a valid one: a stray continuation byte, a
 * truncated or overlong sequence, a surrogate or a value past U+10FFFF.
 */
int jr_utf8_len(const unsigned char *p)
{
	unsigned int c = p[0], min, v;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		min = 0x80;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		min = 0x800;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		min = 0x10000;
		v = c & 0x07;
	} else {
		return -1;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1; /* also stops at the NUL */
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return -1;
	return n;
}

/*
 * jr_text_safe - s for a terminal, into buf: printable UTF-8 as it is;
 * control characters (C0, DEL and C1) and bytes that are not valid UTF-8
 * as \xNN.  Cut short, never mid-character, when buf is full.
 */
const char *jr_text_safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return buf;
	while (*p) {
		int n = jr_utf8_len(p);
		int ctl = n < 0 || (n == 1 && (*p < 0x20 || *p == 0x7f)) ||
			  (n == 2 && p[0] == 0xc2 && p[1] < 0xa0);
		int i, w = ctl ? 4 * (n < 0 ? 1 : n) : n;

		if (o + w >= len)
			break;
		if (!ctl) {
			for (i = 0; i < n; i++)
				buf[o++] = p[i];
		} else {
			for (i = 0; i < (n < 0 ? 1 : n); i++)
				o += snprintf(buf + o, len - o, "\\x%02x",
					      p[i]);
		}
		p += n < 0 ? 1 : n;
	}
	buf[o] = '\0';
	return buf;
}

/* jr_text_dur - ns as "850ns", "12.3us", "4.00ms" or "1.50s". */
const char *jr_text_dur(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}
