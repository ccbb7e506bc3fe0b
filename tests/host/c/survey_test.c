// SPDX-License-Identifier: GPL-2.0
/*
 * survey_test.c - rank 0's merge (core/jr_survey.c) on the reports named
 * on the command line, as if each came from a rank: prints "ok" or
 * "refused: WHY" per file, then merges what was taken.  FILE@RTT gives
 * that rank the round trip of its clock round (-1: it never answered;
 * rank 0's is 0 unless given).  With --text (or --json) first, the
 * fleet's text (or JSON) report follows.  Exits 0 unless the merge
 * itself fails.
 *
 * survey_test --ranks N FILE merges FILE as the report of each of N
 * ranks, each on a host of its own, writes the fleet's JSON to /dev/null
 * and prints the process's peak resident size: "maxrss_kb K".  FILE's
 * host is named by HOST_MARK; each rank's copy names it by its rank.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/jr_report.h"
#include "core/jr_survey.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

/*
 * peak_rss_kb - this process's peak resident size: VmHWM, its memory's
 * own, since Linux carries ru_maxrss over an exec from the process that
 * forked it (a Python test's or bench's tens of MB)
 */
static long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	struct rusage ru;
	char line[128];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (kb < 0 && !getrusage(RUSAGE_SELF, &ru))
		kb = ru.ru_maxrss;
	return kb;
}

#define HOST_MARK "\"host\": \"host-000000\""

/* many_ranks - FILE as the report of each of n ranks */
static int many_ranks(int n, const char *path)
{
	struct jr_survey s;
	struct jr_err e;
	size_t len = 0;
	char *text = slurp(path, &len), *host, digits[12];
	FILE *null = fopen("/dev/null", "w");
	int i, ret = 0;

	host = text ? strstr(text, HOST_MARK) : NULL;
	if (n < 1 || n > 999999 || !host || !null ||
	    jr_survey_init(&s, n, "gaps", 3))
		return 2;
	host += strlen(HOST_MARK) - 7;
	for (i = 0; i < n && !ret; i++) {
		snprintf(digits, sizeof(digits), "%06d", i);
		memcpy(host, digits, 6);
		s.r[i].rtt_ns = 0;
		if (jr_survey_add(&s, i, text, len, &e)) {
			printf("refused: %s\n", e.msg);
			ret = 1;
		}
	}
	free(text);
	if (!ret && (jr_survey_analyse(&s) || jr_survey_json(null, &s, 2)))
		ret = 1;
	jr_survey_free(&s);
	fclose(null);
	printf("maxrss_kb %ld\n", peak_rss_kb());
	return ret;
}

int main(int argc, char **argv)
{
	bool text_out = argc > 1 && !strcmp(argv[1], "--text");
	bool json_out = argc > 1 && !strcmp(argv[1], "--json");
	int first = text_out || json_out ? 2 : 1, i, ret = 0;
	struct jr_survey s;
	struct jr_err e;

	if (argc == 4 && !strcmp(argv[1], "--ranks"))
		return many_ranks(atoi(argv[2]), argv[3]);
	if (argc <= first || jr_survey_init(&s, argc - first, "gaps", 3))
		return 2;
	for (i = first; i < argc; i++) {
		char *at = strchr(argv[i], '@'), *text;
		struct jr_srank *r = &s.r[i - first];
		size_t len = 0;

		if (at)
			*at = '\0';
		text = slurp(argv[i], &len);
		if (!text)
			return 2;
		if (jr_survey_add(&s, i - first, text, len, &e))
			printf("refused: %s\n", e.msg);
		else
			printf("ok\n");
		r->rtt_ns = at	       ? strtoll(at + 1, NULL, 10) :
			    i == first ? 0 :
					 -1;
		free(text);
	}
	if (jr_survey_analyse(&s))
		ret = 1;
	else if (text_out)
		jr_survey_text(stdout, &s, 2,
			       &(struct jr_report_opts){ .unit = "us",
							 .div = 1e3 });
	else if (json_out && jr_survey_json(stdout, &s, 2))
		ret = 1;
	jr_survey_free(&s);
	return ret;
}
