// SPDX-License-Identifier: GPL-2.0
/*
 * jr_http_loop.c - the server's loop: many connections at once, none of
 * which can hold the others.
 *
 * One thread polls the listening socket and every connection, which are
 * all non-blocking.  A connection reads its request, then writes its
 * whole answer (built at once in memory), then lingers a moment before
 * it is closed; each step has a deadline (JR_HTTP_TIMEOUT_MS from the
 * accept), past which the connection is dropped.  At most
 * JR_HTTP_MAX_CONNS are open, and JR_HTTP_MAX_PER_PEER from one address:
 * a new one past either limit takes the place of the one that has
 * waited longest without progress (the one past the peer's limit, of
 * that peer), whether it waits for its request or for the client to
 * take its answer, so idle, slow or stalled clients, however many, delay
 * a scraper that sends its request at once and reads its answer by no
 * more than a turn of the loop.  An answer's bytes count against
 * JR_HTTP_MAX_HELD from the moment it is built until it is sent or its
 * connection closed.  When accept fails for want of descriptors or
 * memory, the listening socket is left alone for JR_HTTP_BACKOFF_MS
 * instead of being polled again at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/jr_http.h"

enum jr_conn_state { JR_C_READ, JR_C_WRITE, JR_C_LINGER };

struct jr_conn {
	int fd;
	enum jr_conn_state state;
	unsigned char peer[16]; /* the client's address, IPv4 mapped */
	uint64_t seq; /* its place in the order of accepts */
	uint64_t deadline_ms;
	uint64_t still_ms; /* since when it made no progress */
	bool gone; /* evicted for its answer's memory: closed next */
	char req[JR_HTTP_MAX_REQUEST];
	size_t n; /* bytes of req read */
	struct jr_buf out; /* the answer */
	size_t sent;
};

struct jr_loop {
	struct jr_http *h;
	struct jr_conn *c[JR_HTTP_MAX_CONNS];
	int nr;
	uint64_t accepted; /* connections so far, for their seq */
	uint64_t backoff_until_ms;
};

static uint64_t jr_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* jr_peer_of - the peer's address as 16 bytes, IPv4 as ::ffff:a.b.c.d */
static void jr_peer_of(const struct sockaddr_storage *ss, unsigned char *p)
{
	memset(p, 0, 16);
	if (ss->ss_family == AF_INET6) {
		memcpy(p, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else if (ss->ss_family == AF_INET) {
		p[10] = p[11] = 0xff;
		memcpy(p + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	}
}

/* jr_conn_unhold - the answer's memory, freed and no longer counted */
static void jr_conn_unhold(struct jr_loop *l, struct jr_conn *c)
{
	l->h->held -= c->out.len;
	jr_buf_free(&c->out);
}

static void jr_conn_close(struct jr_loop *l, int i)
{
	struct jr_conn *c = l->c[i];

	close(c->fd);
	jr_conn_unhold(l, c);
	free(c);
	l->c[i] = l->c[--l->nr];
}

/* jr_stiller - whether a has waited without progress longer than b */
static bool jr_stiller(const struct jr_conn *a, const struct jr_conn *b)
{
	return a->still_ms < b->still_ms ||
	       (a->still_ms == b->still_ms && a->seq < b->seq);
}

/*
 * jr_stillest - the connection still reading its request or writing its
 * answer (only writing, with writers) that has waited longest without
 * progress, of peer only when peer is given; its index, or -1.
 */
static int jr_stillest(const struct jr_loop *l, const unsigned char *peer,
		       bool writers)
{
	int i, old = -1;

	for (i = 0; i < l->nr; i++) {
		const struct jr_conn *c = l->c[i];

		if (c->gone || c->state == JR_C_LINGER ||
		    (writers && c->state != JR_C_WRITE) ||
		    (peer && memcmp(c->peer, peer, 16)))
			continue;
		if (old < 0 || jr_stiller(c, l->c[old]))
			old = i;
	}
	return old;
}

/*
 * jr_evict - make room for a new connection: the stillest, of peer only
 * when peer is given.  Whether one was closed.
 */
static bool jr_evict(struct jr_loop *l, const unsigned char *peer)
{
	int old = jr_stillest(l, peer, false);

	if (old < 0)
		return false;
	l->h->dropped++;
	jr_conn_close(l, old);
	return true;
}

static int jr_peer_count(const struct jr_loop *l, const unsigned char *peer)
{
	int i, n = 0;

	for (i = 0; i < l->nr; i++)
		n += !memcmp(l->c[i]->peer, peer, 16);
	return n;
}

/* jr_accept_all - take every pending connection, within the limits */
static void jr_accept_all(struct jr_loop *l)
{
	struct sockaddr_storage ss;
	unsigned char peer[16];
	struct jr_conn *c;
	socklen_t len;
	int fd;

	for (;;) {
		len = sizeof(ss);
		fd = accept4(l->h->fd, (struct sockaddr *)&ss, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				l->h->backoffs++;
				l->backoff_until_ms =
					jr_now_ms() + JR_HTTP_BACKOFF_MS;
			}
			return;
		}
		jr_peer_of(&ss, peer);
		if ((jr_peer_count(l, peer) >= JR_HTTP_MAX_PER_PEER &&
		     !jr_evict(l, peer)) ||
		    (l->nr == JR_HTTP_MAX_CONNS && !jr_evict(l, NULL))) {
			l->h->dropped++;
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		memcpy(c->peer, peer, 16);
		c->seq = l->accepted++;
		c->still_ms = jr_now_ms();
		c->deadline_ms = c->still_ms + JR_HTTP_TIMEOUT_MS;
		l->c[l->nr++] = c;
	}
}

/*
 * jr_answer_now - the request is whole (or too large): answer it, once
 * the answers no client takes have made room for it.  Those are only
 * marked here, and closed by the loop: the loop is walking the list.
 */
static void jr_answer_now(struct jr_loop *l, struct jr_conn *c, bool whole)
{
	int stalled, status;

	while (l->h->held >= JR_HTTP_MAX_HELD &&
	       (stalled = jr_stillest(l, NULL, true)) >= 0) {
		l->c[stalled]->gone = true;
		l->c[stalled]->deadline_ms = 0;
		jr_conn_unhold(l, l->c[stalled]);
	}
	status = jr_http_respond(l->h, whole ? c->req : NULL, &c->out);

	if (status == 200)
		l->h->served++;
	else
		l->h->refused++;
	l->h->held += c->out.len;
	if (l->h->held > l->h->held_max)
		l->h->held_max = l->h->held;
	c->state = JR_C_WRITE;
	c->still_ms = jr_now_ms();
}

/* jr_conn_read - what came; false once the connection is to be closed */
static bool jr_conn_read(struct jr_loop *l, struct jr_conn *c)
{
	ssize_t r;

	if (c->state == JR_C_LINGER) {
		char buf[4096];

		r = recv(c->fd, buf, sizeof(buf), 0);
		return r > 0 || (r < 0 && errno == EAGAIN);
	}
	if (c->state != JR_C_READ)
		return true;
	if (c->n + 1 >= sizeof(c->req)) {
		jr_answer_now(l, c, false);
		return true;
	}
	r = recv(c->fd, c->req + c->n, sizeof(c->req) - 1 - c->n, 0);
	if (r < 0)
		return errno == EAGAIN || errno == EINTR;
	if (!r) {
		l->h->refused++;
		return false;
	}
	c->n += r;
	c->req[c->n] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
		jr_answer_now(l, c, true);
	else if (c->n + 1 >= sizeof(c->req))
		jr_answer_now(l, c, false);
	return true;
}

/* jr_conn_write - send what the socket takes; the answer sent, linger */
static bool jr_conn_write(struct jr_loop *l, struct jr_conn *c)
{
	ssize_t w;

	if (c->out.oom)
		return false;
	while (c->sent < c->out.len) {
		w = send(c->fd, c->out.p + c->sent, c->out.len - c->sent,
			 MSG_NOSIGNAL);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR;
		c->sent += w;
		c->still_ms = jr_now_ms();
	}
	jr_conn_unhold(l, c);
	/*
	 * What the client still sends is read and dropped for a moment, so
	 * that closing does not reset the connection before it has read
	 * the answer.
	 */
	shutdown(c->fd, SHUT_WR);
	c->state = JR_C_LINGER;
	c->deadline_ms = jr_now_ms() + JR_HTTP_LINGER_MS;
	return true;
}

/* jr_poll_ms - how long the loop may sleep: the nearest deadline */
static int jr_poll_ms(const struct jr_loop *l, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	int i;

	for (i = 0; i < l->nr; i++)
		if (l->c[i]->deadline_ms < next)
			next = l->c[i]->deadline_ms;
	if (l->backoff_until_ms > now && l->backoff_until_ms < next)
		next = l->backoff_until_ms;
	if (next == UINT64_MAX)
		return -1;
	return next > now ? (int)(next - now) : 0;
}

/* jr_loop_turn - one poll and what it found; false: stop */
static bool jr_loop_turn(struct jr_loop *l)
{
	struct pollfd p[JR_HTTP_MAX_CONNS + 2];
	struct jr_conn *c;
	uint64_t now = jr_now_ms();
	bool listening = now >= l->backoff_until_ms;
	int i, n = l->nr;

	p[0] = (struct pollfd){ .fd = l->h->stop[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = listening ? l->h->fd : -1,
				.events = POLLIN };
	for (i = 0; i < n; i++)
		p[i + 2] = (struct pollfd){
			.fd = l->c[i]->fd,
			.events = l->c[i]->state == JR_C_WRITE ? POLLOUT :
								 POLLIN
		};
	if (poll(p, n + 2, jr_poll_ms(l, now)) < 0 && errno != EINTR)
		return false;
	if (p[0].revents)
		return false;
	now = jr_now_ms();
	/* backwards: closing one moves the last into its place */
	for (i = n - 1; i >= 0; i--) {
		bool keep = true;

		c = l->c[i];
		if (c->gone) {
			l->h->dropped++;
			jr_conn_close(l, i);
			continue;
		}
		if (p[i + 2].revents & (POLLIN | POLLERR | POLLHUP))
			keep = jr_conn_read(l, c);
		if (keep && c->state == JR_C_WRITE)
			keep = jr_conn_write(l, c);
		if (keep && now >= c->deadline_ms) {
			if (c->state != JR_C_LINGER)
				l->h->dropped++;
			keep = false;
		}
		if (!keep)
			jr_conn_close(l, i);
	}
	if (p[1].revents & POLLIN)
		jr_accept_all(l);
	return true;
}

/*
 * jr_http_serve - serve on h->fd in the calling thread until h->stop[0]
 * becomes readable (or polling fails), then close every connection.
 */
void jr_http_serve(struct jr_http *h)
{
	struct jr_loop l = { .h = h };

	while (jr_loop_turn(&l))
		;
	while (l.nr)
		jr_conn_close(&l, l.nr - 1);
}

/* jr_http_close - the listening socket and the stop pipe, closed */
void jr_http_close(struct jr_http *h)
{
	if (h->stop[0] >= 0)
		close(h->stop[0]);
	if (h->stop[1] >= 0)
		close(h->stop[1]);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = h->stop[0] = h->stop[1] = -1;
}
