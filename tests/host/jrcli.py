# SPDX-License-Identifier: GPL-2.0
"""Run the checkout's jitread from a host test."""

import subprocess

import jitpy

TOP = jitpy.TOP
JITREAD = jitpy.JITREAD
COMMANDS = ("hist", "top", "record", "report", "user", "compare", "diff",
            "audit")


def jitread(*args):
    """Run jitread; returns (exit code, stdout, stderr)."""
    p = subprocess.run([JITREAD, *args], capture_output=True, text=True,
                       check=False, timeout=120)
    return p.returncode, p.stdout, p.stderr


def refused(test, args, code, text):
    """jitread with args exits code with one line on stderr holding text,
    and prints nothing on stdout."""
    rc, out, err = jitread(*args)
    test.assertEqual(rc, code, f"{args}: {err}")
    test.assertIn(text, err)
    test.assertEqual(len(err.strip().splitlines()), 1, err)
    test.assertEqual(out, "")
