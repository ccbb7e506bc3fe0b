/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_check.h - CHECK(cond) for the C host tests: a line per failed check,
 * and `failed` for main's exit code.
 */
#ifndef JR_CHECK_H
#define JR_CHECK_H

#include <stdio.h>

static int failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			failed = 1;                                            \
		}                                                              \
	} while (0)

#endif /* JR_CHECK_H */
