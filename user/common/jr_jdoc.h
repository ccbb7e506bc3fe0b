/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_jdoc.h - a strict JSON reader that builds no tree.
 *
 * jr_jdoc_open() checks a whole text once and refuses what jansson's
 * json_loadb() with JSON_REJECT_DUPLICATES refuses: anything but an
 * object or an array at the top, bytes after it, strings that are not
 * UTF-8 or hold a NUL, integers beyond int64_t, reals that overflow, a
 * key twice in one object, nesting deeper than JR_JDOC_DEPTH.  Of the
 * text it keeps one entry per object and array, in the order they open:
 * where each ends and how many members it has.  A value (struct jr_jv) is
 * then a place in the checked text, read where it lies: a container is
 * stepped over in one move, and nothing is copied that is not asked for.
 * jr_jv.h reads the values.
 */
#ifndef JR_JDOC_H
#define JR_JDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/jr_err.h"

#define JR_JDOC_DEPTH 2048 /* jansson's JSON_PARSER_MAX_DEPTH */

/* struct jr_jnode - an object or array: its closing byte, the ordinal of
 * the first container after it, its members (an object's: its keys) */
struct jr_jnode {
	size_t end;
	size_t next;
	size_t size;
};

struct jr_jkey; /* jr_jdoc.c's, while checking: keys of open objects */
struct jr_jopen; /* and the containers open */

struct jr_jdoc {
	const char *text; /* the caller's, kept while the document is read */
	size_t len;
	struct jr_jnode *tape;
	size_t nr, cap;
	struct jr_jkey *keys;
	size_t nr_keys, cap_keys;
	struct jr_jopen *open;
	size_t cap_open;
};

/* struct jr_jv - a value: its first byte and the ordinal of the first
 * container at or after it; at == SIZE_MAX: none */
struct jr_jv {
	size_t at;
	size_t ord;
};

#define JR_JV_ABSENT ((struct jr_jv){ SIZE_MAX, 0 })

int jr_jdoc_open(struct jr_jdoc *d, const char *text, size_t len,
		 struct jr_jv *root, struct jr_err *e);
void jr_jdoc_free(struct jr_jdoc *d);

#endif /* JR_JDOC_H */
