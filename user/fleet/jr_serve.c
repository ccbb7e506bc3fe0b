// SPDX-License-Identifier: GPL-2.0
/*
 * jr_serve.c - jitread serve's metrics: rendered from the model at every
 * refresh, served over HTTP and written to --textfile.
 *
 * The main thread owns the model.  At each refresh it renders both
 * formats into a scratch buffer and swaps it in under the lock; the
 * server thread copies the page it needs under the same lock, so a
 * scrape never waits for the model and never sees half a refresh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jr_safe.h"
#include "fleet/jr_serve.h"

_Static_assert((int)JR_FMT_TEXT == (int)JR_PROM_TEXT &&
		       (int)JR_FMT_OPENMETRICS == (int)JR_PROM_OPENMETRICS &&
		       (int)JR_FMT_PROTOBUF == (int)JR_PROM_PROTOBUF &&
		       (int)JR_NR_FMT == (int)JR_PROM_NR_FMT,
	       "jitread serve's formats are the exposition's");

int jr_serve_open(struct jr_serve *s, const struct jr_serve_opts *so,
		  const char *backend, const char *kernel, struct jr_err *e)
{
	const struct jr_prom_info info = { .version = JR_VERSION,
					   .backend = backend,
					   .kernel = kernel,
					   .warmup_ns = so->warmup_ns };
	int ret;

	memset(s, 0, sizeof(*s));
	s->so = so;
	s->dfd = -1;
	s->http.fd = -1;
	s->http.stop[0] = s->http.stop[1] = -1;
	s->sep_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	jr_prom_init(&s->prom, so->top, &info);
	if (so->textfile) {
		s->dfd = jr_safe_dir(so->textfile, 0, e);
		if (s->dfd < 0) {
			ret = s->dfd;
			s->dfd = -1;
			return ret;
		}
	}
	if (so->listen_fd >= 0)
		ret = jr_http_adopt(&s->http, so->listen_fd, e);
	else if (so->listen)
		ret = jr_http_listen(&s->http, so->listen, e);
	else
		return 0;
	return ret ? ret : jr_sep_fork(s, e);
}

/*
 * jr_textfile_write - the text format into DIR/jitread.prom, whole or
 * not at all: written under a name node_exporter ignores, then renamed.
 */
static int jr_textfile_write(struct jr_serve *s, const struct jr_buf *b)
{
	char tmp[64];
	size_t off = 0;
	ssize_t w;
	int fd, ret = 0;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", JR_TEXTFILE_NAME, getpid());
	unlinkat(s->dfd, tmp, 0);
	fd = openat(s->dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < b->len) {
		w = write(fd, b->p + off, b->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		off += w;
	}
	/* node_exporter reads it as another user: 0644 whatever the umask */
	if (!ret && fchmod(fd, 0644))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(s->dfd, tmp, s->dfd, JR_TEXTFILE_NAME))
		ret = -errno;
	if (ret)
		unlinkat(s->dfd, tmp, 0);
	return ret;
}

/* jr_textfile - write, saying so when writing starts or stops failing */
static void jr_textfile(struct jr_serve *s)
{
	int ret = jr_textfile_write(s, &s->page[JR_FMT_TEXT]);
	const char *dir = s->so->textfile;

	if (!ret) {
		if (s->textfile_errors)
			jr_warn("--textfile %s: written again", dir);
		s->textfile_errors = 0;
		return;
	}
	if (!s->textfile_errors++)
		jr_warn("--textfile %s/%s: %s", dir, JR_TEXTFILE_NAME,
			strerror(-ret));
	if (!s->fail)
		s->fail = jr_fail(&s->why, JR_EXIT_RUN, "--textfile %s/%s: %s",
				  dir, JR_TEXTFILE_NAME, strerror(-ret));
}

/* jr_serve_refresh - the metrics of the model as it is now */
void jr_serve_refresh(struct jr_serve *s, const struct jr_model *m)
{
	struct jr_buf t;
	int f;

	if (jr_prom_update(&s->prom, m)) {
		if (!s->fail)
			s->fail = jr_fail(
				&s->why, JR_EXIT_RUN,
				"out of memory; the metrics stopped at refresh %llu",
				(unsigned long long)s->refreshes);
		return;
	}
	for (f = 0; f < JR_NR_FMT; f++) {
		jr_buf_reset(&s->scratch);
		jr_prom_write(&s->prom, m, (enum jr_prom_fmt)f, &s->scratch);
		if (s->scratch.oom) {
			if (!s->fail)
				s->fail = jr_fail(
					&s->why, JR_EXIT_RUN,
					"out of memory rendering the metrics");
			return;
		}
		pthread_mutex_lock(&s->lock);
		t = s->page[f];
		s->page[f] = s->scratch;
		pthread_mutex_unlock(&s->lock);
		s->scratch = t;
	}
	s->refreshes++;
	if (s->dfd >= 0)
		jr_textfile(s);
}

/*
 * jr_serve_start - the first refresh, then the server; the thread that
 * answers its page requests takes no signals: they stop the run, and the
 * main thread must see them.
 */
int jr_serve_start(struct jr_serve *s, const struct jr_model *m,
		   struct jr_err *e)
{
	sigset_t all, old;
	int ret;

	jr_serve_refresh(s, m);
	if (s->child <= 0)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = jr_sep_start(s, e);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret && !s->quiet)
		jr_warn("serving http://%s/metrics", s->http.addr);
	return ret;
}

/*
 * jr_serve_close - stop serving; unless quiet, a line of what the server
 * did: scrapes answered, requests refused, connections dropped (slow,
 * idle, or past the limits) and accepts put off for want of descriptors.
 */
void jr_serve_close(struct jr_serve *s)
{
	bool served = s->pages_running;
	int f;

	jr_sep_stop(s);
	if (s->sep_fail && !s->fail) {
		s->fail = s->sep_fail;
		s->why = s->sep_why;
	}
	jr_http_close(&s->http);
	if (served && !s->quiet)
		jr_warn("served %" PRIu64 " answer(s), refused %" PRIu64
			", dropped %" PRIu64
			" connection(s); accept backed off %" PRIu64
			" time(s); the server process was started again %d time(s)",
			s->http.served, s->http.refused, s->http.dropped,
			s->http.backoffs, s->restarts);
	if (s->dfd >= 0)
		close(s->dfd);
	s->dfd = -1;
	for (f = 0; f < JR_NR_FMT; f++)
		jr_buf_free(&s->page[f]);
	jr_buf_free(&s->scratch);
	jr_prom_free(&s->prom);
	pthread_mutex_destroy(&s->lock);
}
