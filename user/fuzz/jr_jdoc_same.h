/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_jdoc_same.h - common/jr_jdoc.c judged against jansson, for the fuzz
 * target fuzz_jdoc and the host test tests/host/c/jdoc_test.c: both must
 * take or refuse the same texts, and what jr_jdoc reads of a text taken,
 * rebuilt as a jansson tree, must equal jansson's own.
 */
#ifndef JR_JDOC_SAME_H
#define JR_JDOC_SAME_H

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_jv.h"

/* jr_jdoc_tree - v, read through jr_jdoc, as a jansson value; NULL when a
 * container's members are not as many as jr_jv_size() says */
static json_t *jr_jdoc_tree(const struct jr_jdoc *d, struct jr_jv v)
{
	json_t *t = NULL, *x;
	struct jr_jv k;
	int64_t i;
	double r;
	char *s;

	switch (jr_jv_type(d, v)) {
	case JR_JV_OBJECT:
		t = json_object();
		for (k = jr_jv_first(d, v); t && jr_jv_present(k);
		     k = jr_jv_next(d, jr_jv_value(d, k))) {
			s = jr_jv_strdup(d, k);
			x = jr_jdoc_tree(d, jr_jv_value(d, k));
			if (!s || !x || json_object_set_new(t, s, x)) {
				json_decref(t);
				t = NULL;
			}
			free(s);
		}
		if (t && json_object_size(t) != jr_jv_size(d, v)) {
			json_decref(t);
			t = NULL;
		}
		break;
	case JR_JV_ARRAY:
		t = json_array();
		for (k = jr_jv_first(d, v); t && jr_jv_present(k);
		     k = jr_jv_next(d, k))
			if (json_array_append_new(t, jr_jdoc_tree(d, k))) {
				json_decref(t);
				t = NULL;
			}
		if (t && json_array_size(t) != jr_jv_size(d, v)) {
			json_decref(t);
			t = NULL;
		}
		break;
	case JR_JV_STRING:
		s = jr_jv_strdup(d, v);
		t = s ? json_string(s) : NULL;
		free(s);
		break;
	case JR_JV_INTEGER:
		t = jr_jv_int(d, v, &i) ? json_integer(i) : NULL;
		break;
	case JR_JV_REAL:
		t = jr_jv_num(d, v, &r) ? json_real(r) : NULL;
		break;
	case JR_JV_TRUE:
		t = json_true();
		break;
	case JR_JV_FALSE:
		t = json_false();
		break;
	case JR_JV_NULL:
		t = json_null();
		break;
	case JR_JV_NONE:
		break;
	}
	return t;
}

/*
 * jr_jdoc_same - NULL when jr_jdoc and jansson agree on text (or jr_jdoc
 * ran out of memory), else how they differ.  One difference is jansson's:
 * it takes a NUL byte right after a number or a word in an array, which
 * JSON does not allow outside a string, and jr_jdoc refuses.
 */
static const char *jr_jdoc_same(const char *text, size_t len)
{
	json_t *ref = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL), *t;
	const char *why = NULL;
	struct jr_jdoc d = { 0 };
	struct jr_jv root;
	struct jr_err e;
	int ret = jr_jdoc_open(&d, text, len, &root, &e);

	if (ret == -ENOMEM)
		why = NULL;
	else if (ret && ref && memchr(text, '\0', len))
		why = NULL; /* jansson drops a NUL after a number: "[1\0]" */
	else if (!ret != !!ref)
		why = ref ? "jr_jdoc refused what jansson took" :
			    "jr_jdoc took what jansson refused";
	else if (ref) {
		t = jr_jdoc_tree(&d, root);
		if (!json_equal(t, ref))
			why = "jr_jdoc read another value than jansson";
		json_decref(t);
	}
	jr_jdoc_free(&d);
	json_decref(ref);
	return why;
}

#endif /* JR_JDOC_SAME_H */
