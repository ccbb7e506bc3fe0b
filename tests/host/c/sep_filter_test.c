// SPDX-License-Identifier: GPL-2.0
/*
 * sep_filter_test.c - serve's server process filter (jr_sep_filter() of
 * user/fleet/jr_serve_server.c), applied in a child each time: malloc's
 * mprotect, which a server forked from a thread other than the main one
 * needs to grow its arena, passes; the same call asking for PROT_EXEC,
 * and a call the server never makes, kill the process with SIGSYS.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fleet/jr_serve_server.h"
#include "jr_check.h"

enum { JR_T_RW, JR_T_EXEC, JR_T_OTHER };

/* jr_child - the filter, then one call; its exit code or signal */
static int jr_child(int what)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		void *p = mmap(NULL, 4096, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    jr_sep_filter())
			_exit(2);
		if (what == JR_T_RW &&
		    mprotect(p, 4096, PROT_READ | PROT_WRITE))
			_exit(3);
		if (what == JR_T_RW)
			_exit(0);
		if (what == JR_T_EXEC)
			mprotect(p, 4096, PROT_READ | PROT_EXEC);
		else
			syscall(SYS_getpid);
		_exit(4);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : WEXITSTATUS(st);
}

int main(void)
{
	int rw, ex, other;

	if (!jr_sep_filtered) {
		printf("skip: no filter for this architecture\n");
		return 0;
	}
	rw = jr_child(JR_T_RW);
	ex = jr_child(JR_T_EXEC);
	other = jr_child(JR_T_OTHER);
	CHECK(rw == 0);
	CHECK(ex == 1000 + SIGSYS);
	CHECK(other == 1000 + SIGSYS);
	if (failed)
		printf("rw %d, exec %d, other %d (1000 + signal)\n", rw, ex,
		       other);
	else
		printf("ok\n");
	return failed;
}
