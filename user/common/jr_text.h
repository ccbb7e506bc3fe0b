/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_text.h - names from the traced machine, made safe to show.
 *
 * Task names, IRQ names and handler symbols come from whoever runs on the
 * machine; a process can name itself with terminal escapes.  Text output
 * shows them through jr_text_safe(); JSON keeps valid UTF-8 as it is.
 */
#ifndef JR_TEXT_H
#define JR_TEXT_H

#include <stddef.h>
#include <stdint.h>

int jr_utf8_len(const unsigned char *p);
const char *jr_text_safe(const char *s, char *buf, size_t len);
const char *jr_text_dur(uint64_t ns, char *buf, size_t len);

#endif /* JR_TEXT_H */
