/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_kparams.h - jitmod's module parameters, saved and put back.
 */
#ifndef JR_KPARAMS_H
#define JR_KPARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/jr_err.h"
#include "core/jr_rec.h"

#define JR_PARAMS_DIR "/sys/module/jitmod/parameters"
#define JR_MAX_SAVED 12

/*
 * What a run changed in jitmod, with the values it found: put back at the
 * end of the run, as rtla puts back the osnoise tracer's options.  Only
 * the run that owns jitmod's settings changes them (jr_kparams_owner.c).
 */
struct jr_ksave {
	int nr;
	struct {
		const char *name;
		uint64_t old;
	} p[JR_MAX_SAVED];
	bool owned; /* the lock is held: lock_fd and dir_fd are open */
	int lock_fd, dir_fd;
	const char *cmd; /* the owner's subcommand */
	uint64_t module_ino; /* which load of jitmod the values belong to */
};

int jr_write_param(const char *name, unsigned long long v);
int jr_read_param(const char *name, uint64_t *v);
int jr_param_change(struct jr_ksave *s, const char *name, uint64_t v);
int jr_params_restore(struct jr_ksave *s);
bool jr_module_loaded(void);

/* jr_kparams_owner.c */
int jr_params_claim(struct jr_ksave *s, const char *cmd, struct jr_err *e);
void jr_params_recover(void);
int jr_params_saved(const struct jr_ksave *s);
void jr_params_release(struct jr_ksave *s, bool put_back);

#endif /* JR_KPARAMS_H */
