/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_sysinfo.h - the machine's description for reports.
 */
#ifndef JR_SYSINFO_H
#define JR_SYSINFO_H

#include "core/jr_rec.h"

void jr_sysinfo_fill(struct jr_sysinfo *s, int argc, char **argv);

#endif /* JR_SYSINFO_H */
