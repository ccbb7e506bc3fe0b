# SPDX-License-Identifier: GPL-2.0
"""Read jitread's JSON report, refusing versions this code does not know.

Every Python consumer of `jitread --json` (plots, comparisons) loads it
through load(), so a format change is caught in one place.  As a command:
`python3 -m jitpy.formats.report FILE` checks a file and prints a one-line
summary per CPU.  record_counts() reads the line `jitread record` ends
with.
"""

import re
import sys

from jitpy.formats import versioned

SUPPORTED_VERSIONS = (1, 2)


class ReportError(Exception):
    """A file that is not a jitread report this code can read."""


def load(path):
    """The report as a dict; ReportError for anything unreadable."""
    return versioned.load(path, "report", "file_version", SUPPORTED_VERSIONS,
                          ("system", "cpus"), ReportError)


def sides(data):
    """{"kernel": side, "user": side}, with whichever sides the report has.

    A side is a dict with "cpus" and "all_cpus".  In file_version 2 the
    primary side sits at the top level and names itself in "side"; a
    compare report adds the user side under "user".
    """
    out = {data.get("side", "kernel"): data}
    if isinstance(data.get("user"), dict):
        out["user"] = data["user"]
    return out


RECORD_LINE = re.compile(r"^jitread: (\d+) events in .*, (\d+) lost by the "
                         r"ring buffers$", re.M)


def record_counts(out):
    """(events recorded, events the ring buffers lost) from the line
    `jitread record` prints at its end (user/cmd/jr_cmd_record.c), or
    None when out has no such line."""
    m = RECORD_LINE.search(out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def main():
    """Check each file given; exit 1 on the first bad one."""
    if len(sys.argv) < 2:
        print("usage: python3 -m jitpy.formats.report REPORT.json...",
              file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        try:
            data = load(path)
        except ReportError as e:
            print(f"jrjson: {e}", file=sys.stderr)
            return 1
        for cpu in data["cpus"]:
            s = cpu["summary"]
            print(f"{path}: cpu {cpu['cpu']}: {s['avail_pct']:.4f}% "
                  f"available, max single {s['max_single_ns']} ns, "
                  f"{len(cpu['sources'])} sources")
    return 0


if __name__ == "__main__":
    sys.exit(main())
