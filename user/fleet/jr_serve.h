/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_serve.h - jitread serve's metrics: rendered from the model at every
 * refresh, served over HTTP and written to --textfile.
 */
#ifndef JR_SERVE_H
#define JR_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/jr_buf.h"
#include "common/jr_err.h"
#include "common/jr_http.h"
#include "core/jr_model.h"
#include "core/jr_prom.h"
#include "common/jr_version_gen.h"

#define JR_TEXTFILE_NAME "jitread.prom"

/* jitread serve's own options */
enum jr_sampler { JR_SAMPLER_AUTO, JR_SAMPLER_JITMOD, JR_SAMPLER_USER };

struct jr_serve_opts {
	const char *listen; /* NULL with --textfile alone */
	bool listen_given; /* --listen was on the command line */
	int listen_fd; /* the socket systemd passed, or -1 */
	const char *textfile; /* a directory */
	uint64_t interval_ns; /* how often the metrics are refreshed */
	int top; /* sources per CPU with series of their own */
	int sampler; /* enum jr_sampler */
	uint64_t warmup_ns; /* spun after each sleep, unrecorded */
	int attach_pid; /* --attach: watch this process, no sampler */
	const char *sampling_opt; /* a sampler's option given, or NULL */
};

struct jr_serve {
	const struct jr_serve_opts *so;
	bool quiet; /* -q: no line when the server starts */
	struct jr_prom prom;
	struct jr_http http; /* its loop is the server process's */
	pid_t child; /* the server process (jr_serve_server.c), or 0 */
	int sep_fd; /* serve's end of the pair, or -1 */
	uint32_t sep_id; /* the server's uid and gid, when serve is root */
	int restarts; /* server processes started after the first */
	bool stopping; /* jr_sep_stop has begun */
	pthread_t pages_th; /* answers the child's page requests */
	bool pages_running;
	int sep_fail; /* pages_th's: an exit code once the server failed */
	struct jr_err sep_why;
	pthread_mutex_t lock; /* page[]; child, sep_fd and stopping */
	struct jr_buf page[JR_NR_FMT]; /* by enum jr_http_fmt */
	struct jr_buf scratch;
	int dfd; /* --textfile's directory, or -1 */
	uint64_t refreshes;
	uint64_t textfile_errors;
	int fail; /* an exit code once something failed; why says why */
	struct jr_err why;
};

int jr_serve_open(struct jr_serve *s, const struct jr_serve_opts *so,
		  const char *backend, const char *kernel, struct jr_err *e);
int jr_serve_start(struct jr_serve *s, const struct jr_model *m,
		   struct jr_err *e);
void jr_serve_refresh(struct jr_serve *s, const struct jr_model *m);
void jr_serve_close(struct jr_serve *s);

/*
 * jr_serve_watch.c: the server in a process of its own, started again
 * at most JR_SEP_RESTARTS times, and given JR_SEP_STOP_MS to end
 */
#define JR_SEP_RESTARTS 5
#define JR_SEP_STOP_MS 2000
int jr_sep_fork(struct jr_serve *s, struct jr_err *e);
int jr_sep_start(struct jr_serve *s, struct jr_err *e);
void jr_sep_stop(struct jr_serve *s);

#endif /* JR_SERVE_H */
