// SPDX-License-Identifier: GPL-2.0
/*
 * jr_mpi_load.c - jitread-mpi.so, loaded only by jitread survey: jitread
 * itself does not link the MPI library.  It is found beside jitread (a
 * build tree) or, installed, in ../lib/jitread from jitread's directory
 * (PREFIX/bin/jitread, PREFIX/lib/jitread/jitread-mpi.so).
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
#define JR_MPI_INSTALLED "lib/jitread/" JR_MPI_PLUGIN

/*
 * jr_mpi_path - into path, the plugin beside jitread if there is one,
 * else where make install puts it; 0 or a negative errno
 */
static int jr_mpi_path(char *path, size_t len, struct jr_err *e)
{
	char exe[PATH_MAX], *slash;
	struct stat st;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return jr_fail(e, -errno, "/proc/self/exe: %s",
			       strerror(errno));
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return jr_fail(e, -EINVAL, "%s: no directory", exe);
	*slash = '\0';
	if (snprintf(path, len, "%s/%s", exe, JR_MPI_PLUGIN) >= (int)len)
		return jr_fail(e, -ENAMETOOLONG, "%s: too long", exe);
	if (!lstat(path, &st))
		return 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	if (snprintf(path, len, "%s/%s", exe, JR_MPI_INSTALLED) >= (int)len)
		return jr_fail(e, -ENAMETOOLONG, "%s: too long", exe);
	return 0;
}

const struct jr_mpi_ops *jr_mpi_load(struct jr_err *e)
{
	const struct jr_mpi_ops *ops;
	char path[PATH_MAX];
	struct stat st;
	void *h;

	if (jr_mpi_path(path, sizeof(path), e))
		return NULL;
	if (lstat(path, &st)) {
		jr_fail(e, -errno,
			"%s: %s, nor beside jitread (jitread survey needs it: the jitread-mpi package, or libopenmpi-dev and a rebuild)",
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
