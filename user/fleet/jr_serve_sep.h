/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_serve_sep.h - between serve (jr_serve_watch.c) and its server
 * process (jr_serve_sep.c): the exchange over their socketpair, and the
 * server process's entry.
 */
#ifndef JR_SERVE_SEP_H
#define JR_SERVE_SEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fleet/jr_serve.h"

#define JR_SEP_GO 'g'
#define JR_SEP_COUNTS 0xff /* then the four counts of struct jr_http */
#define JR_SEP_FAILED UINT64_MAX /* a page length: no page */
#define JR_SEP_MAX_PAGE (256ULL << 20)
#define JR_SEP_LISTEN_FD 3
#define JR_SEP_PAIR_FD 4

int jr_sep_full(int fd, void *p, size_t n, bool out);
__attribute__((noreturn)) void jr_sep_child(struct jr_serve *s, pid_t parent,
					    int pair_fd);

#endif /* JR_SERVE_SEP_H */
