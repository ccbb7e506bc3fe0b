// SPDX-License-Identifier: GPL-2.0
/*
 * survey_test.c - rank 0's merge (core/jr_survey.c) on the reports named
 * on the command line, as if each came from a rank: prints "ok" or
 * "refused: WHY" per file, then merges what was taken.  FILE@RTT gives
 * that rank the round trip of its clock round (-1: it never answered;
 * rank 0's is 0 unless given).  With --text first, the fleet's text
 * report follows.  Exits 0 unless the merge itself fails.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
	bool text_out = argc > 1 && !strcmp(argv[1], "--text");
	int first = text_out ? 2 : 1, i, ret = 0;
	struct jr_survey s;
	struct jr_err e;

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
		jr_survey_text(stdout, &s, 2);
	jr_survey_free(&s);
	return ret;
}
