# SPDX-License-Identifier: GPL-2.0
"""Read jitread survey's JSON (survey_version 1), refusing other versions;
and make the report a rank sends rank 0 from a jitread report.

As a command, `python3 -m jitpy.formats.survey REPORT_DIR OUT_DIR` writes
each JSON report of REPORT_DIR as a rank's report into OUT_DIR: the seeds
of `make fuzz`'s survey target.
"""

import json
import os
import sys

from jitpy.formats import versioned

SUPPORTED_VERSIONS = (1,)


class SurveyError(Exception):
    """A file that is not a survey this code can read."""


def is_survey(data):
    return isinstance(data, dict) and "survey_version" in data


def load(path):
    """The survey as a dict; SurveyError for anything unreadable."""
    return versioned.load(path, "survey", "survey_version",
                          SUPPORTED_VERSIONS, ("ranks", "fleet"), SurveyError)


def rank_report(report, rank=0, host="h", cpu=None, windows_ns=()):
    """report (a jitread report's dict) as rank sends it: with a survey
    member naming its host and CPU (default: the report's first), and in
    fixed-work-quantum mode the windows' times."""
    if cpu is None:
        cpu = report["cpus"][0]["cpu"] if report.get("cpus") else 0
    return dict(report, survey={"rank": rank, "host": host, "cpu": cpu,
                                "t0_ns": 0, "quantum_ns": 0, "quanta": 0,
                                "windows_ns": list(windows_ns)})


def main():
    if len(sys.argv) != 3:
        print("usage: python3 -m jitpy.formats.survey REPORT_DIR OUT_DIR",
              file=sys.stderr)
        return 2
    src, dst = sys.argv[1:]
    os.makedirs(dst, exist_ok=True)
    # the reports jitread wrote (NAME.json); a fuzzer's own finds in the
    # same directory are no reports
    for name in sorted(n for n in os.listdir(src) if n.endswith(".json")):
        with open(os.path.join(src, name)) as f:
            report = json.load(f)
        for k, windows in enumerate(((), (100, 250, 90))):
            with open(os.path.join(dst, f"{k}-{name}"), "w") as f:
                json.dump(rank_report(report, windows_ns=windows), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
