// SPDX-License-Identifier: GPL-2.0
/*
 * jr_live_cgroup.c - rtla's -C[NAME]: jitmod's sampler threads into
 * cgroup NAME (a path under the cgroup2 mount), or into jitread's own,
 * once every setting is written (a write restarts them); put back into
 * the cgroup each came from when the run ends.  The kernel decides
 * whether a sampler may move: what it refuses ends the run, saying so.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/jr_live_cgroup.h"

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
	char file[64], line[512];
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

/* jr_cg_put - pid into cgroup rel under mnt; 0 or -errno */
static int jr_cg_put(const char *mnt, const char *rel, pid_t pid)
{
	char file[800], num[16];
	int fd, n, ret = 0;

	snprintf(file, sizeof(file), "%s/%s/cgroup.procs", mnt,
		 rel + strspn(rel, "/"));
	fd = open(file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(num, sizeof(num), "%d", (int)pid);
	if (write(fd, num, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/* jr_cg_sampler - pid is one of jitmod's sampler kthreads */
static bool jr_cg_sampler(const char *pid)
{
	char file[300], comm[32];
	unsigned int cpu;
	char end;
	FILE *f;
	bool ok;

	snprintf(file, sizeof(file), "/proc/%s/comm", pid);
	f = fopen(file, "re");
	if (!f)
		return false;
	ok = fgets(comm, sizeof(comm), f) &&
	     sscanf(comm, "jitmod/%u%c", &cpu, &end) == 2 && end == '\n';
	fclose(f);
	return ok;
}

/* jr_cg_find - jitmod's samplers, each with the cgroup it is in */
static void jr_cg_find(struct jr_cgroup_move *m)
{
	struct dirent *d;
	DIR *proc = opendir("/proc");

	if (!proc)
		jr_die(JR_EXIT_RUN, "-C: cannot read /proc: %s",
		       strerror(errno));
	while ((d = readdir(proc)) && m->nr < JR_CG_MAX) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9' ||
		    !jr_cg_sampler(d->d_name))
			continue;
		m->t[m->nr].pid = atoi(d->d_name);
		if (!jr_cg_of(m->t[m->nr].pid, m->t[m->nr].from,
			      sizeof(m->t[0].from)))
			m->nr++;
	}
	closedir(proc);
}

void jr_cgroup_join(const struct jr_opts *o, struct jr_cgroup_move *m)
{
	const char *name = o->live.cgroup_name;
	char own[256];
	int i, ret, nr;

	m->nr = 0;
	if (!o->live.cgroup)
		return;
	if (jr_cg_mount(m->mnt, sizeof(m->mnt)))
		jr_die(JR_EXIT_RUN, "-C: no cgroup2 file system is mounted");
	if (!name) {
		if (jr_cg_of(getpid(), own, sizeof(own)))
			jr_die(JR_EXIT_RUN, "-C: cannot read jitread's cgroup");
		name = own;
	}
	if (strstr(name, ".."))
		jr_die(JR_EXIT_USAGE,
		       "-C '%s': a cgroup under %s, without '..'", name,
		       m->mnt);
	jr_cg_find(m);
	if (!m->nr)
		jr_die(JR_EXIT_RUN,
		       "-C: jitmod has no sampler threads to move");
	nr = m->nr;
	for (i = 0; i < nr; i++) {
		ret = jr_cg_put(m->mnt, name, m->t[i].pid);
		if (!ret)
			continue;
		m->nr = i; /* the ones moved go back */
		jr_cgroup_leave(m);
		jr_die(JR_EXIT_RUN,
		       "-C: cannot move jitmod's sampler %d into %s/%s: %s%s",
		       (int)m->t[i].pid, m->mnt, name + strspn(name, "/"),
		       strerror(-ret),
		       ret == -EINVAL ?
			       " (the kernel keeps a kthread bound to its CPU out of cgroups)" :
			       "");
	}
	if (o->debug)
		fprintf(stderr, "jitread: debug: -C: %d sampler(s) into %s\n",
			nr, name);
}

void jr_cgroup_leave(struct jr_cgroup_move *m)
{
	int i, ret;

	for (i = 0; i < m->nr; i++) {
		ret = jr_cg_put(m->mnt, m->t[i].from, m->t[i].pid);
		if (ret && ret != -ESRCH)
			jr_warn("-C: cannot put sampler %d back into %s: %s",
				(int)m->t[i].pid, m->t[i].from, strerror(-ret));
	}
	m->nr = 0;
}
