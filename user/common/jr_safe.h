/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_safe.h - output files that no other user can redirect.
 *
 * jitread runs as root and writes where it is told.  A directory it
 * writes in must be trusted: it and every directory above it owned by
 * root or the caller, none writable by group or others unless sticky, and
 * no symbolic link on the way owned by anyone else.  A file in it is
 * opened without following a link, created 0600, and must be a regular
 * file of the caller's with one link before it is emptied: in a sticky
 * directory such as /tmp another user may have made the name first.  A
 * character device or a FIFO of root's or the caller's (/dev/null) is
 * written as it is.
 */
#ifndef JR_SAFE_H
#define JR_SAFE_H

#include <stdio.h>

#include "common/jr_err.h"

int jr_safe_dir(const char *path, int create, struct jr_err *e);
int jr_safe_file_at(int dfd, const char *dir, const char *name,
		    struct jr_err *e);
int jr_safe_parent(const char *path, struct jr_err *e);
FILE *jr_safe_fopen(const char *path, struct jr_err *e);

#endif /* JR_SAFE_H */
