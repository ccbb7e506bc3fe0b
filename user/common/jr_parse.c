// SPDX-License-Identifier: GPL-2.0
/*
 * jr_parse.c - CPU lists, bounded numbers and times with units.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/jr_parse.h"

/* jr_last_cpu - the CPU "N" names: the last one this machine has. */
static long jr_last_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n < 1 ? 0 : n > JR_MAX_CPUS ? JR_MAX_CPUS - 1 : n - 1;
}

/* jr_cpu_num - a CPU number or "N" at *p; -1 if there is none. */
static long jr_cpu_num(const char **p)
{
	char *end;
	long v;

	if (**p == 'N') {
		(*p)++;
		return jr_last_cpu();
	}
	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	v = strtol(*p, &end, 10);
	*p = end;
	return errno || v >= JR_MAX_CPUS ? -1 : v;
}

/*
 * jr_cpu_region - one region of a CPU list at *p, as the kernel's
 * bitmap_parselist() reads isolcpus= and nohz_full=: A, A-B, A-B:U/G
 * (U CPUs of every group of G from A to B) or all, with N for the last
 * CPU; its CPUs into set.  The number of CPUs set, or -1.
 */
static int jr_cpu_region(const char **p, unsigned char *set)
{
	long a, b, used, group, cpu;
	int n = 0;

	if (!strncmp(*p, "all", 3)) {
		*p += 3;
		a = 0;
		b = jr_last_cpu();
	} else {
		a = jr_cpu_num(p);
		b = a;
		if (a < 0)
			return -1;
		if (**p == '-') {
			(*p)++;
			b = jr_cpu_num(p);
			if (b < a)
				return -1;
		} else if (**p == ':') {
			return -1; /* a group wants a range */
		}
	}
	used = group = b - a + 1;
	if (**p == ':') {
		(*p)++;
		used = jr_cpu_num(p);
		if (used < 0 || **p != '/')
			return -1;
		(*p)++;
		group = jr_cpu_num(p);
		if (group < 1 || used > group)
			return -1;
	}
	for (cpu = a; cpu <= b; cpu++)
		if ((cpu - a) % group < used) {
			set[cpu] = 1;
			n++;
		}
	return n;
}

/*
 * jr_parse_cpus - a CPU list into a set: "1-3,5", and the kernel's own
 * syntax ("0-15:2/4", "N", "all"); an empty or bad list is an error.
 */
int jr_parse_cpus(const char *text, unsigned char *set, struct jr_err *e)
{
	const char *p = text;
	int n = 0, got;

	memset(set, 0, JR_MAX_CPUS);
	while (*p) {
		got = jr_cpu_region(&p, set);
		if (got < 0)
			goto bad;
		n += got;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (n)
		return 0;
bad:
	return jr_fail(e, -EINVAL,
		       "bad CPU list '%s' (want e.g. 1-3,5 or 0-15:2/4)", text);
}

/* jr_parse_u64 - a plain decimal number in [lo, hi]. */
int jr_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*text < '0' || *text > '9')
		return -EINVAL;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * jr_parse_size - a byte count with an optional binary unit: "65536",
 * "64K", "64M", "1G".  0, or -EINVAL outside [lo, hi] or on overflow.
 */
int jr_parse_size(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
	static const char units[] = "KMG";
	unsigned long long v;
	const char *u;
	char *end;
	int shift;

	errno = 0;
	if (*text < '0' || *text > '9')
		return -EINVAL;
	v = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end) {
		u = strchr(units, *end);
		if (!u || end[1])
			return -EINVAL;
		shift = 10 * (int)(u - units + 1);
		if (v > UINT64_MAX >> shift)
			return -EINVAL;
		v <<= shift;
	}
	if (v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static const struct {
	const char *name;
	uint64_t ns;
} jr_units[] = {
	{ "ns", JR_NS },       { "us", JR_US },	   { "ms", JR_MS },
	{ "s", JR_S },	       { "m", 60 * JR_S }, { "h", 3600 * JR_S },
	{ "d", 86400 * JR_S },
};

#define JR_NR_UNITS (sizeof(jr_units) / sizeof(jr_units[0]))

/*
 * jr_parse_time - "500ns", "2us", "1.5ms", "30s", "5m", "1h", "1d"; a
 * bare number is in units of bare_ns.  The result, in ns, must lie in
 * [lo_ns, hi_ns] and be a whole number of ns.
 */
int jr_parse_time(const char *text, uint64_t bare_ns, uint64_t lo_ns,
		  uint64_t hi_ns, uint64_t *ns)
{
	unsigned long long whole, frac = 0, scale = 1;
	uint64_t unit = bare_ns, v;
	const char *p;
	char *end;
	size_t i;

	errno = 0;
	if (*text < '0' || *text > '9')
		return -EINVAL;
	whole = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	p = end;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale >= 1000000000ULL)
				return -EINVAL;
			frac = frac * 10 + (*p - '0');
			scale *= 10;
		}
		if (scale == 1)
			return -EINVAL;
	}
	if (*p) {
		for (i = 0; i < JR_NR_UNITS && strcmp(p, jr_units[i].name); i++)
			;
		if (i == JR_NR_UNITS)
			return -EINVAL;
		unit = jr_units[i].ns;
	}
	if (whole > UINT64_MAX / unit)
		return -EINVAL;
	v = whole * unit;
	if (frac) {
		unsigned __int128 f = (unsigned __int128)frac * unit;

		if (f % scale)
			return -EINVAL; /* finer than a nanosecond */
		if (v + (uint64_t)(f / scale) < v)
			return -EINVAL;
		v += (uint64_t)(f / scale);
	}
	if (v < lo_ns || v > hi_ns)
		return -EINVAL;
	*ns = v;
	return 0;
}

/*
 * jr_param_value - the value of key in a "k=v k=v" line such as jitmod's
 * parameters in a report, copied into buf; NULL when key is not a word
 * of the line (or line is NULL).
 */
const char *jr_param_value(const char *params, const char *key, char *buf,
			   size_t len)
{
	size_t k = strlen(key);
	const char *p = params;

	while (p && (p = strstr(p, key))) {
		if ((p == params || p[-1] == ' ') && p[k] == '=') {
			snprintf(buf, len, "%.*s", (int)strcspn(p + k + 1, " "),
				 p + k + 1);
			return buf;
		}
		p += k;
	}
	return NULL;
}
