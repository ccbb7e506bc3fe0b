# SPDX-License-Identifier: GPL-2.0
"""make demo-fleet: a survey of four MPI ranks, then jitread serve
scraped by a real Prometheus, and the PromQL that answers "how available
is this CPU, what steals it, and how long are the gaps".

Natively, with the user sampler (no module): the survey on CPUs 0 and 1,
serve on CPU 1 by default, for 20 seconds each:
python3 -m jitpy.fleet.demo [-c CPU] [-d SECONDS].
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import jitpy
from jitpy.fleet import prom

QUERIES = (
    ("availability", "1 - sum by (cpu) (rate(jitread_noise_seconds_total"
     "[{w}])) / sum by (cpu) (rate(jitread_sampled_seconds_total[{w}]))"),
    ("top sources (s/s)", "topk(5, rate(jitread_source_noise_seconds_total"
     "[{w}]))"),
    ("gap p99 (s)", "histogram_quantile(0.99, sum by (cpu, le) (rate("
     "jitread_gap_duration_seconds_bucket[{w}])))"),
)


def show(p, secs):
    w = f"{max(5, int(secs))}s"
    for title, q in QUERIES:
        q = q.format(w=w)
        print(f"\n# {title}\n# {q}")
        for r in p.query(q):
            labels = ",".join(f"{k}={v}" for k, v in sorted(
                r["metric"].items()) if k not in ("job", "instance"))
            print(f"{labels:50s} {float(r['value'][1]):.6g}")


def survey(secs):
    """mpirun -n 4 jitread survey on CPUs 0 and 1, its report shown."""
    plugin = os.path.join(os.path.dirname(jitpy.JITREAD), "jitread-mpi.so")
    if not shutil.which("mpirun") or not os.path.exists(plugin):
        print("survey: skipped, mpirun or user/jitread-mpi.so missing "
              "(make deps, make user)")
        return 0
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "4",
           jitpy.JITREAD, "survey", "--rank-cpus", "0-1", "-d",
           f"{secs:.0f}s"]
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False).returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-c", "--cpu", type=int, default=1)
    ap.add_argument("-d", "--seconds", type=float, default=20)
    a = ap.parse_args()
    if not shutil.which("prometheus"):
        sys.exit("demo-fleet: prometheus missing (make deps)")
    if not os.access(jitpy.JITREAD, os.X_OK):
        sys.exit("demo-fleet: user/jitread missing (make user)")
    if survey(a.seconds):
        sys.exit("demo-fleet: the survey failed")
    print()
    with tempfile.TemporaryDirectory() as d:
        serve = subprocess.Popen(
            [jitpy.JITREAD, "serve", "--sampler", "user", "-c", str(a.cpu),
             "--listen", "127.0.0.1:0", "--refresh", "500ms"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            url = prom.serving_url(serve)
            if not url:
                sys.exit(f"demo-fleet: jitread serve: {serve.stderr.read()}")
            print(f"jitread serve: {url} (100 ms of every 1 s on CPU "
                  f"{a.cpu})")
            target = url.split("/")[2]
            with prom.Prometheus(d, target) as p:
                print(f"prometheus: {p.url}, scraping every 1 s; "
                      f"{a.seconds:.0f} s ...")
                time.sleep(a.seconds)
                show(p, a.seconds)
        finally:
            serve.send_signal(signal.SIGINT)
            serve.communicate(timeout=60)
    return serve.returncode


if __name__ == "__main__":
    sys.exit(main())
