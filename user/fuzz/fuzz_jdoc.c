// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_jdoc.c - libFuzzer target: common/jr_jdoc.c, the JSON reader of
 * reports and rank reports, against jansson on arbitrary bytes: the same
 * texts taken, the same values read (jr_jdoc_same.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/jr_jdoc_same.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = jr_jdoc_same((const char *)data, size);

	if (why) {
		fprintf(stderr, "fuzz_jdoc: %s\n", why);
		abort();
	}
	return 0;
}
