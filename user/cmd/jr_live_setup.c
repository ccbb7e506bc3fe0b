// SPDX-License-Identifier: GPL-2.0
/*
 * jr_live_setup.c - before a live run: the checks (root, tracefs, jitmod,
 * the CPUs), the CPUs jitread's own threads keep to, and jitmod's
 * settings, claimed for the run, set and put back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "cmd/jr_live_setup.h"
#include "cmd/jr_opts_rtla.h"
#include "common/jr_sys.h"
#include "kernel/jr_sysinfo.h"

static struct jr_ksave *jr_to_restore;

static void jr_restore_at_exit(void)
{
	if (jr_to_restore)
		jr_restore_or_warn(jr_to_restore);
}

/* jr_restore_or_warn - put back jitmod's settings; say so if it fails. */
void jr_restore_or_warn(struct jr_ksave *saved)
{
	int ret = jr_params_restore(saved);

	if (ret)
		jr_warn("could not put back jitmod's settings: %s",
			strerror(-ret));
	if (jr_to_restore == saved)
		jr_to_restore = NULL;
}

/*
 * jr_claim_params - make this run the owner of jitmod's settings, or exit
 * naming the run that is (JR_EXIT_BUSY); what names the options that
 * want to change them.
 */
void jr_claim_params(const struct jr_opts *o, struct jr_ksave *saved,
		     const char *what)
{
	static bool registered;
	struct jr_err e;
	int ret;

	if (!registered) {
		atexit(jr_restore_at_exit);
		registered = true;
	}
	ret = jr_params_claim(saved, o->cmd, &e);
	if (ret == -EBUSY)
		jr_die(JR_EXIT_BUSY,
		       "%s; jitread %s would change them (%s): run it when that run has ended%s",
		       e.msg, o->cmd, what,
		       strcmp(o->cmd, "serve") && strcmp(o->cmd, "compare") ?
			       ", or without those options to read alongside" :
			       "");
	if (ret)
		jr_die(JR_EXIT_RUN, "cannot own jitmod's settings: %s", e.msg);
	jr_to_restore = saved;
}

/*
 * jr_set_warmup - --wake-spin (serve's default included), where jitmod has
 * warmup_us; a jitmod older than jitread samples from the wake-up on, and
 * the run says so.
 */
static void jr_set_warmup(const struct jr_live_opts *l, struct jr_ksave *saved)
{
	int ret;

	if (!l->have_warmup)
		return;
	ret = jr_param_change(saved, "warmup_us", l->warmup_us);
	if (ret == -ENOENT && l->warmup_us)
		jr_warn("this jitmod has no warmup_us: each window starts at "
			"its wake-up");
	else if (ret && ret != -ENOENT)
		jr_die(JR_EXIT_RUN,
		       "cannot set jitmod's warmup_us=%" PRIu64 ": %s",
		       l->warmup_us, strerror(-ret));
}

/* jr_change - one setting, or exit saying which could not be set */
static void jr_change(const struct jr_opts *o, struct jr_ksave *saved,
		      const char *name, uint64_t v)
{
	int ret = jr_param_change(saved, name, v);

	if (o->debug)
		fprintf(stderr, "jitread: debug: jitmod's %s=%" PRIu64 ": %s\n",
			name, v, ret ? strerror(-ret) : "set");
	if (ret && !strcmp(name, "prio") && ret == -EINVAL)
		jr_die(JR_EXIT_RUN,
		       "cannot set jitmod's prio=%" PRIu64
		       ": this kernel's jitmod takes SCHED_FIFO 1 or 50 only (its dmesg says why)",
		       v);
	if (ret)
		jr_die(JR_EXIT_RUN, "cannot set jitmod's %s=%" PRIu64 ": %s",
		       name, v, strerror(-ret));
}

/*
 * jr_set_stops - -s and -S, once jitread's instance reads jitmod's events:
 * written before, a small limit stops jitmod at once, before any reader
 * sees the stop (and a --warm-up would stop unread).
 */
void jr_set_stops(const struct jr_opts *o, struct jr_ksave *saved)
{
	if (o->live.stop_us)
		jr_change(o, saved, "stop_us", o->live.stop_us);
	if (o->live.stop_total_us)
		jr_change(o, saved, "stop_total_us", o->live.stop_total_us);
}

/*
 * jr_set_params - -T, -s, -S, -P, --runtime, --period and --wake-spin,
 * and hwnoise's irqs_off, each noted to be put back at exit; a run that
 * sets none changes nothing, and only puts back what a killed run left.
 * -s and -S wait for jitread's instance (jr_set_stops).  jitmod refuses a
 * runtime longer than its period at every write, so the period goes
 * first when it is not shorter than the runtime in force; put back newest
 * first, the old pair passes the same way.
 */
void jr_set_params(const struct jr_opts *o, struct jr_ksave *saved)
{
	const struct jr_live_opts *l = &o->live;
	const char *names[] = { "threshold_ns", "stop_us", "stop_total_us",
				"period_us", "runtime_us" };
	uint64_t vals[] = { l->threshold_ns, l->stop_us, l->stop_total_us,
			    l->period_us, l->runtime_us };
	uint64_t runtime = 0;
	int i;

	for (i = 0; i < 5 && !vals[i]; i++)
		;
	if (i == 5 && !l->have_warmup && !l->have_prio && !l->cgroup &&
	    !l->irqs_off && !saved->owned) {
		jr_params_recover();
		return;
	}
	jr_claim_params(o, saved,
			strcmp(o->cmd, "serve") ?
				"-T, -s, -S, -P, -C, --runtime or --period" :
				"its duty cycle, --runtime and --period");
	if (l->period_us && l->runtime_us &&
	    !jr_read_param("runtime_us", &runtime) && l->period_us < runtime) {
		names[3] = "runtime_us";
		names[4] = "period_us";
		vals[3] = l->runtime_us;
		vals[4] = l->period_us;
	}
	vals[1] = vals[2] = 0; /* jr_set_stops, once the events are read */
	for (i = 0; i < 5; i++)
		if (vals[i])
			jr_change(o, saved, names[i], vals[i]);
	if (l->have_prio)
		jr_change(o, saved, "prio", (uint64_t)l->prio);
	jr_set_warmup(l, saved);
	/* last: jitmod bounds the runtime while it is on */
	if (l->irqs_off)
		jr_change(o, saved, "irqs_off", 1);
}

/* jr_check_cpus - every CPU asked for must be sampled by jitmod. */
static void jr_check_cpus(const struct jr_opts *o)
{
	char text[512];
	int cpu;

	if (!o->have_cpus)
		return;
	cpu = jr_cpus_outside(o->cpus, JR_PARAMS_DIR "/cpus", text,
			      sizeof(text));
	if (cpu >= 0)
		jr_die(JR_EXIT_USAGE,
		       "CPU %d is not sampled by jitmod (cpus=%s); "
		       "write the list to " JR_PARAMS_DIR "/cpus",
		       cpu, text);
}

/*
 * jr_preflight - root, tracefs, jitmod, the CPUs; then pin jitread to
 * -H, or by default to the online CPUs jitmod does not sample.
 */
void jr_preflight(struct jr_opts *o)
{
	if (geteuid() != 0)
		jr_die(JR_EXIT_RUN,
		       "must run as root to read the trace (or read a recording: jitread report FILE)");
	if (!tracefs_tracing_dir())
		jr_die(JR_EXIT_RUN,
		       "tracefs is not mounted; run: mount -t tracefs nodev /sys/kernel/tracing");
	if (!jr_module_loaded())
		jr_die(JR_EXIT_RUN,
		       "jitmod is not loaded; load it first, e.g.: modprobe jitmod cpus=1-3 (in a build tree: insmod module/jitmod.ko cpus=1-3)");
	jr_check_cpus(o);
	jr_house_jitmod(o);
	jr_pin_house(o);
}

/* jr_house_jitmod - without -H: the online CPUs jitmod does not sample */
void jr_house_jitmod(struct jr_opts *o)
{
	unsigned char sampled[JR_MAX_CPUS];
	char text[512];

	if (!o->live.have_house &&
	    !jr_read_cpulist(JR_PARAMS_DIR "/cpus", sampled, text,
			     sizeof(text)))
		jr_house_default(o, sampled);
}

/* jr_house_default - without -H: the online CPUs that are not sampled */
void jr_house_default(struct jr_opts *o, const unsigned char *sampled)
{
	unsigned char online[JR_MAX_CPUS];
	char text[512];
	int cpu, n = 0;

	if (o->live.have_house ||
	    jr_read_cpulist("/sys/devices/system/cpu/online", online, text,
			    sizeof(text)))
		return;
	for (cpu = 0; cpu < JR_MAX_CPUS; cpu++) {
		o->live.house[cpu] = online[cpu] && !sampled[cpu];
		n += o->live.house[cpu];
	}
	o->live.have_house = n > 0;
}

/* jr_pin_house - -H: this thread, and those it starts, on those CPUs */
void jr_pin_house(const struct jr_opts *o)
{
	cpu_set_t set;
	int cpu;

	if (!o->live.have_house)
		return;
	CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE && cpu < JR_MAX_CPUS; cpu++)
		if (o->live.house[cpu])
			CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		jr_die(JR_EXIT_USAGE, "-H: cannot pin to those CPUs: %s",
		       strerror(errno));
}
