# SPDX-License-Identifier: GPL-2.0
"""A real Prometheus (Debian's prometheus package) on loopback, and the
few HTTP calls jitread serve's tests and demo make."""

import json
import os
import re
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

OPENMETRICS = "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"
PROTOBUF = ("application/vnd.google.protobuf;"
            "proto=io.prometheus.client.MetricFamily;encoding=delimited")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, accept=None, timeout=10, binary=False):
    """(status, content type, body) of a GET; body is text unless
    binary."""
    req = urllib.request.Request(url)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
            status, ctype = r.status, r.headers["Content-Type"]
    except urllib.error.HTTPError as e:
        status, ctype, body = e.code, e.headers["Content-Type"], e.read()
    return status, ctype, body if binary else body.decode()


def _varint(data, i):
    v = shift = 0
    while True:
        b = data[i]
        i += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def _fields(data):
    """(field number, value) of a protobuf message: ints for varints,
    8 raw bytes for fixed64, bytes for length-delimited."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        wt = key & 7
        if wt == 0:
            v, i = _varint(data, i)
        elif wt == 1:
            v, i = data[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(data, i)
            v, i = data[i:i + n], i + n
        else:
            raise ValueError(f"wire type {wt}")
        yield key >> 3, v


def _double(raw):
    return struct.unpack("<d", raw)[0]


def _zigzag(v):
    return (v >> 1) ^ -(v & 1)


def _histogram(data):
    h = {"count": 0, "sum": 0.0, "buckets": [], "schema": None,
         "spans": [], "deltas": []}
    for f, v in _fields(data):
        if f == 1:
            h["count"] = v
        elif f == 2:
            h["sum"] = _double(v)
        elif f == 3:
            b = dict(_fields(v))
            h["buckets"].append((_double(b[2]), b.get(1, 0)))
        elif f == 5:
            h["schema"] = _zigzag(v)
        elif f == 12:
            s = dict(_fields(v))
            h["spans"].append((_zigzag(s.get(1, 0)), s.get(2, 0)))
        elif f == 13:
            h["deltas"].append(_zigzag(v))
    return h


def native_buckets(h):
    """{index: count} of a decoded native histogram."""
    out, idx, count, k = {}, 0, 0, 0
    for n, (offset, length) in enumerate(h["spans"]):
        idx += offset if n == 0 else offset + 1
        for j in range(length):
            count += h["deltas"][k]
            k += 1
            out[idx + j] = count
        idx += length - 1
    return out


def metric_families(data):
    """The families of a delimited protobuf exposition, as
    {name: (type, [(labels, value or histogram dict)])}."""
    out, i = {}, 0
    while i < len(data):
        n, i = _varint(data, i)
        fam, i = dict(name="", type=0, metrics=[]), i + n
        for f, v in _fields(data[i - n:i]):
            if f == 1:
                fam["name"] = v.decode()
            elif f == 3:
                fam["type"] = v
            elif f == 4:
                labels, val = {}, None
                for mf, mv in _fields(v):
                    if mf == 1:
                        lp = dict(_fields(mv))
                        labels[lp[1].decode()] = lp[2].decode()
                    elif mf in (2, 3):
                        val = _double(dict(_fields(mv))[1])
                    elif mf == 7:
                        val = _histogram(mv)
                fam["metrics"].append((labels, val))
        out[fam["name"]] = (fam["type"], fam["metrics"])
    return out


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
    data in a directory under d; a context manager that stops it.  With
    native, it asks for protobuf and keeps native histograms; rules, a
    rule file it evaluates at the same interval."""

    def __init__(self, d, target, interval="1s", native=False, rules=None):
        self.port = free_port()
        d = os.path.join(d, f"prometheus-{self.port}")
        os.mkdir(d)
        self.url = f"http://127.0.0.1:{self.port}"
        cfg = os.path.join(d, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write(f"global:\n  scrape_interval: {interval}\n"
                    f"  scrape_timeout: {interval}\n"
                    f"  evaluation_interval: {interval}\n"
                    "scrape_configs:\n  - job_name: jitread\n"
                    f"    static_configs:\n      - targets: ['{target}']\n")
            if rules:
                f.write(f"rule_files:\n  - '{rules}'\n")
        with open(os.path.join(d, "prometheus.log"), "w") as log:
            self.proc = subprocess.Popen(
                ["prometheus", f"--config.file={cfg}",
                 f"--storage.tsdb.path={os.path.join(d, 'tsdb')}",
                 f"--web.listen-address=127.0.0.1:{self.port}"] +
                (["--enable-feature=native-histograms"] if native else []),
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
