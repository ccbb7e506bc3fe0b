/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_advise_fill.h - a rule's texts with this system's values filled in.
 *
 * In a template, {name} is a value and `...` a command for a user to
 * paste as root.  A value that goes into a command is checked for its
 * kind first (a pid is digits, a function a C identifier, a CPU list a
 * CPU list) and shell-quoted; one that fails leaves the advice without a
 * command, saying why.  The backquotes are not printed.
 */
#ifndef JR_ADVISE_FILL_H
#define JR_ADVISE_FILL_H

#include <stddef.h>

#define JR_ADV_TEXT 512 /* a text of advice */
#define JR_ADV_CMDS 4 /* commands to paste, from a fix and its check */

/* the commands of one piece of advice, or why there are none */
struct jr_cmds {
	char cmd[JR_ADV_CMDS][JR_ADV_TEXT];
	int nr;
	char why[JR_ADV_TEXT]; /* "" while the values were fit */
};

/* the fill-ins of one piece of advice's texts */
struct jr_fill {
	int cpu;
	char irq[16];
	char pid[32];
	char comm[64];
	char fn[96];
	char sib[16];
	char from[24]; /* an IPI's sender: "CPU 0", or "another CPU" */
	const char *hk;
	const char *hkmask;
	const char *hv; /* the hypervisor, by name */
	const char *tell; /* what tells the hardware's gaps apart here */
};

void jr_fill_row(struct jr_fill *f, const char *src, const char *det);
int jr_expand(const char *tmpl, const struct jr_fill *f, char *buf, size_t len,
	      struct jr_cmds *c);

#endif /* JR_ADVISE_FILL_H */
