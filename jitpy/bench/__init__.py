# SPDX-License-Identifier: GPL-2.0
"""make bench*: python3 -m jitpy.bench.suite | reader | user | guest."""

import os
import platform


def env_int(name, default):
    """An integer knob of the benches from the environment."""
    return int(os.environ.get(name, default))


def machine():
    """This machine in a line: CPU model, CPU count, kernel."""
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} CPUs, kernel {platform.release()}"
