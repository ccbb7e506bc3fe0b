// SPDX-License-Identifier: GPL-2.0
/*
 * jr_advise_fill.c - a rule's texts with this system's values filled in,
 * and the commands among them made safe to paste.
 *
 * The values come from a report, which may come from another machine:
 * a source named "thread:x[1;reboot]" must never put "reboot" in a
 * command that root pastes.  So a value in a command must be of its kind
 * and is then shell-quoted; a value with no kind a command can hold (a
 * task's name, the hypervisor's) is refused there, which the rules'
 * test makes sure never happens.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/jr_text.h"
#include "tune/jr_advise_fill.h"

enum jr_kind {
	JR_KIND_NUM, /* digits: a CPU, an IRQ, a pid */
	JR_KIND_FN, /* a C identifier, with the compiler's .suffixes */
	JR_KIND_CPULIST, /* 0-3,5 */
	JR_KIND_HEX, /* a cpumask */
	JR_KIND_PROSE, /* names and sentences: never in a command */
};

static const char *const jr_kind_names[] = {
	"a number", "a C identifier", "a CPU list", "a hex mask", "text",
};

/* jr_kind_ok - whether v, non-empty, is of kind k */
static bool jr_kind_ok(const char *v, enum jr_kind k)
{
	const char *p = v;
	bool dot = true;

	if (!*v || strlen(v) > 64)
		return false;
	switch (k) {
	case JR_KIND_NUM:
		return strspn(v, "0123456789") == strlen(v) && strlen(v) <= 10;
	case JR_KIND_HEX:
		return strspn(v, "0123456789abcdef,") == strlen(v);
	case JR_KIND_CPULIST:
		for (; *p; p++) {
			if (isdigit((unsigned char)*p))
				dot = false;
			else if ((*p != ',' && *p != '-') || dot)
				return false;
			else
				dot = true;
		}
		return !dot;
	case JR_KIND_FN:
		for (; *p; p++) {
			if (*p == '.' && !dot)
				dot = true;
			else if (isalpha((unsigned char)*p) || *p == '_' ||
				 (isdigit((unsigned char)*p) && p != v))
				dot = false;
			else
				return false;
		}
		return !dot;
	default:
		return false;
	}
}

/*
 * jr_sh_quote - v as the shell takes it as one word, into buf: bare when
 * every byte is plainly safe, else in single quotes.
 */
static void jr_sh_quote(const char *v, char *buf, size_t len)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				   "_.,:/=+-";
	size_t n = 0;

	if (*v && strspn(v, safe) == strlen(v)) {
		snprintf(buf, len, "%s", v);
		return;
	}
	buf[n++] = '\'';
	for (; *v && n + 5 < len; v++) {
		if (*v == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *v;
		}
	}
	buf[n++] = '\'';
	buf[n] = '\0';
}

/* jr_value - the value and kind of {name} (k bytes at name), or NULL */
static const char *jr_value(const struct jr_fill *f, const char *name, size_t k,
			    char *cpu, size_t len, enum jr_kind *kind)
{
	static const struct {
		const char *name;
		enum jr_kind kind;
	} ph[] = {
		{ "cpu", JR_KIND_NUM },	   { "hk", JR_KIND_CPULIST },
		{ "hkmask", JR_KIND_HEX }, { "irq", JR_KIND_NUM },
		{ "pid", JR_KIND_NUM },	   { "comm", JR_KIND_PROSE },
		{ "fn", JR_KIND_FN },	   { "sib", JR_KIND_NUM },
		{ "from", JR_KIND_PROSE }, { "hv", JR_KIND_PROSE },
		{ "tell", JR_KIND_PROSE },
	};
	const char *const v[] = { cpu,	   f->hk,   f->hkmask, f->irq,
				  f->pid,  f->comm, f->fn,     f->sib,
				  f->from, f->hv,   f->tell };
	size_t i;

	snprintf(cpu, len, "%d", f->cpu);
	for (i = 0; i < sizeof(ph) / sizeof(ph[0]); i++)
		if (strlen(ph[i].name) == k && !strncmp(name, ph[i].name, k)) {
			*kind = ph[i].kind;
			return v[i] ? v[i] : "";
		}
	return NULL;
}

/*
 * jr_expand - tmpl with its {names} filled in from f, into buf; each
 * `command` also into x->cmd[], when x is given.  0, or -EINVAL when a
 * value in a command is not of its kind: then x->why says which, and
 * nothing of tmpl is a command.
 */
int jr_expand(const char *tmpl, const struct jr_fill *f, char *buf, size_t len,
	      struct jr_cmds *x)
{
	char cmd[JR_ADV_TEXT] = "", cpu[16], q[2 * JR_ADV_TEXT];
	size_t n = 0, c = 0, k;
	bool in_cmd = false;
	int nr = 0, ret = 0;

	buf[0] = '\0';
	while (*tmpl && n + 1 < len) {
		const char *end = *tmpl == '{' ? strchr(tmpl, '}') : NULL;
		const char *v = NULL;
		enum jr_kind kind = JR_KIND_PROSE;

		if (*tmpl == '`') {
			tmpl++;
			if (in_cmd && x && !ret && nr < JR_ADV_CMDS &&
			    x->nr < JR_ADV_CMDS)
				snprintf(x->cmd[x->nr + nr++], JR_ADV_TEXT,
					 "%s", cmd);
			in_cmd = !in_cmd;
			c = 0;
			cmd[0] = '\0';
			continue;
		}
		if (end) {
			k = end - tmpl - 1;
			v = jr_value(f, tmpl + 1, k, cpu, sizeof(cpu), &kind);
		}
		if (v && in_cmd && !jr_kind_ok(v, kind) && !ret) {
			char safe[64];

			ret = -EINVAL;
			if (x)
				snprintf(x->why, sizeof(x->why),
					 "the report's %.*s '%s' is not %s",
					 (int)k, tmpl + 1,
					 jr_text_safe(v, safe, sizeof(safe)),
					 jr_kind_names[kind]);
		}
		if (v) {
			if (in_cmd) {
				jr_sh_quote(v, q, sizeof(q));
				v = q;
			}
			n += snprintf(buf + n, len - n, "%s", v);
			if (in_cmd && c < sizeof(cmd))
				c += snprintf(cmd + c, sizeof(cmd) - c, "%s",
					      v);
			tmpl = end + 1;
			continue;
		}
		if (in_cmd && c + 1 < sizeof(cmd)) {
			cmd[c++] = *tmpl;
			cmd[c] = '\0';
		}
		buf[n++] = *tmpl++;
		buf[n] = '\0';
	}
	if (n >= len)
		buf[len - 1] = '\0';
	if (x && !ret)
		x->nr += nr;
	return ret;
}

/*
 * jr_fill_row - what a row's name tells: IRQ, task, pid, function, and an
 * IPI's sender.
 */
void jr_fill_row(struct jr_fill *f, const char *src, const char *det)
{
	const char *b;
	int irq;

	if (sscanf(src, "irq:%d", &irq) == 1 && irq >= 0) {
		snprintf(f->irq, sizeof(f->irq), "%d", irq);
		b = strchr(src, ' ');
		snprintf(f->comm, sizeof(f->comm), "%s", b ? b + 1 : "");
	} else if (!strncmp(src, "thread:", 7) && (b = strrchr(src, '['))) {
		snprintf(f->comm, sizeof(f->comm), "%.*s", (int)(b - src - 7),
			 src + 7);
		snprintf(f->pid, sizeof(f->pid), "%.*s",
			 (int)strcspn(b + 1, "]"), b + 1);
	}
	if (det && (b = strchr(det, ':')))
		snprintf(f->fn, sizeof(f->fn), "%.*s",
			 (int)strcspn(b + 1, "@ "), b + 1);
	b = det ? strstr(det, " from CPU ") : NULL;
	snprintf(f->from, sizeof(f->from), "%s", b ? b + 6 : "another CPU");
}
