/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_envelope.h - what every JSON document of jitread carries about the
 * run that wrote it, as rt-tests' JSON does: the tool's version, when the
 * run started and ended (ISO 8601, UTC), its exit code and the host.
 */
#ifndef JR_ENVELOPE_H
#define JR_ENVELOPE_H

#include <stdio.h>

#include "common/jr_version_gen.h"

/* jr_envelope_begin - the run starts now (main calls it first) */
void jr_envelope_begin(void);
/* jr_envelope_rc - the exit code the run will give, as known so far */
void jr_envelope_rc(int rc);
/*
 * jr_envelope_json - the members, without braces or a comma after:
 * "jitread_version", "start_time", "end_time" (now), "return_code",
 * "hostname"
 */
void jr_envelope_json(FILE *out);

#endif /* JR_ENVELOPE_H */
