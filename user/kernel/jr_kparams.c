// SPDX-License-Identifier: GPL-2.0
/*
 * jr_kparams.c - jitmod's module parameters, changed and put back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/jr_parse.h"
#include "common/jr_sys.h"
#include "kernel/jr_kparams.h"

int jr_write_param(const char *name, unsigned long long v)
{
	char path[128];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), JR_PARAMS_DIR "/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%llu\n", v) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* jr_read_param - a numeric parameter of jitmod's. */
int jr_read_param(const char *name, uint64_t *v)
{
	char path[128], text[64];
	int ret;

	snprintf(path, sizeof(path), JR_PARAMS_DIR "/%s", name);
	ret = jr_read_line(path, text, sizeof(text));
	if (ret)
		return ret;
	return sscanf(text, "%" SCNu64, v) == 1 ? 0 : -EINVAL;
}

/*
 * jr_param_change - set a parameter, first noting the value it had, once
 * per name, in s and in the saved file, so that jr_params_restore() (or,
 * if this run is killed, the next owner) can put it back.  The run must
 * own jitmod's settings (jr_params_claim).
 */
int jr_param_change(struct jr_ksave *s, const char *name, uint64_t v)
{
	uint64_t old;
	int i, ret;

	if (!s->owned)
		return -EPERM;
	for (i = 0; i < s->nr && strcmp(s->p[i].name, name); i++)
		;
	if (i == s->nr) {
		if (s->nr == JR_MAX_SAVED)
			return -ENOSPC;
		ret = jr_read_param(name, &old);
		if (ret)
			return ret;
		s->p[s->nr].name = name;
		s->p[s->nr].old = old;
		s->nr++;
		ret = jr_params_saved(s);
		if (ret) {
			s->nr--;
			return ret;
		}
	}
	return jr_write_param(name, v);
}

/*
 * jr_params_restore - put back what jr_param_change() changed, newest
 * first, and give up the ownership; the first error, if any (the saved
 * file then stays for the next owner).  A module that went away has
 * nothing to put back.
 */
int jr_params_restore(struct jr_ksave *s)
{
	int ret = 0, r;

	if (!jr_module_loaded()) {
		s->nr = 0;
		jr_params_release(s, true);
		return 0;
	}
	while (s->nr > 0) {
		s->nr--;
		r = jr_write_param(s->p[s->nr].name, s->p[s->nr].old);
		if (r && !ret)
			ret = r;
	}
	jr_params_release(s, !ret);
	return ret;
}

bool jr_module_loaded(void)
{
	return access(JR_PARAMS_DIR, F_OK) == 0;
}
