// SPDX-License-Identifier: GPL-2.0
/*
 * jr_serve_sep.c - serve's HTTP server in a process of its own, without
 * privileges: it parses every request from the network, so a bug there
 * must not reach root or the sampler.  This file is the server process;
 * jr_serve_watch.c is serve's side, which starts it.
 *
 * jr_serve_open forks it while jitread has one thread.  The child keeps
 * only the listening socket, its end of a socketpair and stderr; takes
 * uid and gid 65534 (nobody) when it was root, which leaves it no
 * capabilities; sets no_new_privs and a seccomp filter that allows the
 * calls its loop makes and kills it on any other; and dies with its
 * parent.  It waits for the parent's go (the first refresh is in), then
 * serves (common/jr_http_loop.c).  For a page it writes the parent one
 * byte, the format, and reads back the page's length and bytes; the
 * parent's side reads nothing else, and a child that writes anything
 * else is no longer answered.  At the end the parent shuts its side for
 * writing; the child writes its counts and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet/jr_serve.h"
#include "fleet/jr_serve_sep.h"

#define JR_SEP_NOBODY 65534

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

/* the child's page fetcher: ask the parent, read what it sends */
static void jr_sep_fetch(void *ctx, enum jr_http_fmt fmt, struct jr_buf *body)
{
	int fd = *(int *)ctx;
	unsigned char b = fmt;
	char chunk[65536];
	uint64_t len, n;

	if (jr_sep_full(fd, &b, 1, true) ||
	    jr_sep_full(fd, &len, sizeof(len), false) ||
	    len > JR_SEP_MAX_PAGE) {
		body->oom = true;
		return;
	}
	while (len && !body->oom) {
		n = len < sizeof(chunk) ? len : sizeof(chunk);
		if (jr_sep_full(fd, chunk, n, false)) {
			body->oom = true;
			return;
		}
		jr_buf_put(body, chunk, n);
		len -= n;
	}
}

#if defined(__x86_64__)
#define JR_ALLOW(nr)                                     \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* jr_sep_seccomp - only what the server's loop and malloc call */
static int jr_sep_seccomp(void)
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
#else
/* no filter written for this architecture: no_new_privs and nobody */
static int jr_sep_seccomp(void)
{
	return 0;
}
#endif

/*
 * jr_sep_drop - nobody, no capabilities, no new privileges, the filter;
 * and death with the parent (set after the change of user, which clears
 * it).
 */
static int jr_sep_drop(pid_t parent)
{
	struct rlimit fds;

	/* room for every connection it keeps, and no more */
	if (getrlimit(RLIMIT_NOFILE, &fds))
		return -errno;
	if (fds.rlim_max > JR_HTTP_MAX_CONNS + 16)
		fds.rlim_max = JR_HTTP_MAX_CONNS + 16;
	if (fds.rlim_cur > fds.rlim_max)
		fds.rlim_cur = fds.rlim_max;
	if (geteuid() == 0 &&
	    (setgroups(0, NULL) ||
	     setresgid(JR_SEP_NOBODY, JR_SEP_NOBODY, JR_SEP_NOBODY) ||
	     setresuid(JR_SEP_NOBODY, JR_SEP_NOBODY, JR_SEP_NOBODY)))
		return -errno;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		return -ESRCH;
	if (setrlimit(RLIMIT_NOFILE, &fds) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return jr_sep_seccomp();
}

/* jr_sep_fds - the listening socket and the pair at 3 and 4, nothing else */
static int jr_sep_fds(int listen_fd, int pair_fd)
{
	int l = fcntl(listen_fd, F_DUPFD_CLOEXEC, 16);
	int p = fcntl(pair_fd, F_DUPFD_CLOEXEC, 16);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (l < 0 || p < 0 || null < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || dup2(l, JR_SEP_LISTEN_FD) < 0 ||
	    dup2(p, JR_SEP_PAIR_FD) < 0)
		return -errno;
	return close_range(JR_SEP_PAIR_FD + 1, ~0U, 0) ? -errno : 0;
}

void jr_sep_child(struct jr_serve *s, pid_t parent, int pair_fd)
{
	struct jr_http *h = &s->http;
	int fd = JR_SEP_PAIR_FD, ret;
	unsigned char go = 0;
	uint64_t counts[4];

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "jitread-http");
	ret = jr_sep_fds(h->fd, pair_fd);
	if (!ret)
		ret = jr_sep_drop(parent);
	if (ret) {
		jr_warn("serve: cannot set up the server process: %s",
			strerror(-ret));
		_exit(1);
	}
	if (jr_sep_full(fd, &go, 1, false) || go != JR_SEP_GO)
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
