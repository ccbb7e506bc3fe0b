// SPDX-License-Identifier: GPL-2.0
/*
 * jr_live_cgroup.c - rtla's -C[NAME]: jitmod's samplers into cgroup NAME
 * (a path under the cgroup2 mount), or into jitread's own cgroup.
 *
 * A sampler is a kthread bound to its CPU, which cgroup.procs refuses;
 * jitmod moves its samplers itself into every cgroup of the task its
 * cgroup_pid names, at each start.  For jitread's own cgroup that task is
 * jitread; for NAME it is a child that joins NAME and waits there until
 * the run ends.  cgroup_pid is put back like jitmod's other settings,
 * which starts the samplers again where kthreads are born.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/jr_live_cgroup.h"
#include "common/jr_sys.h"

#define JR_CG_PATH 512

static pid_t jr_cg_to_end; /* the helper, for jr_cg_at_exit */

/* jr_cg_end - the helper killed and reaped, so its cgroup empties now */
static void jr_cg_end(pid_t *helper)
{
	if (*helper <= 0)
		return;
	kill(*helper, SIGKILL);
	while (waitpid(*helper, NULL, 0) < 0 && errno == EINTR)
		;
	*helper = 0;
}

/* an exit on an error ends the helper too */
static void jr_cg_at_exit(void)
{
	jr_cg_end(&jr_cg_to_end);
}

/* jr_cg_mount - where cgroup2 is mounted, from /proc/self/mountinfo */
static int jr_cg_mount(char *mnt, size_t len)
{
	char line[1024], dir[512], type[64];
	const char *sep;
	int ret = -ENOENT;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (sep && sscanf(sep, " - %63s", type) == 1 &&
		    !strcmp(type, "cgroup2") &&
		    sscanf(line, "%*s %*s %*s %*s %511s", dir) == 1 &&
		    strlen(dir) < len) {
			strcpy(mnt, dir);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* jr_cg_of - pid's cgroup2 path ("0::PATH"), 0 or -errno */
static int jr_cg_of(pid_t pid, char *path, size_t len)
{
	char file[64], line[JR_CG_PATH + 8];
	int ret = -ENOENT;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0::", 3) && strlen(line + 3) < len) {
			strcpy(path, line + 3);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/*
 * jr_cg_helper - a child in cgroup procs (its cgroup.procs file, open),
 * waiting there until killed or jitread ends; its pid, or -errno
 */
static pid_t jr_cg_helper(int procs)
{
	int pfd[2], err = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (!pid) {
		/* a ^C to the group is jitread's to handle: it ends this one */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) ||
		    write(procs, "0", 1) != 1)
			err = errno;
		if (write(pfd[1], &err, sizeof(err)) != sizeof(err) || err)
			_exit(1);
		for (;;)
			pause();
	}
	if (pid < 0)
		err = errno;
	else if (read(pfd[0], &err, sizeof(err)) != sizeof(err))
		err = EIO;
	if (err && pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(pfd[0]);
	close(pfd[1]);
	return err ? -err : pid;
}

/*
 * jr_cg_sampler - whether /proc/@pid is one of jitmod's samplers: a
 * kernel thread named jitmod/N.  Any task may take the name
 * (PR_SET_NAME), never the flag.
 */
static bool jr_cg_sampler(const char *pid, unsigned int *cpu)
{
	char file[300], stat[1024], comm[32];
	unsigned long flags;

	if (pid[0] < '1' || pid[0] > '9')
		return false;
	snprintf(file, sizeof(file), "/proc/%s/stat", pid);
	return !jr_read_line(file, stat, sizeof(stat)) &&
	       !jr_stat_parse(stat, comm, sizeof(comm), &flags) &&
	       (flags & JR_PF_KTHREAD) && sscanf(comm, "jitmod/%u", cpu) == 1;
}

/* jr_cg_check - every sampler of jitmod's in cgroup want */
static void jr_cg_check(const char *want)
{
	char path[JR_CG_PATH];
	struct dirent *d;
	DIR *proc = opendir("/proc");
	unsigned int cpu;
	int n = 0;

	if (!proc)
		jr_die(JR_EXIT_RUN, "-C: cannot read /proc: %s",
		       strerror(errno));
	while ((d = readdir(proc))) {
		if (!jr_cg_sampler(d->d_name, &cpu) ||
		    jr_cg_of(atoi(d->d_name), path, sizeof(path)))
			continue;
		n++;
		if (strcmp(path, want))
			jr_die(JR_EXIT_RUN,
			       "-C: jitmod's sampler of CPU %u is in %s, not %s (its dmesg says why)",
			       cpu, path, want);
	}
	closedir(proc);
	if (!n)
		jr_die(JR_EXIT_RUN, "-C: jitmod has no sampler threads");
}

/* jr_cg_set - jitmod's cgroup_pid, with a line for what went wrong */
static void jr_cg_set(struct jr_ksave *saved, pid_t pid, const char *where)
{
	int ret = jr_param_change(saved, "cgroup_pid", (uint64_t)pid);

	if (ret == -ENOENT)
		jr_die(JR_EXIT_RUN,
		       "-C: this jitmod has no cgroup_pid: load the one built with this jitread");
	if (ret == -EINVAL)
		jr_die(JR_EXIT_RUN,
		       "-C: the kernel would not move jitmod's samplers into %s (one with the cpuset controller takes no kthread bound to a CPU; its dmesg says why)",
		       where);
	if (ret)
		jr_die(JR_EXIT_RUN, "-C: cannot set jitmod's cgroup_pid=%d: %s",
		       (int)pid, strerror(-ret));
}

void jr_cgroup_join(const struct jr_opts *o, struct jr_ksave *saved,
		    struct jr_cgroup_move *m)
{
	const char *name = o->live.cgroup_name;
	char mnt[256], want[JR_CG_PATH], file[JR_CG_PATH + 300];
	pid_t pid = getpid();
	int procs;

	m->helper = 0;
	if (!o->live.cgroup)
		return;
	if (jr_cg_mount(mnt, sizeof(mnt)))
		jr_die(JR_EXIT_RUN, "-C: no cgroup2 file system is mounted");
	if (!name && jr_cg_of(pid, want, sizeof(want)))
		jr_die(JR_EXIT_RUN, "-C: cannot read jitread's cgroup");
	if (name) {
		if (strstr(name, "..") || strlen(name) + 2 > sizeof(want))
			jr_die(JR_EXIT_USAGE,
			       "-C '%s': a cgroup under %s, without '..'", name,
			       mnt);
		snprintf(want, sizeof(want), "/%s", name + strspn(name, "/"));
		snprintf(file, sizeof(file), "%s%s/cgroup.procs", mnt, want);
		procs = open(file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (procs < 0)
			jr_die(JR_EXIT_RUN, "-C: %s: %s", file,
			       strerror(errno));
		pid = jr_cg_helper(procs);
		close(procs);
		if (pid < 0)
			jr_die(JR_EXIT_RUN, "-C: cannot join %s: %s", want,
			       strerror(-pid));
		m->helper = jr_cg_to_end = pid;
		atexit(jr_cg_at_exit);
	}
	jr_cg_set(saved, pid, want);
	jr_cg_check(want);
	if (o->debug)
		fprintf(stderr,
			"jitread: debug: -C: jitmod's samplers in %s (cgroup_pid=%d)\n",
			want, (int)pid);
}

void jr_cgroup_leave(struct jr_cgroup_move *m)
{
	jr_cg_end(&m->helper);
	jr_cg_to_end = 0;
}
