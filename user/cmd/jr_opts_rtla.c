// SPDX-License-Identifier: GPL-2.0
/*
 * jr_opts_rtla.c - the options a live run takes from rtla osnoise that
 * the shared groups do not: -P, -C, -e with --filter and --trigger,
 * --warm-up, -a, -D and --no-period, each
 * with rtla's meaning as far as jitmod can take it; and -D's account of
 * what the command line set.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/jr_opts.h"
#include "cmd/jr_opts_rtla.h"

/*
 * jr_parse_prio - rtla's -P POLICY:VALUE, the policy's letter in either
 * case.  jitmod's samplers run SCHED_FIFO at 1-99 or SCHED_OTHER at nice
 * 0; rtla's other forms (r:, d:, o: with a nice value) are refused.
 */
static int jr_parse_prio(const char *arg, struct jr_live_opts *l,
			 struct jr_err *e)
{
	static const char works[] =
		"jitmod's samplers take f:PRIO (SCHED_FIFO, 1-99) or o:0 (SCHED_OTHER)";
	uint64_t v = 0;
	char p = arg[0] | 0x20;

	if (!arg[0] || arg[1] != ':' || !strchr("ofrd", p))
		return jr_fail(e, -EINVAL, "bad -P '%s': %s", arg, works);
	if (p == 'r' || p == 'd')
		return jr_fail(e, -EINVAL, "-P '%s': %s; not %s", arg, works,
			       p == 'r' ? "SCHED_RR" : "SCHED_DEADLINE");
	if (p == 'o' && strcmp(arg + 2, "0"))
		return jr_fail(e, -EINVAL, "-P '%s': %s; not a nice value", arg,
			       works);
	if (p == 'f' && jr_parse_u64(arg + 2, 1, 99, &v))
		return jr_fail(e, -EINVAL, "bad -P '%s': %s", arg, works);
	l->prio = p == 'f' ? (int)v : 0;
	l->have_prio = true;
	return 0;
}

/* jr_event_name - a tracefs system or event name: [A-Za-z0-9_], 1-63 */
static bool jr_event_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 63)
		return false;
	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
		      ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
			return false;
	return true;
}

/* jr_add_event - -e SYS[:EVENT], as rtla: a system alone is all of it */
static int jr_add_event(const char *arg, struct jr_live_opts *l,
			struct jr_err *e)
{
	const char *colon = strchr(arg, ':');
	size_t ns = colon ? (size_t)(colon - arg) : strlen(arg);
	struct jr_xevent *ev = &l->events[l->nr_events];

	if (l->nr_events == JR_MAX_EVENTS)
		return jr_fail(e, -EINVAL, "at most %d -e events",
			       JR_MAX_EVENTS);
	if (!jr_event_name(arg, ns) ||
	    (colon && !jr_event_name(colon + 1, strlen(colon + 1))))
		return jr_fail(
			e, -EINVAL,
			"bad -e '%s' (SYS or SYS:EVENT, e.g. sched:sched_switch)",
			arg);
	memset(ev, 0, sizeof(*ev));
	memcpy(ev->sys, arg, ns);
	if (colon)
		strcpy(ev->event, colon + 1);
	l->nr_events++;
	return 0;
}

/* jr_event_attr - --filter or --trigger: of the -e given last */
static int jr_event_attr(int key, const char *arg, struct jr_live_opts *l,
			 struct jr_err *e)
{
	const char *opt = key == JR_K_FILTER ? "filter" : "trigger";
	struct jr_xevent *ev = &l->events[l->nr_events - 1];
	const char **slot;

	if (!l->nr_events)
		return jr_fail(
			e, -EINVAL,
			"--%s applies to the -e before it: give -e first", opt);
	slot = key == JR_K_FILTER ? &ev->filter : &ev->trigger;
	if (*slot)
		return jr_fail(e, -EINVAL, "-e %s%s%s: a second --%s", ev->sys,
			       ev->event[0] ? ":" : "", ev->event, opt);
	*slot = arg;
	return 0;
}

/*
 * jr_apply_auto - -a US as rtla: stop on a gap above US, a 1 us
 * threshold, the trace saved on the stop; and the stop explained.
 */
static int jr_apply_auto(const char *arg, struct jr_opts *o, struct jr_err *e)
{
	struct jr_live_opts *l = &o->live;
	uint64_t ns;
	int i;

	if (jr_parse_time(arg, JR_US, JR_US, 60 * JR_S, &ns) || ns % JR_US)
		return jr_fail(e, -EINVAL, "bad -a '%s' (a time, bare: us)",
			       arg);
	l->auto_us = ns / JR_US;
	l->stop_us = l->auto_us;
	l->threshold_ns = JR_US;
	for (i = 0; i < l->on_thr.nr; i++)
		if (l->on_thr.a[i].kind == JR_ACT_TRACE)
			return 0;
	if (l->on_thr.nr == JR_MAX_ACTIONS)
		return jr_fail(e, -EINVAL, "at most %d --on-threshold actions",
			       JR_MAX_ACTIONS);
	l->on_thr.a[l->on_thr.nr].kind = JR_ACT_TRACE;
	l->on_thr.a[l->on_thr.nr].arg = JR_TRACE_FILE;
	l->on_thr.nr++;
	return 0;
}

enum jr_optres jr_apply_rtla(int key, const char *arg,
			     const struct jr_optenv *env)
{
	struct jr_opts *o = env->o;
	struct jr_live_opts *l = &o->live;
	struct jr_err *e = env->e;
	int ret = 0;

	switch (key) {
	case JR_K_PRIO:
		ret = jr_parse_prio(arg, l, e);
		break;
	case JR_K_CGROUP:
		if (arg && !arg[0])
			ret = jr_fail(e, -EINVAL, "-C: an empty cgroup name");
		l->cgroup = true;
		l->cgroup_name = arg;
		break;
	case JR_K_EVENT:
		ret = jr_add_event(arg, l, e);
		break;
	case JR_K_FILTER:
	case JR_K_TRIGGER:
		ret = jr_event_attr(key, arg, l, e);
		break;
	case JR_K_WARM_UP:
		if (jr_parse_time(arg, JR_S, 0, 3600 * JR_S, &l->warm_up_ns))
			return JR_OPT_BAD;
		break;
	case JR_K_AUTO:
		ret = jr_apply_auto(arg, o, e);
		break;
	case JR_K_DEBUG:
		o->debug = true;
		break;
	case JR_K_NOPERIOD:
		l->period_us = 0;
		break;
	default:
		return JR_OPT_NOT_MINE;
	}
	return ret ? JR_OPT_SAID : JR_OPT_TAKEN;
}

/* jr_debug_actions - one line per action of l */
static void jr_debug_actions(const char *what, const struct jr_actions *l)
{
	static const char *const kinds[] = { "stop", "continue", "trace",
					     "exec", "signal" };
	int i;

	for (i = 0; i < l->nr; i++)
		fprintf(stderr, "jitread: debug: %s %s %s\n", what,
			kinds[l->a[i].kind], l->a[i].arg ? l->a[i].arg : "");
}

void jr_opts_debug(const struct jr_opts *o)
{
	const struct jr_live_opts *l = &o->live;
	int i;

	if (!o->debug)
		return;
	fprintf(stderr,
		"jitread: debug: %s cpus=%s duration_ns=%" PRIu64
		" threshold_ns=%" PRIu64 " stop_us=%" PRIu64
		" stop_total_us=%" PRIu64 " runtime_us=%" PRIu64
		" period_us=%" PRIu64 " warm_up_ns=%" PRIu64 " auto_us=%" PRIu64
		"\n",
		o->cmd, o->have_cpus ? o->cpus_text : "-", l->duration_ns,
		l->threshold_ns, l->stop_us, l->stop_total_us, l->runtime_us,
		l->period_us, l->warm_up_ns, l->auto_us);
	fprintf(stderr,
		"jitread: debug: prio=%s%d cgroup=%s buffer_kb=%zu bucket_ns=%" PRIu64
		" entries=%d quiet=%d no_header=%d no_summary=%d no_index=%d with_zeros=%d\n",
		l->have_prio ? "" : "-", l->prio,
		!l->cgroup     ? "-" :
		l->cgroup_name ? l->cgroup_name :
				 "(jitread's)",
		l->buffer_kb, o->out.bucket_ns, o->out.entries, o->out.quiet,
		o->out.no_header, o->out.no_summary, o->out.no_index,
		o->out.with_zeros);
	for (i = 0; i < l->nr_events; i++)
		fprintf(stderr,
			"jitread: debug: event %s:%s filter=%s trigger=%s\n",
			l->events[i].sys,
			l->events[i].event[0] ? l->events[i].event : "*",
			l->events[i].filter ? l->events[i].filter : "-",
			l->events[i].trigger ? l->events[i].trigger : "-");
	jr_debug_actions("on-threshold", &l->on_thr);
	jr_debug_actions("on-end", &l->on_end);
}
