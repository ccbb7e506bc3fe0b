// SPDX-License-Identifier: GPL-2.0
/*
 * jdoc_test.c - common/jr_jdoc.c: on each text below, and on each file
 * named on the command line, it must take and read what jansson takes and
 * reads, and refuse what jansson refuses (fuzz/jr_jdoc_same.h); then its
 * own promises: the line of an error, strings cut at a character's edge,
 * members found or none.  Prints "ok", or each case that fails.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_sys.h"
#include "fuzz/jr_jdoc_same.h"

static const char *const cases[] = {
	"{}",
	"[]",
	" [ ] ",
	"{\"a\":1}",
	"[1,2,3]",
	"[[],[[]],{}]",
	"{\"a\":{\"b\":[1,{\"c\":null}]},\"d\":true,\"e\":false}",
	"[0,-0,-1,9223372036854775807,-9223372036854775808]",
	"[9223372036854775808]",
	"[-9223372036854775809]",
	"[1.5,-0.25,1e3,1E-3,2e+2,0.0,1e-400]",
	"[1e400]",
	"[-1e400]",
	"[01]",
	"[1.]",
	"[.5]",
	"[-]",
	"[1e]",
	"[+1]",
	"[0x10]",
	"[1,]",
	"[,1]",
	"{,}",
	"{\"a\":1,}",
	"{\"a\"}",
	"{\"a\" 1}",
	"{1:2}",
	"[\"\\u0041\\n\\t\\\"\\\\\\/\\b\\f\\r\"]",
	"[\"\\u00e9\\u20ac\"]",
	"[\"\\ud83d\\ude00\"]",
	"[\"\\ud83d\"]",
	"[\"\\ude00\"]",
	"[\"\\ud83dx\"]",
	"[\"\\u0000\"]",
	"[\"\\x\"]",
	"[\"\\u12\"]",
	"[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]",
	"[\"\xc0\xaf\"]",
	"[\"\xe0\x80\xaf\"]",
	"[\"\xf0\x80\x80\xaf\"]",
	"[\"\xed\xa0\x80\"]",
	"[\"\xf4\x90\x80\x80\"]",
	"[\"\xe2\x82\"]",
	"[\"\x80\"]",
	"[\"a\tb\"]",
	"[\"abc",
	"[\"",
	"[",
	"{",
	"[1",
	"",
	"  ",
	"1",
	"\"a\"",
	"null",
	"[true,false,null]",
	"[tru]",
	"[nul]",
	"[truex]",
	"[] []",
	"[]x",
	"\xef\xbb\xbf[]",
	"{\"a\":1,\"a\":2}",
	"{\"a\":1,\"\\u0061\":2}",
	"{\"a\":{\"a\":1},\"b\":{\"a\":2}}",
	"{\"ab\":1,\"ba\":2,\"a\":3}",
	"{\"a\":[{\"x\":1,\"x\":1}]}",
};

static int fails;

static void check(const char *what, int ok)
{
	if (!ok) {
		printf("FAIL %s\n", what);
		fails++;
	}
}

/* deep - n arrays, one in the other */
static void deep(size_t n, int ok)
{
	char *s = malloc(2 * n + 1);
	struct jr_jdoc d = { 0 };
	struct jr_jv root;
	struct jr_err e;

	memset(s, '[', n);
	memset(s + n, ']', n);
	check(ok ? "2048 deep taken" : "2049 deep refused",
	      (!jr_jdoc_open(&d, s, 2 * n, &root, &e)) == ok &&
		      !jr_jdoc_same(s, 2 * n));
	jr_jdoc_free(&d);
	free(s);
}

static void promises(void)
{
	const char *t = "{\"n\": \"\xc3\xa9t\xc3\xa9\", \"x\": [1, 2.5],\n"
			"\"o\": {\"k\": \"v\"}}";
	struct jr_jdoc d = { 0 };
	struct jr_jv root, v;
	struct jr_err e;
	const char *raw;
	char buf[8], *s;
	double r;
	int64_t i;

	check("opens", !jr_jdoc_open(&d, t, strlen(t), &root, &e));
	v = jr_jv_get(&d, root, "n");
	check("a string of 5 bytes fits 8",
	      !jr_jv_str(&d, v, buf, sizeof(buf)) &&
		      !strcmp(buf, "\xc3\xa9t\xc3\xa9"));
	check("cut before the e-acute that does not fit",
	      jr_jv_str(&d, v, buf, 5) == -E2BIG && !strcmp(buf, "\xc3\xa9t"));
	s = jr_jv_strdup(&d, v);
	check("a copy", s && !strcmp(s, "\xc3\xa9t\xc3\xa9"));
	free(s);
	check("no string", jr_jv_str(&d, jr_jv_get(&d, root, "x"), buf,
				     sizeof(buf)) == -EINVAL &&
				   !buf[0]);
	check("a member that is not there is none",
	      !jr_jv_present(jr_jv_get(&d, root, "nn")) &&
		      jr_jv_type(&d, jr_jv_get(&d, root, "nn")) == JR_JV_NONE &&
		      !jr_jv_size(&d, jr_jv_get(&d, root, "nn")));
	v = jr_jv_get(&d, root, "x");
	check("2 elements", jr_jv_size(&d, v) == 2);
	check("an integer is a number too",
	      jr_jv_int(&d, jr_jv_first(&d, v), &i) && i == 1 &&
		      jr_jv_num(&d, jr_jv_first(&d, v), &r) && r == 1);
	v = jr_jv_next(&d, jr_jv_first(&d, v));
	check("a real is no integer",
	      !jr_jv_int(&d, v, &i) && jr_jv_num(&d, v, &r) && r == 2.5);
	check("the last element has no next",
	      !jr_jv_present(jr_jv_next(&d, v)));
	check("the first key's value",
	      jr_jv_streq(&d, jr_jv_first(&d, root), "n") &&
		      jr_jv_value(&d, jr_jv_first(&d, root)).at ==
			      jr_jv_get(&d, root, "n").at);
	v = jr_jv_get(&d, jr_jv_get(&d, root, "o"), "k");
	check("a member of a member", jr_jv_streq(&d, v, "v") &&
					      !jr_jv_streq(&d, v, "vv") &&
					      !jr_jv_streq(&d, v, ""));
	check("raw text", jr_jv_raw(&d, jr_jv_get(&d, root, "o"), &raw) == 10 &&
				  !strncmp(raw, "{\"k\": \"v\"}", 10));
	jr_jdoc_free(&d);
	check("the error's line",
	      jr_jdoc_open(&d, "[1,\n2,\n]", 8, &root, &e) == -EINVAL &&
		      strstr(e.msg, "not JSON: line 3: ") == e.msg);
	jr_jdoc_free(&d);
}

int main(int argc, char **argv)
{
	const char *why;
	struct jr_err e;
	size_t i, len;
	char *text;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why = jr_jdoc_same(cases[i], strlen(cases[i]));
		if (why) {
			printf("FAIL case %zu %s: %s\n", i, cases[i], why);
			fails++;
		}
	}
	for (i = 1; i < (size_t)argc; i++) {
		text = jr_read_file(argv[i], 64UL << 20, &len, &e);
		why = text ? jr_jdoc_same(text, len) : e.msg;
		if (why) {
			printf("FAIL %s: %s\n", argv[i], why);
			fails++;
		}
		free(text);
	}
	deep(JR_JDOC_DEPTH, 1);
	deep(JR_JDOC_DEPTH + 1, 0);
	promises();
	if (!fails)
		printf("ok\n");
	return !!fails;
}
