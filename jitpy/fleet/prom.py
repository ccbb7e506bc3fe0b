# SPDX-License-Identifier: GPL-2.0
"""A real Prometheus (Debian's prometheus package) on loopback, and the
few HTTP calls jitread serve's tests and demo make."""

import json
import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

OPENMETRICS = "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, accept=None, timeout=10):
    """(status, content type, body) of a GET."""
    req = urllib.request.Request(url)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def samples(text):
    """{name{labels}: value} of an exposition's samples."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, val = line.rsplit(" ", 1)
            out[key] = float(val)
    return out


def wait_for(fn, secs, what):
    """Until fn() is true (an OSError counts as false); AssertionError
    naming what after secs."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            if fn():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {secs} s")


def serving_url(proc, lines=5):
    """The /metrics URL from jitread serve's "serving" line on stderr."""
    for _ in range(lines):
        m = re.search(r"serving (http://\S+/metrics)",
                      proc.stderr.readline())
        if m:
            return m.group(1)
    return None


class Prometheus:
    """prometheus scraping target ("HOST:PORT") every second, with its
    data in directory d; a context manager that stops it."""

    def __init__(self, d, target, interval="1s"):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cfg = os.path.join(d, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write(f"global:\n  scrape_interval: {interval}\n"
                    f"  scrape_timeout: {interval}\n"
                    "scrape_configs:\n  - job_name: jitread\n"
                    f"    static_configs:\n      - targets: ['{target}']\n")
        with open(os.path.join(d, "prometheus.log"), "w") as log:
            self.proc = subprocess.Popen(
                ["prometheus", f"--config.file={cfg}",
                 f"--storage.tsdb.path={os.path.join(d, 'tsdb')}",
                 f"--web.listen-address=127.0.0.1:{self.port}"],
                stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: get(self.url + "/-/ready")[0] == 200, 60,
                     "prometheus ready")
        except AssertionError:
            self.stop()
            raise

    def query(self, q, at=None):
        """The result vector of an instant PromQL query (at: epoch s)."""
        args = {"query": q}
        if at is not None:
            args["time"] = f"{at:.3f}"
        status, _, body = get(f"{self.url}/api/v1/query?"
                              f"{urllib.parse.urlencode(args)}")
        data = json.loads(body)
        if status != 200 or data["status"] != "success":
            raise AssertionError(f"{q}: {body}")
        return data["data"]["result"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
