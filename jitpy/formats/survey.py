# SPDX-License-Identifier: GPL-2.0
"""Read jitread survey's JSON (survey_version 1), refusing other versions."""

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
