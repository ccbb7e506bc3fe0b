// SPDX-License-Identifier: GPL-2.0
/*
 * jr_http.c - a small HTTP/1.1 server for one page of metrics: the
 * listening socket, and the answer to a request (jr_http_loop.c serves
 * the connections).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/jr_http.h"

static const char *const jr_ctype[] = {
	[JR_FMT_TEXT] = "text/plain; version=0.0.4; charset=utf-8",
	[JR_FMT_OPENMETRICS] =
		"application/openmetrics-text; version=1.0.0; charset=utf-8",
	[JR_FMT_PROTOBUF] = "application/vnd.google.protobuf; "
			    "proto=io.prometheus.client.MetricFamily; "
			    "encoding=delimited",
};

/* jr_split_addr - "HOST:PORT", "[V6]:PORT" or ":PORT" into its parts */
static int jr_split_addr(const char *addr, char *host, size_t hlen, char *port,
			 size_t plen)
{
	const char *colon = strrchr(addr, ':'), *h = addr;
	size_t n;

	if (!colon || !colon[1] || strlen(colon + 1) >= plen)
		return -EINVAL;
	n = colon - addr;
	if (n && addr[0] == '[') {
		if (addr[n - 1] != ']')
			return -EINVAL;
		h++;
		n -= 2;
	}
	if (n >= hlen)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	strcpy(port, colon + 1);
	return strspn(port, "0123456789") == strlen(port) ? 0 : -EINVAL;
}

static void jr_name_bound(struct jr_http *h)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[64], port[8];

	if (getsockname(h->fd, (struct sockaddr *)&ss, &len) ||
	    getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV))
		return;
	snprintf(h->addr, sizeof(h->addr),
		 ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

/*
 * jr_http_listen - bind addr ("127.0.0.1:9478"; an empty host is every
 * address; port 0 picks one, which h->addr then names).
 */
int jr_http_listen(struct jr_http *h, const char *addr, struct jr_err *e)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV },
			*res = NULL;
	char host[64], port[8];
	int ret, one = 1;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	h->stop[0] = h->stop[1] = -1;
	if (jr_split_addr(addr, host, sizeof(host), port, sizeof(port)))
		return jr_fail(
			e, -EINVAL,
			"--listen '%s': want HOST:PORT, [V6]:PORT or :PORT",
			addr);
	ret = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (ret)
		return jr_fail(e, -EINVAL, "--listen '%s': %s", addr,
			       gai_strerror(ret));
	h->fd = socket(res->ai_family,
		       SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       res->ai_protocol);
	if (h->fd < 0 ||
	    setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(h->fd, res->ai_addr, res->ai_addrlen) || listen(h->fd, 128)) {
		ret = -errno;
		freeaddrinfo(res);
		if (h->fd >= 0)
			close(h->fd);
		h->fd = -1;
		return jr_fail(e, ret, "--listen %s: %s", addr, strerror(-ret));
	}
	freeaddrinfo(res);
	jr_name_bound(h);
	return 0;
}

/*
 * jr_http_passed - the listening socket systemd passed (socket
 * activation: LISTEN_PID names this process and LISTEN_FDS is 1; the
 * socket is fd 3) in *fd, or -1 there when none was; 0, or -errno with e
 * saying why.  The variables are removed either way, so that no child
 * takes them for its own.
 */
int jr_http_passed(int *fd, struct jr_err *e)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	struct sockaddr_storage ss;
	socklen_t len = sizeof(int), sl = sizeof(ss);
	int type = 0, acc = 0, ret = 0;
	char *end;

	*fd = -1;
	if (!pid || !fds || strtol(pid, &end, 10) != getpid() || *end)
		goto out;
	if (strcmp(fds, "1")) {
		ret = jr_fail(
			e, -EINVAL,
			"systemd passed '%.16s' sockets (LISTEN_FDS); serve takes one",
			fds);
	} else if (getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &len) ||
		   type != SOCK_STREAM ||
		   getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) ||
		   !acc || getsockname(3, (struct sockaddr *)&ss, &sl) ||
		   (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
		ret = jr_fail(
			e, -ENOTSOCK,
			"the socket systemd passed (fd 3) is not a listening TCP socket");
	} else {
		*fd = 3;
	}
out:
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return ret;
}

/* jr_http_adopt - serve on fd, a listening socket made by someone else */
int jr_http_adopt(struct jr_http *h, int fd, struct jr_err *e)
{
	int fl = fcntl(fd, F_GETFL);

	memset(h, 0, sizeof(*h));
	h->stop[0] = h->stop[1] = -1;
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		h->fd = -1;
		return jr_fail(e, -errno, "the passed socket: %s",
			       strerror(errno));
	}
	h->fd = fd;
	jr_name_bound(h);
	return 0;
}

/*
 * jr_answer - an answer in out: the status line, headers and, unless
 * head, the body.
 */
static void jr_answer(struct jr_buf *out, int status, const char *reason,
		      const char *ctype, const struct jr_buf *body, bool head)
{
	size_t len = body && body->p ? body->len : 0;

	jr_buf_printf(out,
		      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		      status, reason, ctype, len);
	if (!head && len)
		jr_buf_put(out, body->p, len);
}

/* jr_header - the value of header name in the request, or NULL */
static const char *jr_header(char *req, const char *name, char *val, size_t len)
{
	size_t nl = strlen(name), n;
	char *line = strchr(req, '\n');

	while (line && line[1] && line[1] != '\r' && line[1] != '\n') {
		line++;
		if (!strncasecmp(line, name, nl) && line[nl] == ':') {
			line += nl + 1;
			line += strspn(line, " \t");
			n = strcspn(line, "\r\n");
			if (n >= len)
				n = len - 1;
			memcpy(val, line, n);
			val[n] = '\0';
			return val;
		}
		line = strchr(line, '\n');
	}
	return NULL;
}

/*
 * jr_param - the value of parameter name (case-insensitive) among a
 * media range's parameters, spaces trimmed, into val; false if absent.
 */
static bool jr_param(const char *params, size_t len, const char *name,
		     char *val, size_t vlen)
{
	const char *p = params, *end = params + len;
	size_t n = strlen(name);

	while (p < end) {
		const char *semi = memchr(p, ';', end - p);
		const char *stop = semi ? semi : end;

		while (p < stop && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(stop - p) > n && !strncasecmp(p, name, n) &&
		    p[n] == '=') {
			size_t w = stop - p - n - 1;

			while (w && (p[n + w] == ' ' || p[n + w] == '\t'))
				w--;
			snprintf(val, vlen, "%.*s", (int)w, p + n + 1);
			return true;
		}
		p = semi ? semi + 1 : end;
	}
	return false;
}

/* jr_param_is - whether parameter name has value v (case-insensitive) */
static bool jr_param_is(const char *params, size_t len, const char *name,
			const char *v)
{
	char val[64];

	return jr_param(params, len, name, val, sizeof(val)) &&
	       !strcasecmp(val, v);
}

/* jr_qvalue - a range's q= (RFC 9110: 0 to 1, 3 decimals), 1 without */
static double jr_qvalue(const char *params, size_t len)
{
	char num[8];
	double q;

	if (!jr_param(params, len, "q", num, sizeof(num)))
		return 1;
	q = strtod(num, NULL);
	return q < 0 ? 0 : q > 1 ? 1 : q;
}

/*
 * jr_http_accepts - the format the Accept header prefers, by its
 * q-values: protobuf (Prometheus asks for it when it wants native
 * histograms), OpenMetrics or the text format; on a tie, in that order.
 * The wildcards (any text, anything) and no header at all mean the text
 * format, so that curl gets text; a format offered at q=0 is never
 * chosen.
 */
enum jr_http_fmt jr_http_accepts(const char *accept)
{
	double q[JR_NR_FMT] = { 0 };
	const char *p = accept;
	int f, best = JR_FMT_TEXT;

	if (!accept)
		return JR_FMT_TEXT;
	while (*p) {
		const char *comma = strchr(p, ','),
			   *end = comma ? comma : p + strlen(p);
		const char *semi = memchr(p, ';', end - p);
		const char *type, *tend = semi ? semi : end;
		const char *params = semi ? semi + 1 : end;
		size_t plen = end - params, tlen;
		double rq = jr_qvalue(params, plen);

		while (p < tend && (*p == ' ' || *p == '\t'))
			p++;
		type = p;
		tlen = tend - type;
		while (tlen &&
		       (type[tlen - 1] == ' ' || type[tlen - 1] == '\t'))
			tlen--;
#define JR_IS(t) (tlen == strlen(t) && !strncasecmp(type, t, tlen))
		if (JR_IS("application/vnd.google.protobuf") &&
		    jr_param_is(params, plen, "proto",
				"io.prometheus.client.MetricFamily") &&
		    jr_param_is(params, plen, "encoding", "delimited"))
			f = JR_FMT_PROTOBUF;
		else if (JR_IS("application/openmetrics-text"))
			f = JR_FMT_OPENMETRICS;
		else if (JR_IS("text/plain") || JR_IS("text/*") || JR_IS("*/*"))
			f = JR_FMT_TEXT;
		else
			f = -1;
#undef JR_IS
		if (f >= 0 && rq > q[f])
			q[f] = rq;
		p = comma ? comma + 1 : end;
	}
	for (f = JR_FMT_PROTOBUF; f >= 0; f--)
		if (q[f] > q[best] || (q[f] == q[best] && q[f] > 0 && f > best))
			best = f;
	return best;
}

/*
 * jr_http_respond - the answer to req (a whole request head, or NULL for
 * one that came too large) in out; its status code.
 */
int jr_http_respond(struct jr_http *h, char *req, struct jr_buf *out)
{
	static const struct jr_buf idx = {
		.p = "jitread serve: metrics at /metrics\n", .len = 35
	};
	char method[8], target[256], accept[512];
	const char *text = jr_ctype[JR_FMT_TEXT];
	struct jr_buf body = { 0 };
	enum jr_http_fmt fmt;
	int status = 200;
	bool head;

	if (!req || sscanf(req, "%7s %255s HTTP/1.", method, target) != 2) {
		jr_answer(out, 400, "Bad Request", text, NULL, false);
		return 400;
	}
	head = !strcmp(method, "HEAD");
	target[strcspn(target, "?")] = '\0';
	if (!head && strcmp(method, "GET")) {
		status = 405;
		jr_answer(out, 405, "Method Not Allowed", text, NULL, false);
	} else if (!strcmp(target, "/")) {
		jr_answer(out, 200, "OK", text, &idx, head);
	} else if (strcmp(target, "/metrics")) {
		status = 404;
		jr_answer(out, 404, "Not Found", text, NULL, head);
	} else {
		fmt = jr_http_accepts(
			jr_header(req, "Accept", accept, sizeof(accept)));
		h->fn(h->ctx, fmt, &body);
		if (body.oom) {
			status = 500;
			jr_answer(out, 500, "Internal Server Error", text, NULL,
				  head);
		} else {
			jr_answer(out, 200, "OK", jr_ctype[fmt], &body, head);
		}
		jr_buf_free(&body);
	}
	return status;
}
