// SPDX-License-Identifier: GPL-2.0
/*
 * jr_mpi_load.c - jitread-mpi.so, found beside jitread and loaded only by
 * jitread survey: jitread itself does not link the MPI library.
 *
 * jitread may run as root, so the plugin must be as trusted as an output
 * directory: it and the directories above it root's or the caller's and
 * writable by no one else.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jr_safe.h"
#include "fleet/jr_mpi_load.h"

#define JR_MPI_PLUGIN "jitread-mpi.so"

const struct jr_mpi_ops *jr_mpi_load(struct jr_err *e)
{
	char path[PATH_MAX], *slash;
	const struct jr_mpi_ops *ops;
	struct stat st;
	ssize_t n;
	void *h;

	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n < 0) {
		jr_fail(e, -errno, "/proc/self/exe: %s", strerror(errno));
		return NULL;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash ||
	    (size_t)(slash + 1 - path) + sizeof(JR_MPI_PLUGIN) > sizeof(path)) {
		jr_fail(e, -ENAMETOOLONG, "%s: no directory", path);
		return NULL;
	}
	strcpy(slash + 1, JR_MPI_PLUGIN);
	if (lstat(path, &st)) {
		jr_fail(e, -errno,
			"%s: %s (jitread survey needs it: install libopenmpi-dev and rebuild jitread)",
			path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 022) ||
	    (st.st_uid && st.st_uid != geteuid())) {
		jr_fail(e, -EPERM,
			"%s: not a regular file of root's or yours that only its owner may write",
			path);
		return NULL;
	}
	if (jr_safe_parent(path, e))
		return NULL;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		jr_fail(e, -ENOENT, "%s", dlerror());
		return NULL;
	}
	ops = dlsym(h, JR_MPI_SYMBOL);
	if (!ops || ops->abi != JR_MPI_ABI) {
		jr_fail(e, -EINVAL, "%s: not jitread %s's plugin", path,
			JR_MPI_SYMBOL);
		return NULL;
	}
	return ops;
}
