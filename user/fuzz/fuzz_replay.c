// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_replay.c - libFuzzer target: the replay decoder, the analysis and
 * every report writer (JSON, text and the --hlog interval log) on
 * arbitrary bytes.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>

#include "core/jr_hlog.h"
#include "core/jr_model.h"
#include "core/jr_rec.h"
#include "core/jr_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jr_report_opts ro = { .unit = "ns", .div = 1.0 };
	struct jr_hlog hl = { 0 };
	struct jr_reader rd;
	struct jr_model m;
	struct jr_rec r;
	struct jr_err err;
	FILE *in, *out;

	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "rb");
	if (!in)
		return 0;
	if (jr_reader_attach(&rd, in, "fuzz", &err)) {
		fclose(in);
		return 0;
	}
	jr_model_init(&m, 3, 1000, 64);
	out = fopen("/dev/null", "w");
	/* 1 ms intervals: a few records span many */
	if (out && jr_hlog_open(&hl, out, 1000000, 3, 0))
		hl.f = NULL;
	while (jr_read(&rd, &r, &err) > 0) {
		if (jr_model_add(&m, &r))
			break;
		if (hl.f)
			jr_hlog_add(&hl, &r);
	}
	if (hl.f)
		jr_hlog_close(&hl);
	if (out) {
		jr_model_finish(&m);
		jr_report_json(out, &m, &rd.hdr.sys, &ro);
		jr_report_text(out, &m, &rd.hdr.sys, &ro);
		fclose(out);
	}
	jr_model_free(&m);
	fclose(in);
	return 0;
}
