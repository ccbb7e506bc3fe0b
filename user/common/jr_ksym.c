// SPDX-License-Identifier: GPL-2.0
/*
 * jr_ksym.c - kernel text addresses to names, from /proc/kallsyms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_ksym.h"

/*
 * Sorted kernel symbols: loaded by jr_ksym_preload() before a live run
 * samples, else on the first address to name (a report of a recording).
 */
struct jr_sym {
	uint64_t addr;
	char name[JR_SYM_LEN];
};

static struct jr_sym *jr_syms;
static size_t jr_nr_syms;
static int jr_syms_loaded;

static int jr_sym_cmp(const void *a, const void *b)
{
	const struct jr_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void jr_load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], type, name[256];
	unsigned long long addr;
	size_t cap = 0;

	jr_syms_loaded = 1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    !addr || (type != 't' && type != 'T'))
			continue;
		if (jr_nr_syms == cap) {
			struct jr_sym *n;

			cap = cap ? cap * 2 : 65536;
			n = realloc(jr_syms, cap * sizeof(*n));
			if (!n)
				break;
			jr_syms = n;
		}
		jr_syms[jr_nr_syms].addr = addr;
		name[JR_SYM_LEN - 1] = '\0'; /* keep what fits */
		memcpy(jr_syms[jr_nr_syms].name, name, JR_SYM_LEN);
		jr_nr_syms++;
	}
	fclose(f);
	qsort(jr_syms, jr_nr_syms, sizeof(*jr_syms), jr_sym_cmp);
}

/*
 * jr_ksym_preload - load the symbols now, before sampling starts.  Their
 * load is a burst of CPU time (most of a second on a small guest); left
 * to the first address a run names, it falls inside the measurement, on
 * the CPU jitread's reader shares, while the run's rings fill.
 */
void jr_ksym_preload(void)
{
	if (!jr_syms_loaded)
		jr_load_kallsyms();
}

/*
 * jr_kptr_shown - whether kptr_restrict shows kernel addresses to every
 * user (0).  Reports are often world-readable, so anything else, or a
 * file that cannot be read, hides them.
 */
static int jr_kptr_shown(void)
{
	static int shown = -1;
	FILE *f;
	int v;

	if (shown >= 0)
		return shown;
	f = fopen("/proc/sys/kernel/kptr_restrict", "r");
	shown = f && fscanf(f, "%d", &v) == 1 && v == 0;
	if (f)
		fclose(f);
	return shown;
}

/*
 * jr_ksym_name - the text symbol at or below addr; else the address in
 * hex if show_addr, or "unresolved".
 */
const char *jr_ksym_name(uint64_t addr, int show_addr, char *buf, size_t len)
{
	size_t lo = 0, hi;

	if (!jr_syms_loaded)
		jr_load_kallsyms();
	hi = jr_nr_syms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (jr_syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - jr_syms[lo - 1].addr < (1 << 20))
		snprintf(buf, len, "%s", jr_syms[lo - 1].name);
	else if (show_addr)
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	else
		snprintf(buf, len, "unresolved");
	return buf;
}

/* jr_ksym - jr_ksym_name(), showing an address only as kptr_restrict does */
const char *jr_ksym(uint64_t addr, char *buf, size_t len)
{
	return jr_ksym_name(addr, jr_kptr_shown(), buf, len);
}
