// SPDX-License-Identifier: GPL-2.0
/*
 * pipe_step_test.c - the step a slow pipeline message is filed under
 * (usamp/jr_pipe.c's jr_pipe_step), from its four times: the producer's
 * stamp, the consumer's last empty poll, the poll that saw it and the
 * consumer's stamp.  Prints "ok", or a line per failed check; exit 1 if
 * any.
 */
#include <stdio.h>

#include "usamp/jr_pipe.h"
#include "jr_check.h"

int main(void)
{
	/* not yet published 30 cycles after its stamp: publication */
	CHECK(jr_pipe_step(100, 130, 131, 140) == JR_STEP_PUBLISH);
	/* the last empty poll before the stamp: no publication at all */
	CHECK(jr_pipe_step(100, 90, 150, 151) == JR_STEP_POLL);
	/* no empty poll ever (0), the consumer away 40 cycles */
	CHECK(jr_pipe_step(100, 0, 140, 141) == JR_STEP_POLL);
	/* seen at once, stamped late: the batch before it */
	CHECK(jr_pipe_step(100, 99, 101, 160) == JR_STEP_STAMP);
	/* the poll counted from the empty poll, not from the stamp */
	CHECK(jr_pipe_step(100, 125, 150, 174) == JR_STEP_PUBLISH);
	CHECK(jr_pipe_step(100, 125, 150, 176) == JR_STEP_STAMP);
	/* times out of order (another CPU's TSC) give no wrapped step */
	CHECK(jr_pipe_step(100, 0, 90, 95) == JR_STEP_STAMP);
	if (!failed)
		printf("ok\n");
	return failed;
}
