// SPDX-License-Identifier: GPL-2.0
/*
 * survey_test.c - rank 0's merge (core/jr_survey.c) on the reports named
 * on the command line, as if each came from a rank: prints "ok" or
 * "refused: WHY" per file, then merges what was taken.  Exits 0 unless
 * the merge itself fails.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

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
	struct jr_survey s;
	struct jr_err e;
	int i, ret = 0;

	if (argc < 2 || jr_survey_init(&s, argc - 1, "gaps", 3))
		return 2;
	for (i = 1; i < argc; i++) {
		size_t len = 0;
		char *text = slurp(argv[i], &len);

		if (!text)
			return 2;
		if (jr_survey_add(&s, i - 1, text, len, &e))
			printf("refused: %s\n", e.msg);
		else
			printf("ok\n");
		free(text);
	}
	if (jr_survey_analyse(&s))
		ret = 1;
	jr_survey_free(&s);
	return ret;
}
