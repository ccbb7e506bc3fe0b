# SPDX-License-Identifier: GPL-2.0
"""Run the checkout's jitread from a host test."""

import os
import subprocess
import tempfile

import jitpy

TOP = jitpy.TOP
JITREAD = jitpy.JITREAD
COMMANDS = ("hist", "top", "hwnoise", "record", "report", "user", "compare",
            "attach",
            "diff", "audit", "advise", "serve", "survey")


def native_root(why_root):
    """Why a native test of jitread on CPU 1 as root cannot run here (a
    skip reason), or None."""
    if not os.access(JITREAD, os.X_OK):
        return "user/jitread not built (make user)"
    if os.cpu_count() < 2:
        return "needs CPU 1"
    if os.geteuid() != 0:
        return why_root
    return None


# the members of every JSON document that tell the run, not the data
ENVELOPE = ("jitread_version", "start_time", "end_time", "return_code",
            "hostname")


def body(doc):
    """A JSON document without its envelope: what two runs on the same
    data must agree on."""
    return {k: v for k, v in doc.items() if k not in ENVELOPE}


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


def fuzz_run(test, target, corpus):
    """Build make fuzz's target (skipping the test without libFuzzer) and
    run it once over corpus; it must end cleanly."""
    user = os.path.join(TOP, "user")
    p = subprocess.run(["make", "-s", "-C", user, f"fuzz/{target}"],
                       capture_output=True, text=True, check=False)
    if p.returncode and "libclang_rt.fuzzer" in p.stderr + p.stdout:
        test.skipTest("libFuzzer missing (make deps)")
    test.assertEqual(p.returncode, 0, p.stderr[-2000:])
    with tempfile.TemporaryDirectory() as art:
        p = subprocess.run([os.path.join(user, "fuzz", target), "-runs=0",
                            f"-artifact_prefix={art}/", corpus],
                           capture_output=True, text=True, check=False,
                           timeout=120)
    test.assertEqual(p.returncode, 0, p.stderr[-2000:])
    test.assertIn("Done", p.stderr)
