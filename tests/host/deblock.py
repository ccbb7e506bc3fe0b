# SPDX-License-Identifier: GPL-2.0
"""build/deb's packages under one lock: make check may run test_deb's
second make deb in one lane while test_deb_install copies the packages in
the other (jitpy/harness/tap.py gives each class to the lane that claims
it first)."""

import contextlib
import fcntl
import os

from tests.host import jrcli

DEB_DIR = os.path.join(jrcli.TOP, "build", "deb")
LOCK = os.path.join(jrcli.TOP, "build", "deb.lock")


@contextlib.contextmanager
def held():
    """build/deb to oneself until the block ends."""
    os.makedirs(os.path.dirname(LOCK), exist_ok=True)
    with open(LOCK, "a", encoding="ascii") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
