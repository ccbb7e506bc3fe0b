/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitinject.h - what the injector's files share: the target CPU and the
 * lock that lets one injection run at a time.
 */
#ifndef JITINJECT_H
#define JITINJECT_H

#include <linux/mutex.h>

extern unsigned int jinj_cpu;
extern struct mutex jinj_lock;

void jinj_smi_init(void);
void jinj_smi_exit(void);

#endif /* JITINJECT_H */
