// SPDX-License-Identifier: GPL-2.0
/*
 * http_test.c - the server's loop (common/jr_http_loop.c) out of file
 * descriptors.  A child serves with a descriptor limit a few above what
 * it has open; the parent connects from more addresses than that (so no
 * limit of the loop's refuses them, only accept's EMFILE), and the
 * child's CPU time over two seconds must show it backing off, not
 * spinning.  Once the clients leave, a request is answered, and the
 * child reports how often accept backed off.  Prints one line per failed
 * check and exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/jr_http.h"
#include "jr_check.h"

#define SPARE 6
#define CLIENTS (SPARE + 30)

static void page(void *ctx, enum jr_http_fmt fmt, struct jr_buf *body)
{
	(void)ctx;
	(void)fmt;
	jr_buf_printf(body, "up 1\n");
}

static int connect_from(int port, int i)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	src.sin_addr.s_addr = htonl(0x7f050000 + i + 1); /* 127.5.x.y */
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (void *)&src, sizeof(src)) ||
	    connect(fd, (void *)&dst, sizeof(dst))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static double cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	/* state is field 3; utime and stime are 14 and 15 */
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
		   &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

static int get_ok(int port)
{
	char buf[256] = "";
	int fd = connect_from(port, 250), n, ok;

	if (fd < 0)
		return 0;
	n = write(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25);
	n = n == 25 ? read(fd, buf, sizeof(buf) - 1) : -1;
	ok = n > 0 && !strncmp(buf, "HTTP/1.1 200", 12);
	close(fd);
	return ok;
}

/* the child: serve until the stop pipe, then say how often it backed off */
static void serve(struct jr_http *h, int out)
{
	struct rlimit r = { 0 };
	char line[64];
	int fds = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		fds += fcntl(fd, F_GETFD) >= 0;
	r.rlim_cur = r.rlim_max = fds + SPARE;
	if (setrlimit(RLIMIT_NOFILE, &r))
		_exit(3);
	h->fn = page;
	jr_http_serve(h);
	snprintf(line, sizeof(line), "%llu\n", (unsigned long long)h->backoffs);
	if (write(out, line, strlen(line)) < 0)
		_exit(4);
	_exit(0);
}

int main(void)
{
	int fds[CLIENTS], report[2], port, i, n = 0, ok = 0;
	struct timespec two = { 2, 0 };
	char line[64] = "";
	struct jr_http h;
	struct jr_err e;
	double t0, t1;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	if (jr_http_listen(&h, "127.0.0.1:0", &e) || pipe(h.stop) ||
	    pipe(report)) {
		printf("FAIL setup: %s\n", e.msg);
		return 1;
	}
	port = atoi(strrchr(h.addr, ':') + 1);
	pid = fork();
	if (!pid) {
		close(h.stop[1]);
		close(report[0]);
		serve(&h, report[1]);
	}
	close(h.stop[0]);
	close(report[1]);
	for (i = 0; i < CLIENTS; i++) {
		fds[i] = connect_from(port, i);
		n += fds[i] >= 0;
	}
	CHECK(n == CLIENTS);
	t0 = cpu_s(pid);
	nanosleep(&two, NULL);
	t1 = cpu_s(pid);
	CHECK(t0 >= 0 && t1 >= 0);
	if (t1 - t0 >= 0.5)
		printf("FAIL the loop spun: %.2f s of CPU in 2 s\n", t1 - t0);
	CHECK(t1 - t0 < 0.5);
	for (i = 0; i < CLIENTS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (i = 0; i < 50 && !ok; i++) {
		ok = get_ok(port);
		if (!ok)
			usleep(200000);
	}
	CHECK(ok);
	close(h.stop[1]);
	CHECK(read(report[0], line, sizeof(line) - 1) > 0);
	CHECK(strtoull(line, NULL, 10) > 0);
	waitpid(pid, NULL, 0);
	if (!failed)
		printf("ok\n");
	return failed;
}
