// SPDX-License-Identifier: GPL-2.0
/*
 * http_slow_test.c - the server's loop (common/jr_http_loop.c) against
 * clients that ask for a large page and never read it.  A child serves
 * a 4 MiB page; JR_HTTP_MAX_CONNS clients, each from an address of its
 * own and with a small receive buffer, send a request and read nothing,
 * so every slot holds an answer that cannot be sent.  Scrapes that read
 * must still get the whole page, and the answers held at once, and the
 * child's peak memory, must stay within the loop's allowance.  Prints one
 * line per failed check and exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/jr_http.h"
#include "jr_check.h"

#define PAGE_BYTES (4UL << 20)
#define SCRAPES 20
#define REQUEST "GET /metrics HTTP/1.1\r\n\r\n"
/* the child's peak resident memory allowed: the held answers, two
 * pages in the making, and the program */
#define HWM_MAX_KB ((long)((JR_HTTP_MAX_HELD + 3 * PAGE_BYTES) / 1024) + 16384)

static char *page_bytes;

static void page(void *ctx, enum jr_http_fmt fmt, struct jr_buf *body)
{
	(void)ctx;
	(void)fmt;
	jr_buf_put(body, page_bytes, PAGE_BYTES);
}

static int connect_from(int port, uint32_t src_ip, int rcvbuf)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	struct timeval tv = { 3, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	src.sin_addr.s_addr = htonl(src_ip);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 ||
	    (rcvbuf &&
	     setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (void *)&src, sizeof(src)) ||
	    connect(fd, (void *)&dst, sizeof(dst)) ||
	    write(fd, REQUEST, strlen(REQUEST)) != (ssize_t)strlen(REQUEST)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* scrape - a whole answer read: whether it was a 200 with the page */
static int scrape(int port, int i)
{
	static char buf[1 << 16];
	size_t got = 0;
	char head[16] = "";
	ssize_t n;
	int fd = connect_from(port, 0x7f060100 + i, 0);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (!got)
			memcpy(head, buf, n < 12 ? n : 12);
		got += n;
	}
	close(fd);
	return n == 0 && !strncmp(head, "HTTP/1.1 200", 12) && got > PAGE_BYTES;
}

static long hwm_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* the child: serve until the stop pipe, then say the most it held */
static void serve(struct jr_http *h, int out)
{
	char line[96];

	h->fn = page;
	jr_http_serve(h);
	snprintf(line, sizeof(line), "%zu\n", h->held_max);
	if (write(out, line, strlen(line)) < 0)
		_exit(4);
	_exit(0);
}

int main(void)
{
	int fds[JR_HTTP_MAX_CONNS], report[2], port, i, n = 0, ok = 0;
	struct timespec half = { 0, 500000000 };
	char line[96] = "";
	size_t held_max = 0;
	struct jr_http h;
	struct jr_err e;
	long hwm;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	page_bytes = malloc(PAGE_BYTES);
	if (!page_bytes || jr_http_listen(&h, "127.0.0.1:0", &e) ||
	    pipe(h.stop) || pipe(report)) {
		printf("FAIL setup\n");
		return 1;
	}
	memset(page_bytes, 'x', PAGE_BYTES);
	port = atoi(strrchr(h.addr, ':') + 1);
	pid = fork();
	if (!pid) {
		close(h.stop[1]);
		close(report[0]);
		serve(&h, report[1]);
	}
	close(h.stop[0]);
	close(report[1]);
	for (i = 0; i < JR_HTTP_MAX_CONNS; i++) {
		fds[i] = connect_from(port, 0x7f060001 + i, 4096);
		n += fds[i] >= 0;
	}
	CHECK(n == JR_HTTP_MAX_CONNS);
	nanosleep(&half, NULL);
	for (i = 0; i < SCRAPES; i++)
		ok += scrape(port, i);
	if (ok != SCRAPES)
		printf("FAIL %d of %d scrapes got the whole page\n", ok,
		       SCRAPES);
	CHECK(ok == SCRAPES);
	hwm = hwm_kb(pid);
	if (hwm > HWM_MAX_KB)
		printf("FAIL the server's peak memory: %ld kB\n", hwm);
	CHECK(hwm > 0 && hwm <= HWM_MAX_KB);
	for (i = 0; i < JR_HTTP_MAX_CONNS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	close(h.stop[1]);
	CHECK(read(report[0], line, sizeof(line) - 1) > 0);
	CHECK(sscanf(line, "%zu", &held_max) == 1);
	if (held_max > JR_HTTP_MAX_HELD + PAGE_BYTES + 4096)
		printf("FAIL answers held at once: %zu bytes\n", held_max);
	CHECK(held_max <= JR_HTTP_MAX_HELD + PAGE_BYTES + 4096);
	waitpid(pid, NULL, 0);
	if (!failed)
		printf("ok\n");
	free(page_bytes);
	return failed;
}
