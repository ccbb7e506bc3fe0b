// SPDX-License-Identifier: GPL-2.0
/*
 * jr_hlog.c - HdrHistogram interval log (see jr_hlog.h).
 *
 * A histogram is written in HdrHistogram's V2 encoding: a 40-byte
 * big-endian header, then the counts as ZigZag LEB128 numbers with a run
 * of zeros written as its negated length; that is deflated (zlib) behind
 * an 8-byte header of its own and written as base64.  jr_hist has
 * HdrHistogram's slot layout with a unit of 1 ns, so the counts go out as
 * they are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "common/jr_parse.h"
#include "core/jr_hlog.h"

#define JR_V2_COOKIE 0x1c849313 /* V2 encoding, LEB128 counts */
#define JR_V2Z_COOKIE 0x1c849314 /* the same, deflated */
#define JR_V2_HDR 40
#define JR_V2Z_HDR 8

static unsigned char *jr_be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
	return p + 4;
}

static unsigned char *jr_be64(unsigned char *p, uint64_t v)
{
	return jr_be32(jr_be32(p, v >> 32), (uint32_t)v);
}

/* jr_zigzag - v as ZigZag LEB128: up to 8 groups of 7 bits, then 8 bits. */
static unsigned char *jr_zigzag(unsigned char *p, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	int i;

	for (i = 0; i < 8; i++) {
		if (z < 0x80) {
			*p++ = z;
			return p;
		}
		*p++ = (z & 0x7f) | 0x80;
		z >>= 7;
	}
	*p++ = z;
	return p;
}

/* jr_v2 - h's V2 encoding into buf (room for JR_V2_HDR + 9 per slot). */
static size_t jr_v2(const struct jr_hist *h, unsigned char *buf)
{
	unsigned char *p = buf + JR_V2_HDR;
	int i = 0, limit = 0, zeros;
	double one = 1.0;
	uint64_t bits;

	/* up to the last non-empty slot; an empty histogram has no counts */
	if (h->count && h->counts) {
		for (limit = h->nr_counts; limit > 1 && !h->counts[limit - 1];)
			limit--;
	}
	while (i < limit) {
		uint64_t n = h->counts ? h->counts[i] : 0;

		i++;
		if (n) {
			p = jr_zigzag(p,
				      n > INT64_MAX ? INT64_MAX : (int64_t)n);
			continue;
		}
		for (zeros = 1; i < limit && !(h->counts && h->counts[i]); i++)
			zeros++;
		p = jr_zigzag(p, zeros > 1 ? -(int64_t)zeros : 0);
	}
	memcpy(&bits, &one, sizeof(bits));
	jr_be32(buf, JR_V2_COOKIE);
	jr_be32(buf + 4, (uint32_t)(p - buf - JR_V2_HDR));
	jr_be32(buf + 8, 0); /* normalizing index offset */
	jr_be32(buf + 12, h->precision);
	jr_be64(buf + 16, 1); /* lowest discernible value: 1 ns */
	jr_be64(buf + 24, (1ULL << JR_HIST_MAX_LOG2) - 1);
	jr_be64(buf + 32, bits); /* integer to double ratio */
	return p - buf;
}

static const char jr_b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void jr_base64(const unsigned char *in, size_t n, char *out)
{
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = in[i] << 16 | in[i + 1] << 8 | in[i + 2];

		*out++ = jr_b64[v >> 18];
		*out++ = jr_b64[(v >> 12) & 63];
		*out++ = jr_b64[(v >> 6) & 63];
		*out++ = jr_b64[v & 63];
	}
	if (i < n) {
		uint32_t v = in[i] << 16 | (i + 1 < n ? in[i + 1] << 8 : 0);

		*out++ = jr_b64[v >> 18];
		*out++ = jr_b64[(v >> 12) & 63];
		*out++ = i + 1 < n ? jr_b64[(v >> 6) & 63] : '=';
		*out++ = '=';
	}
	*out = '\0';
}

/*
 * jr_hlog_encode - h as a compressed V2 histogram in base64, as an
 * interval log line holds it; NULL when out of memory.  Free the result.
 */
static char *jr_hlog_encode(const struct jr_hist *h)
{
	size_t raw_max = JR_V2_HDR + 9 * (size_t)(h->nr_counts + 1), raw;
	unsigned char *buf = malloc(raw_max), *z = NULL;
	uLongf zlen;
	char *out = NULL;

	if (!buf)
		return NULL;
	raw = jr_v2(h, buf);
	zlen = compressBound(raw);
	z = malloc(JR_V2Z_HDR + zlen);
	if (!z || compress(z + JR_V2Z_HDR, &zlen, buf, raw) != Z_OK)
		goto out;
	jr_be32(z, JR_V2Z_COOKIE);
	jr_be32(z + 4, (uint32_t)zlen);
	out = malloc(4 * ((JR_V2Z_HDR + zlen + 2) / 3) + 1);
	if (out)
		jr_base64(z, JR_V2Z_HDR + zlen, out);
out:
	free(z);
	free(buf);
	return out;
}

/*
 * jr_hlog_open - start the log on f: its header, and the start time when
 * start_epoch_s is known (a live run), so that readers can place it.
 */
int jr_hlog_open(struct jr_hlog *l, FILE *f, uint64_t interval_ns,
		 int precision, double start_epoch_s)
{
	char when[64] = "";
	time_t t = (time_t)start_epoch_s;
	struct tm tm;

	memset(l, 0, sizeof(*l));
	l->cpu = calloc(JR_MAX_CPUS, sizeof(*l->cpu));
	if (!l->cpu)
		return -ENOMEM;
	l->f = f;
	l->interval_ns = interval_ns;
	l->precision = precision;
	fprintf(f, "#[Logged with jitread: each CPU's gaps, values in ns]\n");
	fprintf(f, "#[Histogram log format version 1.3]\n");
	if (start_epoch_s > 0) {
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%a %b %d %H:%M:%S UTC %Y",
				 &tm);
		fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n",
			start_epoch_s, when);
		fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n",
			start_epoch_s);
	}
	fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		   "\"Interval_Compressed_Histogram\"\n");
	return 0;
}

/* jr_hlog_line - CPU cpu's open interval as a line, then a fresh one. */
static void jr_hlog_line(struct jr_hlog *l, int cpu, struct jr_hlog_cpu *c)
{
	double len = l->interval_ns / 1e9;
	uint64_t max = c->h.count ? jr_hist_highest_equiv(&c->h, c->h.max) : 0;
	char *b64 = jr_hlog_encode(&c->h);

	if (!b64) {
		l->err = l->err ?: -ENOMEM;
	} else if (fprintf(l->f, "Tag=cpu%d,%.6f,%.6f,%.6f,%s\n", cpu,
			   (c->k - l->k0) * len, len, max / 1e6, b64) < 0) {
		l->err = l->err ?: -EIO;
	}
	free(b64);
	jr_hist_free(&c->h);
	jr_hist_init(&c->h, l->precision);
	c->used = false;
}

/* jr_hlog_add - one record; a gap goes into its CPU's interval. */
int jr_hlog_add(struct jr_hlog *l, const struct jr_rec *r)
{
	uint64_t k = r->ts_ns / l->interval_ns;
	struct jr_hlog_cpu *c;

	if (l->err || r->cpu >= JR_MAX_CPUS)
		return l->err;
	if (!l->started) {
		l->k0 = k;
		l->started = true;
	}
	if (k < l->k0)
		k = l->k0; /* read late, from before the first interval */
	c = l->cpu[r->cpu];
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return l->err = -ENOMEM;
		jr_hist_init(&c->h, l->precision);
		c->k = k;
		l->cpu[r->cpu] = c;
	}
	if (k > c->k) {
		if (c->used)
			jr_hlog_line(l, r->cpu, c);
		c->k = k;
	}
	c->used = true;
	if (r->type == JR_GAP && jr_hist_record(&c->h, r->v[0]))
		l->err = -ENOMEM;
	return l->err;
}

/*
 * jr_hlog_close - write every CPU's open interval and free the log; the
 * caller closes the file.  0, -ENOMEM or -EIO (the first error seen).
 */
int jr_hlog_close(struct jr_hlog *l)
{
	int cpu;

	if (!l->cpu)
		return l->err;
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		struct jr_hlog_cpu *c = l->cpu[cpu];

		if (!c)
			continue;
		if (c->used && !l->err)
			jr_hlog_line(l, cpu, c);
		jr_hist_free(&c->h);
		free(c);
	}
	free(l->cpu);
	l->cpu = NULL;
	if (l->f && (ferror(l->f) || fflush(l->f)))
		l->err = l->err ?: -EIO;
	return l->err;
}
