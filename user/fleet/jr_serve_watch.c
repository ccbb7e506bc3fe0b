// SPDX-License-Identifier: GPL-2.0
/*
 * jr_serve_watch.c - serve's side of its server process (jr_serve_sep.c):
 * starts it, answers its page requests, and ends it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet/jr_serve.h"
#include "fleet/jr_serve_sep.h"

/*
 * jr_sep_fork - the server process, on s->http's listening socket, which
 * the parent then closes: 0, or -errno with e saying why.
 */
int jr_sep_fork(struct jr_serve *s, struct jr_err *e)
{
	pid_t parent = getpid();
	int pair[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair))
		return jr_fail(e, -errno, "socketpair: %s", strerror(errno));
	fflush(NULL);
	s->child = fork();
	if (s->child < 0) {
		close(pair[0]);
		close(pair[1]);
		return jr_fail(e, -errno, "fork: %s", strerror(errno));
	}
	if (!s->child)
		jr_sep_child(s, parent, pair[1]);
	close(pair[1]);
	close(s->http.fd);
	s->http.fd = -1;
	s->sep_fd = pair[0];
	return 0;
}

/* the parent's side: a page for each format byte, the counts at the end */
static void *jr_sep_pages(void *arg)
{
	struct jr_serve *s = arg;
	struct jr_buf copy = { 0 };
	uint64_t counts[4], len;
	unsigned char b;

	while (!jr_sep_full(s->sep_fd, &b, 1, false)) {
		if (b == JR_SEP_COUNTS) {
			if (!jr_sep_full(s->sep_fd, counts, sizeof(counts),
					 false)) {
				s->http.served = counts[0];
				s->http.refused = counts[1];
				s->http.dropped = counts[2];
				s->http.backoffs = counts[3];
			}
			break;
		}
		if (b >= JR_NR_FMT)
			break;
		jr_buf_reset(&copy);
		pthread_mutex_lock(&s->lock);
		jr_buf_put(&copy, s->page[b].p, s->page[b].len);
		pthread_mutex_unlock(&s->lock);
		len = copy.oom ? JR_SEP_FAILED : copy.len;
		if (jr_sep_full(s->sep_fd, &len, sizeof(len), true) ||
		    (!copy.oom &&
		     jr_sep_full(s->sep_fd, copy.p, copy.len, true)))
			break;
	}
	jr_buf_free(&copy);
	return NULL;
}

/* jr_sep_start - answer the server's page requests, and let it serve */
int jr_sep_start(struct jr_serve *s, struct jr_err *e)
{
	unsigned char go = JR_SEP_GO;
	int ret = pthread_create(&s->pages_th, NULL, jr_sep_pages, s);

	if (ret)
		return jr_fail(e, -ret, "cannot start the server: %s",
			       strerror(ret));
	s->pages_running = true;
	if (jr_sep_full(s->sep_fd, &go, 1, true))
		return jr_fail(e, -EPIPE, "the server process is gone");
	return 0;
}

/*
 * jr_sep_stop - end the server process and collect its counts; 0, or
 * -ECHILD when it died before it was told to end (its status said).
 */
int jr_sep_stop(struct jr_serve *s)
{
	int status = 0, ret = 0;

	if (s->child <= 0)
		return 0;
	shutdown(s->sep_fd, SHUT_WR);
	if (s->pages_running)
		pthread_join(s->pages_th, NULL);
	s->pages_running = false;
	while (waitpid(s->child, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		jr_warn("the server process died of signal %d (%s)",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		ret = -ECHILD;
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		ret = -ECHILD;
	}
	close(s->sep_fd);
	s->sep_fd = -1;
	s->child = 0;
	return ret;
}
