// SPDX-License-Identifier: GPL-2.0
/*
 * jr_kparams_owner.c - one jitread at a time may change jitmod's settings.
 *
 * The run that changes them holds an exclusive flock on
 * /run/jitread/jitmod.lock, which names it (pid and subcommand), and keeps
 * the values it found in /run/jitread/jitmod.saved until it has put them
 * back.  The kernel drops the lock when its holder dies, however it dies;
 * a saved file left behind belongs to a run that was killed before it
 * could put the values back, and the next jitread that takes the lock
 * puts them back first.  The file also names the jitmod it was written
 * for (the inode of /sys/module/jitmod, new at every load): the values of
 * a jitmod since unloaded are dropped, not written to its successor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jr_safe.h"
#include "kernel/jr_kparams.h"

#define JR_RUN_DIR "/run/jitread"
#define JR_LOCK_NAME "jitmod.lock"
#define JR_SAVED_NAME "jitmod.saved"
#define JR_SAVED_TMP "jitmod.saved.tmp"
#define JR_SAVED_MAGIC "jitread-saved 1"
#define JR_OWNER_LEN 64

/* The parameters a run may change, in the saved file's names. */
static const char *const jr_owned_params[] = {
	"threshold_ns", "stop_us",    "stop_total_us",
	"period_us",	"runtime_us", "enable",
	"warmup_us",	"prio",	      "cgroup_pid",
};

#define JR_NR_OWNED (sizeof(jr_owned_params) / sizeof(jr_owned_params[0]))

/* The inode of jitmod's sysfs directory: a new one at every load. */
static int jr_module_ino(uint64_t *ino)
{
	struct stat st;

	if (stat("/sys/module/jitmod", &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

/* A regular file of root's or ours, alone, not reached through a link. */
static int jr_owner_file_ok(int fd, const char *name, struct jr_err *e)
{
	struct stat st;

	if (fstat(fd, &st))
		return jr_fail(e, -errno, JR_RUN_DIR "/%s: %s", name,
			       strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_uid != 0 && st.st_uid != geteuid()))
		return jr_fail(e, -EPERM,
			       JR_RUN_DIR
			       "/%s: not a file of root's alone: remove it",
			       name);
	return 0;
}

/*
 * jr_owner_of - "jitread hist (pid 123)" from an owner's "PID CMD", as the
 * lock file and the saved file's owner line hold it; else unknown.
 */
static void jr_owner_of(const char *text, const char *unknown, char *buf,
			size_t len)
{
	unsigned int pid = 0;
	char cmd[16];

	if (sscanf(text, "%u %15[a-z]", &pid, cmd) == 2 && pid)
		snprintf(buf, len, "jitread %s (pid %u)", cmd, pid);
	else
		snprintf(buf, len, "%s", unknown);
}

/* jr_owner_named - the owner the lock file names */
static void jr_owner_named(int fd, char *buf, size_t len)
{
	char text[JR_OWNER_LEN] = "";
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

	if (n > 0)
		text[n] = '\0';
	jr_owner_of(text, "another jitread", buf, len);
}

static int jr_param_known(const char *name)
{
	size_t i;

	for (i = 0; i < JR_NR_OWNED; i++)
		if (!strcmp(name, jr_owned_params[i]))
			return (int)i;
	return -1;
}

/*
 * jr_params_saved - the values s found, in the order it changed them,
 * written under a temporary name and renamed, so that a reader sees a
 * whole file or none.  0 or -errno.
 */
int jr_params_saved(const struct jr_ksave *s)
{
	FILE *f;
	int fd, i, ret = 0;

	fd = openat(s->dir_fd, JR_SAVED_TMP,
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	fprintf(f, JR_SAVED_MAGIC "\nmodule %" PRIu64 "\nowner %d %s\n",
		s->module_ino, (int)getpid(), s->cmd);
	for (i = 0; i < s->nr; i++)
		fprintf(f, "%s %" PRIu64 "\n", s->p[i].name, s->p[i].old);
	if (fflush(f) || ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && renameat(s->dir_fd, JR_SAVED_TMP, s->dir_fd, JR_SAVED_NAME))
		ret = -errno;
	return ret;
}

/*
 * jr_saved_recover - put back what a killed owner left in the saved file;
 * the file is removed once that is done, or when it belongs to another
 * load of jitmod, or cannot be read.  Called with the lock held.
 */
static void jr_saved_recover(int dfd)
{
	char line[96], name[32], owner[48];
	uint64_t ino = 0, now = 0, val[JR_MAX_SAVED];
	int which[JR_MAX_SAVED], nr = 0, fd, k, r, ret = 0;
	bool good = false;
	FILE *f;

	fd = openat(dfd, JR_SAVED_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
	if (fgets(line, sizeof(line), f) &&
	    !strcmp(line, JR_SAVED_MAGIC "\n") &&
	    fgets(line, sizeof(line), f) &&
	    sscanf(line, "module %" SCNu64, &ino) == 1 &&
	    fgets(line, sizeof(line), f) && !strncmp(line, "owner ", 6)) {
		jr_owner_of(line + 6, "a jitread", owner, sizeof(owner));
		good = true;
		while (good && fgets(line, sizeof(line), f)) {
			good = nr < JR_MAX_SAVED &&
			       sscanf(line, "%31s %" SCNu64, name, &val[nr]) ==
				       2 &&
			       (which[nr] = jr_param_known(name)) >= 0;
			nr += good;
		}
	}
	fclose(f);
	if (!good)
		jr_warn(JR_RUN_DIR "/" JR_SAVED_NAME
				   " is not a file of jitread's: removed");
	else if (jr_module_ino(&now) || now != ino)
		good = false; /* another load of jitmod: its own settings */
	for (k = nr - 1; good && k >= 0; k--) {
		r = jr_write_param(jr_owned_params[which[k]], val[k]);
		if (r && !ret)
			ret = r;
	}
	if (good && ret) {
		jr_warn("could not put back the jitmod settings that %s left: %s",
			owner, strerror(-ret));
		return;
	}
	if (good && nr)
		jr_warn("put back the jitmod settings that %s left when it was killed",
			owner);
	unlinkat(dfd, JR_SAVED_NAME, 0);
}

/*
 * jr_owner_lock - the run directory and the lock file, locked: 0 with
 * both descriptors in s, -EBUSY with e naming the holder, or -errno.
 */
static int jr_owner_lock(struct jr_ksave *s, struct jr_err *e)
{
	char who[JR_OWNER_LEN + 32];
	int dfd, fd, ret;

	dfd = jr_safe_dir(JR_RUN_DIR, 1, e);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, JR_LOCK_NAME,
		    O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		ret = jr_fail(e, -errno, JR_RUN_DIR "/" JR_LOCK_NAME ": %s",
			      strerror(errno));
		goto close_dir;
	}
	ret = jr_owner_file_ok(fd, JR_LOCK_NAME, e);
	if (ret)
		goto close_lock;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			ret = jr_fail(e, -errno,
				      JR_RUN_DIR "/" JR_LOCK_NAME ": %s",
				      strerror(errno));
			goto close_lock;
		}
		jr_owner_named(fd, who, sizeof(who));
		ret = jr_fail(e, -EBUSY, "%s owns jitmod's settings", who);
		goto close_lock;
	}
	s->dir_fd = dfd;
	s->lock_fd = fd;
	return 0;

close_lock:
	close(fd);
close_dir:
	close(dfd);
	return ret;
}

static void jr_owner_unlock(struct jr_ksave *s)
{
	close(s->lock_fd);
	close(s->dir_fd);
	s->owned = false;
}

/*
 * jr_params_claim - make this run the one that changes jitmod's settings,
 * named cmd to any other that tries; a killed owner's values are put back
 * first.  0, -EBUSY (e names the owner) or -errno.
 */
int jr_params_claim(struct jr_ksave *s, const char *cmd, struct jr_err *e)
{
	char text[JR_OWNER_LEN];
	int ret, n;

	if (s->owned)
		return 0;
	ret = jr_owner_lock(s, e);
	if (ret)
		return ret;
	s->owned = true;
	s->cmd = cmd;
	jr_saved_recover(s->dir_fd);
	ret = jr_module_ino(&s->module_ino);
	if (ret) {
		jr_owner_unlock(s);
		return jr_fail(e, ret, "jitmod is not loaded");
	}
	n = snprintf(text, sizeof(text), "%d %s\n", (int)getpid(), cmd);
	if (ftruncate(s->lock_fd, 0) || pwrite(s->lock_fd, text, n, 0) != n)
		jr_warn(JR_RUN_DIR "/" JR_LOCK_NAME
				   ": cannot name this run in it: %s",
			strerror(errno));
	return 0;
}

/*
 * jr_params_recover - for a run that changes nothing: put back what a
 * killed owner left, when no run owns jitmod's settings now.
 */
void jr_params_recover(void)
{
	struct jr_ksave s = { 0 };
	struct jr_err e;

	if (jr_owner_lock(&s, &e))
		return;
	jr_saved_recover(s.dir_fd);
	jr_owner_unlock(&s);
}

/*
 * jr_params_release - the lock, and with put_back (all is put back, or
 * jitmod is gone) the saved file; without, the next owner puts back what
 * the file holds.
 */
void jr_params_release(struct jr_ksave *s, bool put_back)
{
	if (!s->owned)
		return;
	if (put_back)
		unlinkat(s->dir_fd, JR_SAVED_NAME, 0);
	jr_owner_unlock(s);
}
