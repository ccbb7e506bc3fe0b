# SPDX-License-Identifier: GPL-2.0
"""Read jitread survey's JSON (survey_version 1), refusing other versions."""

import json

SUPPORTED_VERSIONS = (1,)


class SurveyError(Exception):
    """A file that is not a survey this code can read."""


def is_survey(data):
    return isinstance(data, dict) and "survey_version" in data


def load(path):
    """The survey as a dict; SurveyError for anything unreadable."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise SurveyError(f"{path}: {e}") from e
    if not is_survey(data):
        raise SurveyError(f"{path}: not a jitread survey")
    if data["survey_version"] not in SUPPORTED_VERSIONS:
        raise SurveyError(f"{path}: survey_version "
                          f"{data['survey_version']!r} is not supported")
    for key in ("ranks", "fleet"):
        if key not in data:
            raise SurveyError(f"{path}: survey lacks '{key}'")
    return data
