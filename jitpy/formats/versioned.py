# SPDX-License-Identifier: GPL-2.0
"""A JSON file of jitread's, its version checked against what a reader
knows: one loader for reports and surveys."""

import json


def load(path, kind, version_key, supported, members, error):
    """The file's dict.  Raises error (an Exception class) with one line
    naming path when the file cannot be read, is not a kind at all (no
    version_key), has a version outside supported, or lacks one of
    members."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise error(f"{path}: {e}") from e
    if not isinstance(data, dict) or version_key not in data:
        raise error(f"{path}: not a jitread {kind} (no {version_key})")
    if data[version_key] not in supported:
        raise error(f"{path}: {version_key} {data[version_key]!r} is not "
                    f"supported (this reader knows "
                    f"{', '.join(map(str, supported))})")
    for key in members:
        if key not in data:
            raise error(f"{path}: {kind} lacks '{key}'")
    return data
