/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_parse.h - CPU lists, bounded numbers, times with units and the
 * values of a "k=v k=v" line.
 */
#ifndef JR_PARSE_H
#define JR_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/jr_err.h"

#define JR_MAX_CPUS 4096

#define JR_NS 1ULL
#define JR_US 1000ULL
#define JR_MS 1000000ULL
#define JR_S 1000000000ULL

int jr_parse_cpus(const char *text, unsigned char *set, struct jr_err *e);
int jr_parse_u64(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
int jr_parse_size(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
int jr_parse_time(const char *text, uint64_t bare_ns, uint64_t lo_ns,
		  uint64_t hi_ns, uint64_t *ns);
const char *jr_param_value(const char *params, const char *key, char *buf,
			   size_t len);

#endif /* JR_PARSE_H */
