# SPDX-License-Identifier: GPL-2.0
"""rtla osnoise's command lines, as rtla's own tests/unit give them for
hist and top, parsed by jitread with rtla's meaning.

Each line runs natively with -D, which prints what the command line set
before the run starts; with no jitmod on this machine the run then ends
"cannot run" (exit 1).  A line jitread refused would end 2.  The lines
and the values they must set are written here from rtla's meaning."""

import os
import re
import unittest

from tests.host import jrcli

DEBUG = re.compile(r"^jitread: debug: (.*)$", re.M)


def parsed(cmd, *args):
    """(exit code, {key: value}, [event lines], [action lines], stderr)."""
    rc, _out, err = jrcli.jitread(cmd, "-D", *args)
    keys, events, actions = {}, [], []
    for line in DEBUG.findall(err):
        if line.startswith("event "):
            events.append(line[6:])
        elif line.startswith(("on-threshold ", "on-end ")):
            actions.append(line.strip())
        else:
            keys.update(kv.split("=", 1) for kv in line.split()
                        if "=" in kv)
    return rc, keys, events, actions, err


# (arguments, {key: the value -D must show}) for hist and top alike
COMMON = [
    (("-p", "100000"), {"period_us": "100000"}),
    (("--period", "100000"), {"period_us": "100000"}),
    (("-r", "95000"), {"runtime_us": "95000"}),
    (("--runtime", "95000"), {"runtime_us": "95000"}),
    (("-s", "20"), {"stop_us": "20"}),
    (("--stop", "20"), {"stop_us": "20"}),
    (("-S", "20"), {"stop_total_us": "20"}),
    (("--stop-total", "20"), {"stop_total_us": "20"}),
    (("-T", "5"), {"threshold_ns": "5000"}),
    (("--threshold", "5"), {"threshold_ns": "5000"}),
    (("-c", "0-1,3"), {"cpus": "0-1,3"}),
    (("--cpus", "0-1,3"), {"cpus": "0-1,3"}),
    (("-H", "0"), {}),
    (("--house-keeping", "0"), {}),
    (("-C",), {"cgroup": "(jitread's)"}),
    (("-C", "cgroup"), {"cgroup": "cgroup"}),
    (("-C=cgroup",), {"cgroup": "cgroup"}),
    (("--cgroup",), {"cgroup": "(jitread's)"}),
    (("--cgroup", "cgroup"), {"cgroup": "cgroup"}),
    (("--cgroup=cgroup",), {"cgroup": "cgroup"}),
    (("-P", "f:95"), {"prio": "95"}),
    (("--priority", "f:95"), {"prio": "95"}),
    (("-P", "F:1"), {"prio": "1"}),
    (("-P", "o:0"), {"prio": "0"}),
    (("--trace-buffer-size", "200"), {"buffer_kb": "200"}),
    (("--warm-up", "5"), {"warm_up_ns": "5000000000"}),
    (("-a", "20"), {"auto_us": "20", "stop_us": "20",
                    "threshold_ns": "1000"}),
    (("-D",), {}),
    (("--debug",), {}),
    (("-d", "1m"), {"duration_ns": "60000000000"}),
    (("--duration", "1m"), {"duration_ns": "60000000000"}),
]

HIST = [
    (("-b", "2"), {"bucket_ns": "2000"}),
    (("--bucket-size", "2"), {"bucket_ns": "2000"}),
    (("-E", "512"), {"entries": "512"}),
    (("--entries", "512"), {"entries": "512"}),
    (("--no-header",), {"no_header": "1"}),
    (("--with-zeros", "--no-index"), {"with_zeros": "1", "no_index": "1"}),
    (("--no-summary",), {"no_summary": "1"}),
    (("--with-zeros",), {"with_zeros": "1"}),
]

TOP = [
    (("-p", "100000", "--no-period"), {"period_us": "0"}),
    (("--period", "100000", "--no-period"), {"period_us": "0"}),
    (("-q",), {"quiet": "1"}),
    (("--quiet",), {"quiet": "1"}),
]

# -t and --trace: (arguments, the trace file, duration_ns)
TRACE = [
    (("-t",), "jitread_trace.txt", "0"),
    (("-t", "-d", "20"), "jitread_trace.txt", "20000000000"),
    (("-t", "tracefile"), "tracefile", "0"),
    (("-t=tracefile",), "tracefile", "0"),
    (("--trace",), "jitread_trace.txt", "0"),
    (("--trace", "-d", "20"), "jitread_trace.txt", "20000000000"),
    (("--trace", "tracefile"), "tracefile", "0"),
    (("--trace=tracefile",), "tracefile", "0"),
    (("--on-threshold", "trace"), "jitread_trace.txt", "0"),
]


@unittest.skipUnless(os.access(jrcli.JITREAD, os.X_OK), "make user")
class RtlaLines(unittest.TestCase):
    def check(self, cmd, args, want):
        rc, keys, _ev, _act, err = parsed(cmd, *args)
        self.assertEqual(rc, 1, f"{cmd} {args}: {err}")
        self.assertIn("jitmod is not loaded", err)
        for k, v in want.items():
            self.assertEqual(keys.get(k), v, f"{cmd} {args}: {k}\n{err}")

    def test_hist_lines(self):
        for args, want in COMMON + HIST:
            self.check("hist", args, want)

    def test_top_lines(self):
        for args, want in COMMON + TOP:
            self.check("top", args, want)

    def test_trace_file_forms(self):
        """-t[FILE] as rtla: a file after a space or an '=', and the
        next option still read when -t has none."""
        for cmd in ("hist", "top"):
            for args, path, duration in TRACE:
                rc, keys, _ev, act, err = parsed(cmd, *args)
                self.assertEqual(rc, 1, f"{cmd} {args}: {err}")
                self.assertEqual(act, [f"on-threshold trace {path}"],
                                 f"{cmd} {args}")
                self.assertEqual(keys["duration_ns"], duration)

    def test_on_end_trace(self):
        for cmd in ("hist", "top"):
            rc, _k, _ev, act, err = parsed(cmd, "--on-end", "trace")
            self.assertEqual(rc, 1, err)
            self.assertEqual(act, ["on-end trace jitread_trace.txt"])

    def test_events_filter_trigger(self):
        for cmd in ("hist", "top"):
            for opt in ("-e", "--event"):
                _rc, _k, ev, _a, err = parsed(cmd, opt, "system:event")
                self.assertEqual(ev, ["system:event filter=- trigger=-"],
                                 err)
            _rc, _k, ev, _a, _e = parsed(cmd, "-e", "system:event",
                                         "--filter", "filter")
            self.assertEqual(ev, ["system:event filter=filter trigger=-"])
            _rc, _k, ev, _a, _e = parsed(cmd, "-e", "system:event",
                                         "--trigger", "trigger")
            self.assertEqual(ev, ["system:event filter=- trigger=trigger"])
            _rc, _k, ev, _a, _e = parsed(cmd, "-e", "sched", "-e",
                                         "irq:irq_handler_entry")
            self.assertEqual(ev, ["sched:* filter=- trigger=-",
                                  "irq:irq_handler_entry filter=- "
                                  "trigger=-"])

    def test_auto_keeps_a_given_trace_file(self):
        _rc, keys, _ev, act, err = parsed("hist", "-t", "f.txt", "-a", "30")
        self.assertEqual(act, ["on-threshold trace f.txt"], err)
        self.assertEqual(keys["stop_us"], "30")

    def test_what_jitmod_cannot_take_is_refused(self):
        """One line each, naming the forms that work; exit 2."""
        cases = [
            (("-P", "r:5"), "f:PRIO"), (("-P", "d:1ms:10ms"), "f:PRIO"),
            (("-P", "o:5"), "not a nice value"), (("-P", "f:0"), "f:PRIO"),
            (("-P", "x"), "f:PRIO"),
            (("--filter", "x"), "give -e first"),
            (("-e", "a/../b"), "SYS:EVENT"),
            (("-e", "s:e", "--filter", "a", "--filter", "b"), "a second"),
            (("--warmup", "5ms"), "--wake-spin"),
            (("-C", "--cgroup=",), "cgroup"),
        ]
        for cmd in ("hist", "top", "record"):
            for args, says in cases:
                rc, _out, err = jrcli.jitread(cmd, *args)
                self.assertEqual(rc, 2, f"{cmd} {args}: {err}")
                self.assertIn(says, err, f"{cmd} {args}")
                self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_hist_options_stay_hist_options(self):
        """rtla's top has no histogram: its options are refused there."""
        for args in (("-b", "2"), ("-E", "5"), ("--no-summary",),
                     ("--no-index",), ("--with-zeros",)):
            rc, _out, err = jrcli.jitread("top", *args)
            self.assertEqual(rc, 2, f"top {args}: {err}")
        rc, _out, err = jrcli.jitread("hist", "--no-period")
        self.assertEqual(rc, 2, err)


def main():
    unittest.main()


if __name__ == "__main__":
    main()
