#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread serve against the real module.

 - by default it samples 100 ms of every 1 s after a 20 ms warm-up:
   jitmod's runtime_us, period_us and warmup_us say so while it runs,
   and have their old values after, and the metrics state the warm-up;
 - jitread and its server process run on CPU 0 only, never on the sampled
   CPU: scraped 20 times, CPU 1 shows no jitread thread among its sources;
 - the exposition it serves passes promtool, in both formats' framing;
 - while the injector fires NMIs, the metrics name nmi/jinj_nmi, and the
   textfile written at the end agrees with the run's JSON report:
   sampled time, gap count, the NMI source's count and time exactly, and
   the classes' noise with the summaries' to within 1 ns a gap, the
   net split with the classes, and the NMIs' net time inside the gaps
   with their source's.  With the runtime filling the period there is no
   warm-up: jitmod's warmup_us is 0 while it serves.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import jittest as jt
from jitpy.fleet.prom import OPENMETRICS, get, samples, serving_url
from jitpy.guest import injector, kmod, sysio
from jitpy.guest.sysio import Fail, log

CPU = 1
N = 4
D_US = 300


def scrape(url, accept=None):
    status, _, body = get(url, accept, timeout=30)
    if status != 200:
        raise Fail(f"{url}: HTTP {status}")
    return body


def start(jr, tmp, *extra):
    """jitread serve on CPU 1, ready; (process, its /metrics URL)."""
    ready = os.path.join(tmp, "ready")
    if os.path.exists(ready):
        os.unlink(ready)
    p = subprocess.Popen([jr, "serve", "-c", str(CPU), "--listen",
                          "127.0.0.1:0", "--refresh", "200ms",
                          "--ready-file", ready, "-d", "120s", *extra],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    url = serving_url(p)
    if not url:
        p.kill()
        raise Fail(f"no serving line: {p.communicate()[1]}")
    if not sysio.wait_for(lambda: os.path.exists(ready), 30):
        p.kill()
        raise Fail("jitread serve never became ready")
    return p, url


def stop(p):
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    if p.returncode:
        raise Fail(f"jitread serve exit {p.returncode}: {err}")


def params():
    return tuple(int(sysio.read(f"{kmod.JIT_PARAMS}/{n}"))
                 for n in ("runtime_us", "period_us", "warmup_us"))


def affinity(pid):
    """Cpus_allowed_list of each thread of pid and of its children (the
    server process)."""
    out = set()
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        children = f.read().split()
    if not children:
        raise Fail(f"jitread serve {pid} has no server process")
    for proc in [str(pid)] + children:
        for tid in os.listdir(f"/proc/{proc}/task"):
            with open(f"/proc/{proc}/task/{tid}/status") as f:
                out |= set(re.findall(r"^Cpus_allowed_list:\s*(\S+)$",
                                      f.read(), re.M))
    return out


def default_duty(jr, tmp):
    """The default duty cycle, pinning, promtool, and no self-noise."""
    old = params()
    p, url = start(jr, tmp, "--json", os.path.join(tmp, "d.json"))
    try:
        if params() != (100000, 1000000, 20000):
            raise Fail(f"runtime_us, period_us, warmup_us while serving: "
                       f"{params()}")
        if affinity(p.pid) != {"0"}:
            raise Fail(f"jitread's threads may run on {affinity(p.pid)}")
        time.sleep(1.5)
        t0, c0 = time.monotonic(), sysio.cpu_s([p.pid])
        for _ in range(20):
            text = scrape(url)
        om = scrape(url, OPENMETRICS)
        time.sleep(1.5)
        log(f"jitread serve used {sysio.cpu_s([p.pid]) - c0:.2f} s of CPU in "
            f"{time.monotonic() - t0:.1f} s, with 21 scrapes")
    finally:
        stop(p)
    if params() != old:
        raise Fail(f"runtime_us, period_us, warmup_us after: {params()}, "
                   f"want {old}")
    if samples(text).get("jitread_window_warmup_seconds") != 0.02:
        raise Fail("jitread_window_warmup_seconds is not 0.02")
    if not om.endswith("\n# EOF\n") or text.endswith("# EOF\n"):
        raise Fail("the formats' framing is wrong")
    if shutil.which("promtool"):
        r = subprocess.run(["promtool", "check", "metrics"], input=text,
                           capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise Fail(f"promtool: {r.stdout}{r.stderr}")
    else:
        log("promtool missing: exposition not linted")
    with open(os.path.join(tmp, "d.json")) as f:
        d = json.load(f)
    cpu = [c for c in d["cpus"] if c["cpu"] == CPU][0]
    own = [s["source"] for s in cpu["sources"]
           if s["source"].startswith("thread:jitread")]
    if own:
        raise Fail(f"jitread ran on the sampled CPU: {own}")


def attribution(jr, tmp):
    """NMIs under continuous sampling: named live, and the final textfile
    agrees with the JSON report."""
    tf = os.path.join(tmp, "tf")
    os.makedirs(tf, mode=0o700, exist_ok=True)
    out = os.path.join(tmp, "a.json")
    # room for every source: the NMIs' series then lasts the run
    p, url = start(jr, tmp, "--runtime", "1s", "--period", "1s",
                   "--textfile", tf, "--json", out, "--top", "100")
    key = (f'jitread_source_events_total{{cpu="{CPU}",class="nmi",'
           'source="jinj_nmi"}')
    try:
        if params()[2] != 0:
            raise Fail(f"warmup_us {params()[2]} while the runtime fills "
                       "the period: noise would go unseen")
        time.sleep(0.5)
        for _ in range(N):
            injector.fire("nmi", D_US)
        if not sysio.wait_for(lambda: samples(scrape(url)).get(key, 0) >= 1,
                              20):
            raise Fail(f"{key} never appeared")
        time.sleep(1.5)
    finally:
        stop(p)
    with open(out) as f:
        cpu = [c for c in json.load(f)["cpus"] if c["cpu"] == CPU][0]
    with open(os.path.join(tf, "jitread.prom")) as f:
        m = samples(f.read())
    summ, src = cpu["summary"], {s["source"]: s for s in cpu["sources"]}
    c = f'{{cpu="{CPU}"}}'
    nmi = src.get("nmi:jinj_nmi")
    if not nmi or m.get(key) != nmi["count"]:
        raise Fail(f"{key} {m.get(key)}, report {nmi}")
    nmi_s = m[key.replace("events_total", "noise_seconds_total")]
    if round(nmi_s * 1e9) != nmi["total_ns"]:
        raise Fail(f"NMI time {nmi_s} s, report {nmi['total_ns']} ns")
    if round(m[f"jitread_sampled_seconds_total{c}"] * 1e9) != \
            summ["runtime_ns"]:
        raise Fail(f"sampled {m[f'jitread_sampled_seconds_total{c}']}, "
                   f"report {summ['runtime_ns']} ns")
    gaps = cpu["classes"]["gap"]["count"]
    hist = f'jitread_gap_duration_seconds_count{{cpu="{CPU}"}}'
    if m[hist] != gaps:
        raise Fail(f"{hist} {m[hist]}, report {gaps}")
    noise = sum(v for k, v in m.items()
                if k.startswith(f'jitread_noise_seconds_total{{cpu="{CPU}"'))
    filed = sum(v for k, v in m.items()
                if k.startswith(f'jitread_gaps_total{{cpu="{CPU}"'))
    if summ["lost_events"] or abs(noise * 1e9 - summ["noise_ns"]) > filed:
        raise Fail(f"classes' noise {noise} s over {filed} gaps, summaries "
                   f"{summ['noise_ns']} ns, lost {summ['lost_events']}")
    net = sum(v for k, v in m.items()
              if k.startswith(f'jitread_noise_net_seconds_total{{cpu="{CPU}"'))
    if abs(net - noise) > 1e-8:
        raise Fail(f"net split {net} s, classes {noise} s")
    # the gap events' nmi_ns reach the split: the injected NMIs are gaps
    net_nmi = m[f'jitread_noise_net_seconds_total{{cpu="{CPU}",class="nmi"}}']
    if net_nmi < 0.5 * nmi_s:
        raise Fail(f"net nmi {net_nmi} s, the NMI source {nmi_s} s")
    log(f"nmi:jinj_nmi x{nmi['count']}, {filed:.0f} gaps filed, noise "
        f"{noise * 1e9:.0f} ns against {summ['noise_ns']} ns")


def body():
    jr = kmod.jitread()
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000)
    kmod.insmod("jitinject", cpu=CPU)
    tmp = f"/tmp/jitread-serve-{os.getpid()}"
    os.makedirs(tmp, mode=0o700, exist_ok=True)
    default_duty(jr, tmp)
    attribution(jr, tmp)


if __name__ == "__main__":
    sys.exit(jt.run(body))
