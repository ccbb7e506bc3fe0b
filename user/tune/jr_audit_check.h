/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_audit_check.h - the audit as a checklist, and its text and JSON.
 */
#ifndef JR_AUDIT_CHECK_H
#define JR_AUDIT_CHECK_H

#include <stdio.h>

#include "tune/jr_audit.h"

enum jr_check_status {
	JR_CHECK_OK,
	JR_CHECK_WARN,
	JR_CHECK_INFO,
};

struct jr_check {
	int cpu; /* -1: the machine */
	const char *id; /* stable, for scripts: "irqs", "nohz_full", ... */
	enum jr_check_status status;
	char text[512];
};

struct jr_checks {
	struct jr_check *k;
	int nr;
	int warnings;
};

int jr_audit_checks(const struct jr_audit *a, struct jr_checks *c);
const char *jr_check_status_name(enum jr_check_status st);
int jr_audit_text(FILE *out, const struct jr_audit *a,
		  const struct jr_checks *c);
int jr_audit_json(FILE *out, const struct jr_audit *a,
		  const struct jr_checks *c, bool envelope);

#endif /* JR_AUDIT_CHECK_H */
