// SPDX-License-Identifier: GPL-2.0
/*
 * jr_safe.c - output files that no other user can redirect.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jr_safe.h"

/* jr_owner_ok - uid is root's or ours. */
static int jr_owner_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/*
 * jr_links_ok - no symbolic link on the way to path (as given, made
 * absolute) belongs to another user.
 */
static int jr_links_ok(const char *path, struct jr_err *e)
{
	char abs[PATH_MAX], *p;
	struct stat st;
	size_t n;

	if (path[0] == '/') {
		n = snprintf(abs, sizeof(abs), "%s", path);
	} else {
		if (!getcwd(abs, sizeof(abs)))
			return jr_fail(e, -errno, "%s: %s", path,
				       strerror(errno));
		n = strlen(abs);
		n += snprintf(abs + n, sizeof(abs) - n, "/%s", path);
	}
	if (n >= sizeof(abs))
		return jr_fail(e, -ENAMETOOLONG, "%s: path too long", path);
	for (p = abs + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (!lstat(abs, &st) && S_ISLNK(st.st_mode) &&
		    !jr_owner_ok(st.st_uid))
			return jr_fail(e, -EPERM,
				       "%s: refused: %s is a link of uid %u",
				       path, abs, (unsigned int)st.st_uid);
		*p = c;
		if (!c)
			return 0;
	}
}

/*
 * jr_dirs_ok - the directory resolved (a real path) and each one above it
 * is owned by root or us, and not writable by group or others unless
 * sticky; the last one, where the files go, owned by us or root as well.
 */
static int jr_dirs_ok(const char *path, const char *resolved, struct jr_err *e)
{
	char real[PATH_MAX], *p;
	struct stat st;

	snprintf(real, sizeof(real), "%s", resolved);
	p = real + strlen(real);

	for (;;) {
		if (stat(real, &st))
			return jr_fail(e, -errno, "%s: %s", path,
				       strerror(errno));
		if (!jr_owner_ok(st.st_uid))
			return jr_fail(e, -EPERM,
				       "%s: refused: %s belongs to uid %u",
				       path, real, (unsigned int)st.st_uid);
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		    !(st.st_mode & S_ISVTX))
			return jr_fail(e, -EPERM,
				       "%s: refused: %s is writable by others",
				       path, real);
		if (p == real + 1 || !strcmp(real, "/"))
			return 0;
		while (p > real && *p != '/')
			p--;
		*(p == real ? p + 1 : p) = '\0';
	}
}

/*
 * jr_safe_dir - an O_DIRECTORY descriptor on path, a trusted directory;
 * with create, made 0700 first if it does not exist.  0 or -errno.
 */
int jr_safe_dir(const char *path, int create, struct jr_err *e)
{
	char real[PATH_MAX];
	int ret, fd;

	if (create) {
		/* nothing made through a directory someone else controls */
		ret = jr_safe_parent(path, e);
		if (ret)
			return ret;
		if (mkdir(path, 0700) && errno != EEXIST)
			return jr_fail(e, -errno, "%s: %s", path,
				       strerror(errno));
	}
	ret = jr_links_ok(path, e);
	if (ret)
		return ret;
	if (!realpath(path, real))
		return jr_fail(e, -errno, "%s: %s", path, strerror(errno));
	ret = jr_dirs_ok(path, real, e);
	if (ret)
		return ret;
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return jr_fail(e, -errno, "%s: %s", path, strerror(errno));
	return fd;
}

/* jr_null_dev - the null device, the one output that is not a file */
static bool jr_null_dev(const struct stat *st)
{
	struct stat null;

	return S_ISCHR(st->st_mode) && !stat("/dev/null", &null) &&
	       S_ISCHR(null.st_mode) && st->st_rdev == null.st_rdev;
}

/*
 * jr_safe_file_at - name in the trusted directory dfd (called dir in
 * messages), opened for writing and emptied: a descriptor or -errno.
 *
 * Only a regular file of ours alone, or the null device, will do.  The
 * open does not block: a FIFO someone planted would otherwise hold the
 * run until a reader came (with none, the open fails with ENXIO; with
 * one, fstat tells), and a socket cannot be opened at all.
 */
int jr_safe_file_at(int dfd, const char *dir, const char *name,
		    struct jr_err *e)
{
	struct stat st;
	int fd;

	if (!strcmp(dir, "/"))
		dir = ""; /* "/name", not "//name" */
	fd = openat(dfd, name,
		    O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0600);
	if (fd < 0 && errno == ELOOP)
		return jr_fail(e, -EPERM, "%s/%s: refused: a symbolic link%s",
			       dir, name,
			       strcmp(dir, "/dev") ?
				       "" :
				       " (for standard output, give -)");
	if (fd < 0 && (errno == ENXIO || errno == EOPNOTSUPP))
		return jr_fail(e, -EPERM,
			       "%s/%s: refused: not a regular file (a FIFO or "
			       "a socket)",
			       dir, name);
	if (fd < 0)
		return jr_fail(e, -errno, "%s/%s: %s", dir, name,
			       strerror(errno));
	if (fstat(fd, &st)) {
		int err = errno;

		close(fd);
		return jr_fail(e, -err, "%s/%s: %s", dir, name, strerror(err));
	}
	if (jr_null_dev(&st))
		return fd; /* nothing to empty, nothing to block */
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return jr_fail(e, -EPERM,
			       "%s/%s: refused: not a regular file (a FIFO, a "
			       "device or a socket)",
			       dir, name);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ||
	    st.st_nlink != 1 || st.st_uid != geteuid()) {
		close(fd);
		return jr_fail(e, -EPERM,
			       "%s/%s: refused: not a file of ours alone", dir,
			       name);
	}
	if (ftruncate(fd, 0)) {
		int err = errno;

		close(fd);
		return jr_fail(e, -err, "%s/%s: %s", dir, name, strerror(err));
	}
	return fd;
}

/*
 * jr_split - path's directory into dir (PATH_MAX bytes) and its last
 * part into *name; 0 or -errno.
 */
static int jr_split(const char *path, char *dir, const char **name,
		    struct jr_err *e)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= PATH_MAX)
		return jr_fail(e, -ENAMETOOLONG, "%s: path too long", path);
	if (!slash) {
		strcpy(dir, ".");
	} else if (!n) {
		strcpy(dir, "/");
	} else {
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	*name = slash ? slash + 1 : path;
	if (!**name)
		return jr_fail(e, -EISDIR, "%s: not a file name", path);
	return 0;
}

/*
 * jr_safe_parent - the directory that holds path (a file, or a directory
 * with or without a trailing slash) is trusted.
 */
int jr_safe_parent(const char *path, struct jr_err *e)
{
	char trimmed[PATH_MAX], dir[PATH_MAX];
	size_t n = snprintf(trimmed, sizeof(trimmed), "%s", path);
	const char *name;
	int dfd;

	if (n >= sizeof(trimmed))
		return jr_fail(e, -ENAMETOOLONG, "%s: path too long", path);
	while (n > 1 && trimmed[n - 1] == '/')
		trimmed[--n] = '\0';
	if (!strcmp(trimmed, "/"))
		return 0; /* the root has no parent to check */
	dfd = jr_split(trimmed, dir, &name, e);

	if (!dfd)
		dfd = jr_safe_dir(dir, 0, e);
	if (dfd < 0)
		return dfd;
	close(dfd);
	return 0;
}

/* jr_safe_fopen - path for writing, in a trusted directory; NULL on error */
FILE *jr_safe_fopen(const char *path, struct jr_err *e)
{
	char dir[PATH_MAX];
	const char *name;
	int dfd, fd;
	FILE *f;

	if (jr_split(path, dir, &name, e))
		return NULL;
	dfd = jr_safe_dir(dir, 0, e);
	if (dfd < 0)
		return NULL;
	fd = jr_safe_file_at(dfd, dir, name, e);
	close(dfd);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		jr_fail(e, -errno, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}
