// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_survey.c - libFuzzer target: rank 0's survey merge on arbitrary
 * bytes as the reports of two ranks (one of them missing in half the
 * runs), then the fleet's analysis and its text and JSON.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>

#include "core/jr_report.h"
#include "core/jr_survey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_survey s;
	struct jr_err e;
	FILE *out;

	if (jr_survey_init(&s, 3, size & 1 ? "fwq" : "gaps", 3))
		return 0;
	jr_survey_add(&s, 0, (const char *)data, size, &e);
	jr_survey_add(&s, 1, (const char *)data, size, &e);
	if (size & 2)
		jr_survey_add(&s, 2, (const char *)data, size, &e);
	else
		jr_survey_missing(&s, 2, "fuzz: no report");
	out = fopen("/dev/null", "w");
	if (out && !jr_survey_analyse(&s)) {
		jr_survey_text(out, &s, 2,
			       &(struct jr_report_opts){ .unit = "us",
							 .div = 1e3 });
		jr_survey_json(out, &s, 2);
	}
	if (out)
		fclose(out);
	jr_survey_free(&s);
	return 0;
}
