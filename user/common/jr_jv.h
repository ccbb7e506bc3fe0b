/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_jv.h - the values of a JSON text that jr_jdoc_open() checked, read
 * where they lie (jr_jdoc.h).
 *
 * A jr_jv of a member that is not there is "none": every function takes
 * it and answers as for a value of no type (JR_JV_NONE, size 0, none).
 */
#ifndef JR_JV_H
#define JR_JV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/jr_jdoc.h"

enum jr_jtype {
	JR_JV_NONE,
	JR_JV_OBJECT,
	JR_JV_ARRAY,
	JR_JV_STRING,
	JR_JV_INTEGER,
	JR_JV_REAL,
	JR_JV_TRUE,
	JR_JV_FALSE,
	JR_JV_NULL,
};

enum jr_jtype jr_jv_type(const struct jr_jdoc *d, struct jr_jv v);
size_t jr_jv_size(const struct jr_jdoc *d, struct jr_jv v);
struct jr_jv jr_jv_get(const struct jr_jdoc *d, struct jr_jv obj,
		       const char *key);
struct jr_jv jr_jv_first(const struct jr_jdoc *d, struct jr_jv c);
struct jr_jv jr_jv_next(const struct jr_jdoc *d, struct jr_jv v);
struct jr_jv jr_jv_value(const struct jr_jdoc *d, struct jr_jv key);
bool jr_jv_int(const struct jr_jdoc *d, struct jr_jv v, int64_t *x);
bool jr_jv_num(const struct jr_jdoc *d, struct jr_jv v, double *x);
int jr_jv_str(const struct jr_jdoc *d, struct jr_jv v, char *buf, size_t cap);
char *jr_jv_strdup(const struct jr_jdoc *d, struct jr_jv v);
bool jr_jv_streq(const struct jr_jdoc *d, struct jr_jv v, const char *s);
size_t jr_jv_raw(const struct jr_jdoc *d, struct jr_jv v, const char **text);

static inline bool jr_jv_is(const struct jr_jdoc *d, struct jr_jv v,
			    enum jr_jtype t)
{
	return jr_jv_type(d, v) == t;
}

static inline bool jr_jv_present(struct jr_jv v)
{
	return v.at != SIZE_MAX;
}

#endif /* JR_JV_H */
