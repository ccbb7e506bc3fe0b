// SPDX-License-Identifier: GPL-2.0
/*
 * jr_serve_watch.c - serve's side of its server process (jr_serve_server.c):
 * starts it, answers its page requests, starts another when it dies, and
 * ends it within a deadline.
 *
 * serve keeps the listening socket, so that a new server process can take
 * it.  A thread (pages_th) answers the server's requests: one byte, the
 * format; then the page's length and bytes, each send within
 * JR_SEP_EXCHANGE_MS.  When the server process ends unasked, dies, or
 * breaks the exchange, the thread kills what is left of it, says why,
 * and starts another, up to JR_SEP_RESTARTS times in a run; past that it
 * records the failure and stops the run with SIGTERM, as a user would.
 * A stopped server (SIGSTOP, a freezer) holds nothing of serve's: at the
 * end serve shuts its side of the pair and waits JR_SEP_STOP_MS for the
 * server's counts and exit, then kills it.
 *
 * Locking: s->lock covers child, sep_fd, stopping and the restart itself,
 * so the main thread's stop sees either the old server or the new one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet/jr_serve.h"
#include "fleet/jr_serve_server.h"

/*
 * jr_sep_spawn - a server process on s->http's listening socket, and its
 * pair: the first from the main thread while serve has one thread, the
 * others from pages_th.
 */
static int jr_sep_spawn(struct jr_serve *s, struct jr_err *e)
{
	struct timeval tv = { .tv_sec = JR_SEP_EXCHANGE_MS / 1000 };
	pid_t parent = getpid();
	int pair[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair))
		return jr_fail(e, -errno, "socketpair: %s", strerror(errno));
	if (setsockopt(pair[0], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		close(pair[0]);
		close(pair[1]);
		return jr_fail(e, -errno, "socketpair: %s", strerror(errno));
	}
	fflush(NULL);
	s->child = fork();
	if (s->child < 0) {
		close(pair[0]);
		close(pair[1]);
		return jr_fail(e, -errno, "fork: %s", strerror(errno));
	}
	if (!s->child)
		jr_sep_child(&s->http, parent, pair[1], s->sep_id);
	close(pair[1]);
	s->sep_fd = pair[0];
	return 0;
}

/*
 * jr_sep_fork - the server process, on s->http's listening socket, with
 * an id of its own: 0, or -errno with e saying why.
 */
int jr_sep_fork(struct jr_serve *s, struct jr_err *e)
{
	if (geteuid() == 0) {
		s->sep_id = jr_sep_id();
		if (!s->sep_id)
			return jr_fail(
				e, -EUSERS,
				"serve: no free user id for the server process");
	}
	if (!jr_sep_filtered)
		jr_warn("serve: no seccomp filter is written for this "
			"architecture; the server process runs without one");
	return jr_sep_spawn(s, e);
}

/*
 * jr_sep_answer - answer the server's page requests until it ends or
 * breaks the exchange; true when it ended with its counts.
 */
static bool jr_sep_answer(struct jr_serve *s, struct jr_buf *copy)
{
	uint64_t counts[4], len;
	unsigned char b;

	while (!jr_sep_full(s->sep_fd, &b, 1, false)) {
		if (b == JR_SEP_COUNTS) {
			if (jr_sep_full(s->sep_fd, counts, sizeof(counts),
					false))
				return false;
			s->http.served += counts[0];
			s->http.refused += counts[1];
			s->http.dropped += counts[2];
			s->http.backoffs += counts[3];
			return true;
		}
		if (b >= JR_NR_FMT)
			return false;
		jr_buf_reset(copy);
		pthread_mutex_lock(&s->lock);
		jr_buf_put(copy, s->page[b].p, s->page[b].len);
		pthread_mutex_unlock(&s->lock);
		len = copy->oom ? JR_SEP_FAILED : copy->len;
		if (jr_sep_full(s->sep_fd, &len, sizeof(len), true) ||
		    (!copy->oom &&
		     jr_sep_full(s->sep_fd, copy->p, copy->len, true)))
			return false;
	}
	return false;
}

/* jr_sep_status - how a server process ended, in words */
static void jr_sep_status(int status, char *why, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(why, len, "died of signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == JR_SEP_EXIT_SETUP)
		snprintf(why, len, "could not be set up");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == JR_SEP_EXIT_LOST)
		snprintf(why, len, "lost its exchange with serve");
	else
		snprintf(why, len, "ended with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/*
 * jr_sep_kill - SIGKILL the server process: 0, or -errno.  Under its unit
 * serve has no CAP_KILL, and the server runs under an id of its own, so
 * the kernel refuses serve's own kill (EPERM).  A helper process then
 * takes the server's id (CAP_SETUID, which serve has to start it) and
 * sends the signal from there: it runs nothing else, only raw system
 * calls, as a child forked from a threaded process must.
 */
static int jr_sep_kill(pid_t child, uint32_t id)
{
	int status;
	pid_t helper;

	if (!kill(child, SIGKILL))
		return 0;
	if (errno != EPERM || !id)
		return -errno;
	helper = fork();
	if (helper < 0)
		return -errno;
	if (!helper) {
		if (syscall(SYS_setresgid, id, id, id) ||
		    syscall(SYS_setresuid, id, id, id))
			_exit(1);
		_exit(kill(child, SIGKILL) ? 2 : 0);
	}
	while (waitpid(helper, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EPERM;
}

/*
 * jr_sep_again - the server ended unasked: reap it, and start another
 * unless it has been started JR_SEP_RESTARTS times; false when the run
 * is to stop.  Called with s->lock held.
 */
static bool jr_sep_again(struct jr_serve *s)
{
	unsigned char go = JR_SEP_GO;
	char why[96];
	int status = 0, ret;

	ret = jr_sep_kill(s->child, s->sep_id);
	if (ret) {
		/* it may still hold the listening socket: no second server */
		s->sep_fail = jr_fail(
			&s->sep_why, JR_EXIT_RUN,
			"the server process (pid %d) broke its exchange and cannot be killed: %s: serve stops",
			(int)s->child, strerror(-ret));
		return false;
	}
	while (waitpid(s->child, &status, 0) < 0 && errno == EINTR)
		;
	close(s->sep_fd);
	s->sep_fd = -1;
	s->child = 0;
	jr_sep_status(status, why, sizeof(why));
	if (s->restarts == JR_SEP_RESTARTS) {
		s->sep_fail = jr_fail(
			&s->sep_why, JR_EXIT_RUN,
			"the server process %s, after %d new start(s): serve stops",
			why, s->restarts);
		return false;
	}
	s->restarts++;
	jr_warn("serve: the server process %s; starting another (%d of %d)",
		why, s->restarts, JR_SEP_RESTARTS);
	if (jr_sep_spawn(s, &s->sep_why) ||
	    jr_sep_full(s->sep_fd, &go, 1, true)) {
		s->sep_fail = jr_fail(&s->sep_why, JR_EXIT_RUN,
				      "cannot start the server process again");
		return false;
	}
	return true;
}

static void *jr_sep_pages(void *arg)
{
	struct jr_serve *s = arg;
	struct jr_buf copy = { 0 };
	bool again = true, stop = false;

	while (again) {
		jr_sep_answer(s, &copy);
		pthread_mutex_lock(&s->lock);
		again = !s->stopping && jr_sep_again(s);
		stop = !again && !s->stopping;
		pthread_mutex_unlock(&s->lock);
	}
	jr_buf_free(&copy);
	/* the main thread takes the signal: this one blocks them all */
	if (stop)
		kill(getpid(), SIGTERM);
	return NULL;
}

/*
 * jr_sep_start - let the server serve, and answer its page requests.  The
 * go goes first, while sep_fd is still only this thread's: a server that
 * is gone already is then started again by pages_th.
 */
int jr_sep_start(struct jr_serve *s, struct jr_err *e)
{
	unsigned char go = JR_SEP_GO;
	int ret;

	jr_sep_full(s->sep_fd, &go, 1, true);
	ret = pthread_create(&s->pages_th, NULL, jr_sep_pages, s);
	if (ret)
		return jr_fail(e, -ret, "cannot start the server: %s",
			       strerror(ret));
	s->pages_running = true;
	return 0;
}

/* jr_sep_reaped - whether pid ended within ms (and was reaped) */
static bool jr_sep_reaped(pid_t pid, int ms)
{
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	int i;

	for (i = 0; i <= ms / 10; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

/*
 * jr_sep_end - a server that did not end when asked: killed, and reaped
 * within JR_SEP_STOP_MS more, each step's result said.  One that cannot
 * be killed dies with the thread that started it (its parent-death
 * signal), at the latest when serve exits.
 */
static void jr_sep_end(struct jr_serve *s, pid_t child)
{
	int ret = jr_sep_kill(child, s->sep_id);

	if (ret)
		jr_warn("serve: the server process (pid %d) did not end within %d ms and cannot be killed: %s",
			(int)child, JR_SEP_STOP_MS, strerror(-ret));
	else if (!jr_sep_reaped(child, JR_SEP_STOP_MS))
		jr_warn("serve: the server process (pid %d) did not end within %d ms; killed, but still not gone %d ms later",
			(int)child, JR_SEP_STOP_MS, JR_SEP_STOP_MS);
	else
		jr_warn("serve: the server process did not end within %d ms; killed",
			JR_SEP_STOP_MS);
}

/*
 * jr_sep_stop - end the server process: its side of the pair shut, its
 * counts and exit awaited JR_SEP_STOP_MS, then a kill.  Then the pair is
 * shut both ways, so that pages_th ends whatever state the server is in.
 */
void jr_sep_stop(struct jr_serve *s)
{
	pid_t child;

	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	child = s->child;
	if (s->sep_fd >= 0)
		shutdown(s->sep_fd, SHUT_WR);
	pthread_mutex_unlock(&s->lock);
	if (child > 0 && !jr_sep_reaped(child, JR_SEP_STOP_MS))
		jr_sep_end(s, child);
	pthread_mutex_lock(&s->lock);
	if (s->sep_fd >= 0)
		shutdown(s->sep_fd, SHUT_RDWR);
	pthread_mutex_unlock(&s->lock);
	if (s->pages_running)
		pthread_join(s->pages_th, NULL);
	s->pages_running = false;
	if (s->sep_fd >= 0)
		close(s->sep_fd);
	s->sep_fd = -1;
	s->child = 0;
}
