// SPDX-License-Identifier: GPL-2.0
/*
 * jr_envelope.c - the run's version, times, exit code and host in every
 * JSON document (see jr_envelope.h).
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/jr_envelope.h"
#include "core/jr_report.h"

static struct timespec jr_start;
static int jr_rc;

void jr_envelope_begin(void)
{
	clock_gettime(CLOCK_REALTIME, &jr_start);
}

void jr_envelope_rc(int rc)
{
	jr_rc = rc;
}

/* jr_iso8601 - ts as 2026-01-31T12:00:00.123456Z */
static void jr_iso8601(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	size_t n;

	if (!gmtime_r(&ts->tv_sec, &tm) ||
	    !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(buf, len, "unknown");
		return;
	}
	snprintf(buf + n, len - n, ".%06ldZ", ts->tv_nsec / 1000);
}

void jr_envelope_json(FILE *out)
{
	char start[40], end[40], host[256];
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (!jr_start.tv_sec)
		jr_start = now; /* a run that never began: a tool's test */
	jr_iso8601(&jr_start, start, sizeof(start));
	jr_iso8601(&now, end, sizeof(end));
	if (gethostname(host, sizeof(host)))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	fprintf(out,
		"\"jitread_version\": \"%s\", \"start_time\": \"%s\", "
		"\"end_time\": \"%s\", \"return_code\": %d, \"hostname\": ",
		JR_VERSION, start, end, jr_rc);
	jr_json_str(out, host);
}
