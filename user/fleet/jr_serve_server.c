// SPDX-License-Identifier: GPL-2.0
/*
 * jr_serve_server.c - serve's HTTP server in a process of its own, without
 * privileges: it parses every request from the network, so a bug there
 * must not reach root or the sampler.  This file is the server process;
 * jr_serve_watch.c is serve's side, which starts it and watches it.
 *
 * The server process keeps only the listening socket, its end of a
 * socketpair and stderr.  It takes a user and group id no other process
 * has (jr_sep_id), when it was root; clears every capability set and
 * checks with capget that they are empty; sets a limit on its address
 * space, no_new_privs and a seccomp filter that allows the calls its
 * loop makes and kills it on any other; and dies with the thread that
 * started it.  It waits for serve's go (the first refresh is in), for
 * as long as that takes, then serves (common/jr_http_loop.c).  For a
 * page it writes serve one byte, the format, and reads back the page's
 * length and bytes, within JR_SEP_EXCHANGE_MS each way; an exchange that
 * fails or runs late ends the process (serve starts another).  At the
 * end serve shuts its side for writing; the server writes its counts and
 * exits.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fleet/jr_serve_server.h"

/*
 * The server's id: JR_SEP_ID_BASE + serve's pid, which no other serve
 * can have while this one lives; + JR_SEP_ID_STRIDE (pid_max's ceiling)
 * again where the system already uses it.
 */
#define JR_SEP_ID_BASE 0x70000000U
#define JR_SEP_ID_STRIDE (1U << 22)
#define JR_SEP_ID_TRIES 16
/* the server's address space: what it had at the fork, and this */
#define JR_SEP_MEM_BUDGET (JR_HTTP_MAX_HELD + 3 * JR_SEP_MAX_PAGE)

int jr_sep_full(int fd, void *p, size_t n, bool out)
{
	ssize_t r;

	while (n) {
		r = out ? send(fd, p, n, MSG_NOSIGNAL) : read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p = (char *)p + r;
		n -= r;
	}
	return 0;
}

/* jr_id_running - whether a process has id as one of its uids */
static bool jr_id_running(uint32_t id)
{
	char path[300], line[256];
	struct dirent *d;
	bool found = false;
	unsigned long u[4];
	DIR *dir = opendir("/proc");
	FILE *f;

	while (dir && !found && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Uid: %lu %lu %lu %lu", &u[0], &u[1],
				   &u[2], &u[3]) != 4)
				continue;
			found = u[0] == id || u[1] == id || u[2] == id ||
				u[3] == id;
			break;
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

/*
 * jr_sep_id - an id for the server process that no account names and no
 * process has, so that no other user can signal or trace it; 0 when
 * none was found.
 */
uint32_t jr_sep_id(void)
{
	uint32_t id = JR_SEP_ID_BASE + (uint32_t)getpid();
	int k;

	for (k = 0; k < JR_SEP_ID_TRIES; k++, id += JR_SEP_ID_STRIDE)
		if (!getpwuid(id) && !getgrgid(id) && !jr_id_running(id))
			return id;
	return 0;
}

/* the server's page fetcher: ask serve, read what it sends */
static void jr_sep_fetch(void *ctx, enum jr_http_fmt fmt, struct jr_buf *body)
{
	int fd = *(int *)ctx;
	unsigned char b = fmt;
	char chunk[65536];
	uint64_t len, n;

	errno = 0;
	if (jr_sep_full(fd, &b, 1, true) ||
	    jr_sep_full(fd, &len, sizeof(len), false))
		goto lost;
	if (len == JR_SEP_FAILED) {
		body->oom = true;
		return;
	}
	if (len > JR_SEP_MAX_PAGE)
		goto lost;
	while (len) {
		n = len < sizeof(chunk) ? len : sizeof(chunk);
		if (jr_sep_full(fd, chunk, n, false))
			goto lost;
		jr_buf_put(body, chunk, n);
		len -= n;
	}
	return;
lost:
	/* the two ends no longer agree on where a page starts */
	jr_warn("serve: the server process lost its exchange with serve: %s",
		errno ? strerror(errno) : "a page out of bounds");
	_exit(JR_SEP_EXIT_LOST);
}

#if defined(__x86_64__)
#define JR_ALLOW(nr)                                     \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
/* nr, unless its third argument (prot) asks for PROT_EXEC: mprotect's */
#define JR_ALLOW_NOEXEC(nr)                                            \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 4),               \
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,                     \
			 offsetof(struct seccomp_data, args[2])),      \
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),   \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/*
 * jr_sep_filter - only what the server's loop and malloc call, and
 * restart_syscall, with which a poll resumes after a stop and continue
 * (^Z, a freezer, a debugger).  A server started again comes from
 * pages_th, and fork keeps that thread's malloc arena, which grows its
 * heap with mprotect, which is allowed without PROT_EXEC.
 */
int jr_sep_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		JR_ALLOW(__NR_poll),
		JR_ALLOW(__NR_ppoll),
		JR_ALLOW(__NR_restart_syscall),
		JR_ALLOW(__NR_accept4),
		JR_ALLOW(__NR_recvfrom),
		JR_ALLOW(__NR_sendto),
		JR_ALLOW(__NR_read),
		JR_ALLOW(__NR_write),
		JR_ALLOW(__NR_writev),
		JR_ALLOW(__NR_fstat),
		JR_ALLOW(__NR_newfstatat),
		JR_ALLOW(__NR_shutdown),
		JR_ALLOW(__NR_close),
		JR_ALLOW(__NR_clock_gettime),
		JR_ALLOW(__NR_brk),
		JR_ALLOW(__NR_mmap),
		JR_ALLOW_NOEXEC(__NR_mprotect),
		JR_ALLOW(__NR_munmap),
		JR_ALLOW(__NR_mremap),
		JR_ALLOW(__NR_madvise),
		JR_ALLOW(__NR_rt_sigreturn),
		JR_ALLOW(__NR_exit),
		JR_ALLOW(__NR_exit_group),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -errno : 0;
}

const bool jr_sep_filtered = true;
#else
/* no filter written for this architecture: serve says so once */
int jr_sep_filter(void)
{
	return 0;
}

const bool jr_sep_filtered;
#endif

/*
 * jr_sep_limits - room for every connection it keeps and no more
 * descriptors; an address space of what it has now and
 * JR_SEP_MEM_BUDGET.
 */
static int jr_sep_limits(void)
{
	struct rlimit fds, as;
	char statm[64] = "";
	unsigned long pages = 0;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, statm, sizeof(statm) - 1) <= 0 ||
	    sscanf(statm, "%lu", &pages) != 1) {
		if (fd >= 0)
			close(fd);
		return -EIO;
	}
	close(fd);
	if (getrlimit(RLIMIT_NOFILE, &fds))
		return -errno;
	if (fds.rlim_max > JR_HTTP_MAX_CONNS + 16)
		fds.rlim_max = JR_HTTP_MAX_CONNS + 16;
	if (fds.rlim_cur > fds.rlim_max)
		fds.rlim_cur = fds.rlim_max;
	as.rlim_cur = as.rlim_max =
		pages * (rlim_t)sysconf(_SC_PAGESIZE) + JR_SEP_MEM_BUDGET;
	if (setrlimit(RLIMIT_NOFILE, &fds) || setrlimit(RLIMIT_AS, &as))
		return -errno;
	return 0;
}

/*
 * jr_sep_bounding - the bounding set emptied, where CAP_SETPCAP allows
 * it (without it, no_new_privs and a filter that allows no exec leave
 * the bounding set nothing to grant); before the change of id, which
 * takes CAP_SETPCAP away.
 */
static void jr_sep_bounding(void)
{
	int cap;

	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
}

/*
 * jr_sep_caps - the ambient, inheritable, permitted and effective
 * capability sets emptied, and checked.
 */
static int jr_sep_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
	int cap, i, set;

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &hdr, d))
		return -errno;
	memset(d, 0xff, sizeof(d));
	if (syscall(SYS_capget, &hdr, d))
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return -EPERM;
	for (cap = 0; (set = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap,
				   0, 0)) >= 0;
	     cap++)
		if (set)
			return -EPERM;
	return 0;
}

/*
 * jr_sep_drop - its own id, no capabilities, limits, no new privileges,
 * the filter; and death with the thread that started it (set after the
 * change of id, which clears it).
 */
static int jr_sep_drop(pid_t parent, uint32_t id)
{
	int ret = jr_sep_limits();

	if (ret)
		return ret;
	jr_sep_bounding();
	if (geteuid() == 0 && (!id || setgroups(0, NULL) ||
			       setresgid(id, id, id) || setresuid(id, id, id)))
		return id ? -errno : -EUSERS;
	ret = jr_sep_caps();
	if (ret)
		return ret;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return -ESRCH;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return jr_sep_filter();
}

/* jr_sep_fds - the listening socket and the pair at 3 and 4, nothing else */
static int jr_sep_fds(int listen_fd, int pair_fd)
{
	struct timeval tv = { .tv_sec = JR_SEP_EXCHANGE_MS / 1000 };
	int l = fcntl(listen_fd, F_DUPFD_CLOEXEC, 16);
	int p = fcntl(pair_fd, F_DUPFD_CLOEXEC, 16);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (l < 0 || p < 0 || null < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || dup2(l, JR_SEP_LISTEN_FD) < 0 ||
	    dup2(p, JR_SEP_PAIR_FD) < 0 ||
	    setsockopt(JR_SEP_PAIR_FD, SOL_SOCKET, SO_RCVTIMEO, &tv,
		       sizeof(tv)) ||
	    setsockopt(JR_SEP_PAIR_FD, SOL_SOCKET, SO_SNDTIMEO, &tv,
		       sizeof(tv)))
		return -errno;
	return close_range(JR_SEP_PAIR_FD + 1, ~0U, 0) ? -errno : 0;
}

/*
 * jr_sep_go - wait for serve's go however long its first refresh takes
 * (a BPF load under emulation can take longer than an exchange may): 0
 * on the go, -1 when serve closed its side (it is ending) or sent
 * something else.
 */
static int jr_sep_go(int fd)
{
	unsigned char go = 0;
	ssize_t r;

	do
		r = read(fd, &go, 1);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r == 1 && go == JR_SEP_GO ? 0 : -1;
}

void jr_sep_child(struct jr_http *h, pid_t parent, int pair_fd, uint32_t id)
{
	int fd = JR_SEP_PAIR_FD, ret;
	unsigned char go = 0;
	uint64_t counts[4];
	sigset_t none;

	/* pages_th, which starts all but the first, blocks every signal */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "jitread-http");
	ret = jr_sep_fds(h->fd, pair_fd);
	if (!ret)
		ret = jr_sep_drop(parent, id);
	/* a parent gone before the change of id: no one to serve or tell */
	if (ret == -ESRCH)
		_exit(0);
	if (ret) {
		jr_warn("serve: cannot set up the server process: %s",
			ret == -EUSERS ? "no free user id for it" :
					 strerror(-ret));
		_exit(JR_SEP_EXIT_SETUP);
	}
	if (jr_sep_go(fd))
		_exit(0);
	h->fd = JR_SEP_LISTEN_FD;
	h->stop[0] = fd;
	h->stop[1] = -1;
	h->fn = jr_sep_fetch;
	h->ctx = &fd;
	jr_http_serve(h);
	counts[0] = h->served;
	counts[1] = h->refused;
	counts[2] = h->dropped;
	counts[3] = h->backoffs;
	go = JR_SEP_COUNTS;
	if (!jr_sep_full(fd, &go, 1, true))
		jr_sep_full(fd, counts, sizeof(counts), true);
	_exit(0);
}
