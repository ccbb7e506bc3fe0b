/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_serve_server.h - between serve (jr_serve_watch.c) and its server
 * process (jr_serve_server.c): the exchange over their socketpair, and the
 * server process's entry.
 */
#ifndef JR_SERVE_SERVER_H
#define JR_SERVE_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/jr_http.h"

#define JR_SEP_GO 'g'
#define JR_SEP_COUNTS 0xff /* then the four counts of struct jr_http */
#define JR_SEP_FAILED UINT64_MAX /* a page length: no page */
#define JR_SEP_MAX_PAGE (64ULL << 20)
#define JR_SEP_LISTEN_FD 3
#define JR_SEP_PAIR_FD 4
/* each way, for each part of a page's exchange */
#define JR_SEP_EXCHANGE_MS 5000
/* the server process's exit codes */
#define JR_SEP_EXIT_SETUP 1 /* it could not drop its privileges */
#define JR_SEP_EXIT_LOST 3 /* its exchange with serve failed */

/* whether the server process runs under a seccomp filter here */
extern const bool jr_sep_filtered;

int jr_sep_full(int fd, void *p, size_t n, bool out);
int jr_sep_filter(void); /* the server's seccomp filter, on the caller */
uint32_t jr_sep_id(void);
__attribute__((noreturn)) void jr_sep_child(struct jr_http *h, pid_t parent,
					    int pair_fd, uint32_t id);

#endif /* JR_SERVE_SERVER_H */
