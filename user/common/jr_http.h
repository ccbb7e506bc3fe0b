/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_http.h - a small HTTP/1.1 server for one page of metrics.
 *
 * One thread serves many connections at once (jr_http_loop.c): GET (or
 * HEAD) /metrics asks the caller for the body, / says where the metrics
 * are, and anything else gets an error status.  Every connection is
 * closed after its answer; one that is slow to send its request or to
 * take the answer is dropped after JR_HTTP_TIMEOUT_MS, idle ones and
 * ones that stopped taking their answer give way to new ones past the
 * limits, and past JR_HTTP_MAX_HELD bytes of answers not yet sent, a
 * new answer takes the place of those no client takes, so no client can
 * hold the server or its memory.
 * Writes never raise SIGPIPE.
 */
#ifndef JR_HTTP_H
#define JR_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/jr_buf.h"
#include "common/jr_err.h"

#define JR_HTTP_TIMEOUT_MS 5000
#define JR_HTTP_LINGER_MS 200 /* after the answer, before the close */
#define JR_HTTP_MAX_REQUEST 8192
#define JR_HTTP_MAX_CONNS 64 /* open at once */
#define JR_HTTP_MAX_PER_PEER 8 /* open at once from one address */
#define JR_HTTP_BACKOFF_MS 100 /* no accept after it failed for want */
#define JR_HTTP_MAX_HELD (64UL << 20) /* bytes of answers not yet sent */

/* what the client accepts, best first */
enum jr_http_fmt {
	JR_FMT_TEXT, /* text/plain; version=0.0.4 */
	JR_FMT_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
	JR_FMT_PROTOBUF, /* io.prometheus.client.MetricFamily, delimited */
	JR_NR_FMT,
};

/* fill body in the format asked for */
typedef void (*jr_http_fn)(void *ctx, enum jr_http_fmt fmt,
			   struct jr_buf *body);

struct jr_http {
	int fd; /* listening */
	int stop[2]; /* stop[0] readable (or at its end) ends jr_http_serve */
	jr_http_fn fn;
	void *ctx;
	size_t held; /* bytes of answers built and not yet sent */
	char addr[80]; /* as bound: "127.0.0.1:9478", "[::1]:9478" */
	/* written by jr_http_serve; read once it has returned */
	uint64_t served; /* answers with a 200 */
	uint64_t refused; /* requests answered with an error, or cut off */
	size_t held_max; /* the most bytes of answers held at once */
	uint64_t dropped; /* connections closed unanswered: slow, idle, over */
	uint64_t backoffs; /* accepts that failed for want of fds or memory */
};

int jr_http_listen(struct jr_http *h, const char *addr, struct jr_err *e);
int jr_http_passed(int *fd, struct jr_err *e);
int jr_http_adopt(struct jr_http *h, int fd, struct jr_err *e);
void jr_http_serve(struct jr_http *h);
void jr_http_close(struct jr_http *h);
int jr_http_respond(struct jr_http *h, char *req, struct jr_buf *out);

/* jr_http_accepts - the format an Accept header asks for */
enum jr_http_fmt jr_http_accepts(const char *accept);

#endif /* JR_HTTP_H */
