// SPDX-License-Identifier: GPL-2.0
/*
 * jr_strtab.c - each distinct string kept once (see jr_strtab.h).  A put
 * that fails returns -ENOMEM and keeps every string put before it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jr_strtab.h"

/* a table's text stays below this, so that an offset fits 32 bits */
#define JR_STRTAB_MAX_TEXT (1U << 31)

/* jr_strtab_hash - FNV-1a over the string's bytes */
static uint32_t jr_strtab_hash(const char *s)
{
	uint32_t h = 2166136261U;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619U;
	return h;
}

const char *jr_strtab_str(const struct jr_strtab *t, uint32_t id)
{
	return id && id < t->nr ? t->text.p + t->at[id] : "";
}

/* jr_strtab_find - s's slot: the one that holds it, or the free one */
static uint32_t jr_strtab_find(const struct jr_strtab *t, const char *s)
{
	uint32_t i = jr_strtab_hash(s) & (t->nr_slots - 1);

	while (t->slot[i] && strcmp(jr_strtab_str(t, t->slot[i]), s))
		i = (i + 1) & (t->nr_slots - 1);
	return i;
}

/* jr_strtab_grow - room for one more id, and slots at most half full */
static int jr_strtab_grow(struct jr_strtab *t)
{
	uint32_t n = t->nr_slots ? t->nr_slots * 2 : 64, *slot, *at, i, j;

	if (t->nr + 1 > t->cap) {
		at = realloc(t->at, (t->cap ? t->cap * 2 : 32) * sizeof(*at));
		if (!at)
			return -ENOMEM;
		t->at = at;
		t->cap = t->cap ? t->cap * 2 : 32;
		if (!t->nr) {
			t->at[0] = 0;
			t->nr = 1;
		}
	}
	if (2 * (t->nr + 1) <= t->nr_slots)
		return 0;
	slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (i = 1; i < t->nr; i++) {
		j = jr_strtab_hash(jr_strtab_str(t, i)) & (n - 1);
		while (slot[j])
			j = (j + 1) & (n - 1);
		slot[j] = i;
	}
	free(t->slot);
	t->slot = slot;
	t->nr_slots = n;
	return 0;
}

/* jr_strtab_put - s's id, s added when it is new */
int jr_strtab_put(struct jr_strtab *t, const char *s, uint32_t *id)
{
	size_t len = strlen(s);
	uint32_t i;

	*id = 0;
	if (!len)
		return 0;
	if (t->nr_slots) {
		i = jr_strtab_find(t, s);
		if (t->slot[i]) {
			*id = t->slot[i];
			return 0;
		}
	}
	if (t->text.len + len + 1 > JR_STRTAB_MAX_TEXT || jr_strtab_grow(t))
		return -ENOMEM;
	jr_buf_put(&t->text, s, len + 1);
	if (t->text.oom)
		return -ENOMEM;
	t->at[t->nr] = (uint32_t)(t->text.len - len - 1);
	t->slot[jr_strtab_find(t, s)] = t->nr;
	*id = t->nr++;
	return 0;
}

void jr_strtab_free(struct jr_strtab *t)
{
	jr_buf_free(&t->text);
	free(t->at);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
