#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jitread end to end against the real module and the injector.

 - a live run while the injector makes N NMIs, N FIFO threads and N timer
   softirqs: each shows up in the attribution table with its class and
   count (nmi:jinj_nmi N times, N thread:jitinject/1[pid] sources, at
   least N softirq:TIMER), with the same figures as the test's own trace
   of the same events, no events lost, and jitread's instance is gone
   afterwards;
 - --record then --replay gives the same JSON; the live run's --hlog
   holds every gap of the report, and the replay's is the same;
 - top prints a frame a second with a row for the CPU;
 - -T with a unit sets jitmod's threshold for the run (a bare number is
   us, or ns in the old form) and jitread puts the old value back when it
   ends, also when it dies of an error after the run;
 - -s with --on-threshold: the stop saves the last events and runs the
   command, and the run ends with exit 5; with continue, jitmod samples
   again after each stop's actions and the run goes on; --on-end's
   actions run once at the end;
 - SIGTERM ends a run with its report and removes the instance;
 - a reader killed with SIGKILL leaves its instance behind; the next
   jitread removes it and works;
 - rmmod under a live reader: jitread says so in one line and exits 3.
"""

import json
import os
import signal
import subprocess
import sys
import time

import jittest as jt
from jitpy.formats import hlog
from jitpy.guest import injector, kmod, sysio, trace, tracefs
from jitpy.guest.sysio import Fail, log

CPU = 1
N = 4
D_US = 300
ATTEMPTS = 5
MARK = "jitread is reading"
END = "the injections are in"


def instances():
    return [d for d in os.listdir(f"{tracefs.ROOT}/instances")
            if d.startswith("jitread-")]


def reading():
    """jitread's instance exists and all its events are on (which, under
    TCG, can be a second or more after the instance appears); the
    system's enable file says X while only some are."""
    for d in instances():
        try:
            if sysio.read(f"{tracefs.ROOT}/instances/{d}/events/jitmod/"
                          "enable") == "1":
                return True
        except OSError:
            pass
    return False


def spun(evs, src, field, d_ns):
    """src (a class event in evs, this CPU's trace) is a spin of d_ns: the
    gap that holds it also holds the rest of the spin as other classes'
    net time.  The injector spins by the clock, so an interrupt nested in
    it comes off src's net time, and under TCG a host stall inside that
    interrupt makes it any length; what the gap charged elsewhere makes
    it up."""
    gap = trace.gap_after(evs, src, field)
    if gap is None or gap.ns(field) < src.ns("duration_ns"):
        return False
    others = [f for f in trace.INTF if f != field]
    return src.ns("duration_ns") + trace.class_ns(gap, others) >= \
        injector.spin_floor_ns(d_ns)


def trace_sources(evs, pids):
    """What the test's own instance saw of the injections, keyed as
    jitread keys its sources: the injector threads' and jinj_nmi's class
    events, and the TIMER softirq's (which also runs on its own)."""
    out = {}
    for e in evs:
        if e.name == "thread_noise" and e.num("pid") in pids:
            key = f"thread:{e.f['comm']}[{e.num('pid')}]"
        elif e.name == "nmi_noise" and \
                e.f.get("handler", "").startswith("jinj_nmi"):
            key = "nmi:jinj_nmi"
        elif e.name == "softirq_noise" and "[TIMER]" in e.body:
            key = "softirq:TIMER"
        else:
            continue
        out.setdefault(key, []).append(e)
    return out


def same_figures(key, src, evs):
    """jitread's table row for key against the trace's events for it."""
    ns = [e.ns("duration_ns") for e in evs]
    got = (src["count"], src["total_ns"], src["max_ns"], src["min_ns"])
    if got != (len(ns), sum(ns), max(ns), min(ns)):
        raise Fail(f"{key}: jitread has count/total/max/min {got}, the "
                   f"trace {(len(ns), sum(ns), max(ns), min(ns))}")


def since_mark(inst):
    """This CPU's events in inst after the marker written once jitread was
    reading, and before the one written 1.5 s before it is stopped:
    jitread has seen each of them too."""
    evs, out = trace.parse(inst.text()), None
    for e in evs:
        if e.name == "tracing_mark_write":
            if e.body.strip() == END:
                break
            if e.body.strip() == MARK:
                out = []
        elif out is not None and e.cpu == CPU:
            out.append(e)
    return out


def injected(inst, pids):
    """Every injection's class event is in the test's instance (the timer
    softirqs too: under TCG the last can fire a while after it was
    armed), and a gap after the last one, so jitread has had them all to
    read."""
    evs = since_mark(inst)
    seen = trace_sources(evs, pids)
    thr = {e.num("pid") for k, v in seen.items() if k.startswith("thread:")
           for e in v}
    spins = [e for e in seen.get("softirq:TIMER", [])
             if spun(evs, e, "softirq", D_US * 1000)]
    mine = {id(e) for v in seen.values() for e in v}
    last = max((i for i, e in enumerate(evs) if id(e) in mine), default=None)
    return len(seen.get("nmi:jinj_nmi", [])) >= N and pids <= thr and \
        len(spins) >= N and last is not None and \
        any(e.name == "gap" for e in evs[last:])


def live_attribution(jr, tmp):
    """jitread's attribution table against the trace of the same events in
    an instance of the test's own: the injected sources are there with
    their class, and jitread's count, total, max and min for each equal
    the trace's; each injection is a spin of D in its gap."""
    with tracefs.Instance("live") as inst:
        d, evs, pids = live_run(jr, tmp, inst)
    cpu = [c for c in d["cpus"] if c["cpu"] == CPU][0]
    src = {s["source"]: s for s in cpu["sources"]}
    log("top sources: " + ", ".join(
        f"{s['source']} x{s['count']}" for s in cpu["sources"][:8]))
    seen = trace_sources(evs, pids)
    nmi = src.get("nmi:jinj_nmi")
    # nothing nests in an NMI, so its net time is the whole spin
    if not nmi or nmi["count"] != N or nmi["class"] != "nmi" or \
            nmi["min_ns"] < D_US * 1000:
        raise Fail(f"nmi:jinj_nmi: {nmi}, want {N} of >= {D_US} us")
    same_figures("nmi:jinj_nmi", nmi, seen["nmi:jinj_nmi"])
    want = {f"thread:jitinject/{CPU}[{p}]" for p in pids}
    thr = {k: s for k, s in src.items()
           if k.startswith(f"thread:jitinject/{CPU}[")}
    if set(thr) != want or any(s["class"] != "thread"
                               for s in thr.values()):
        raise Fail(f"injector threads: {thr}, want {sorted(want)}")
    # Each injector thread runs at least twice: its spin, then its exit.
    for k, s in thr.items():
        same_figures(k, s, seen[k])
        top = max(seen[k], key=lambda e: e.ns("duration_ns"))
        if not spun(evs, top, "thread", D_US * 1000):
            raise Fail(f"{k}: its longest run is not a {D_US} us spin: "
                       f"{top} then {trace.gap_after(evs, top, 'thread')}")
    # TIMER also runs on its own, and jitread may have seen more of it
    # than the trace since the marker: it must hold at least those.
    timer = src.get("softirq:TIMER")
    runs = [e.ns("duration_ns") for e in seen.get("softirq:TIMER", [])]
    spins = [e for e in seen.get("softirq:TIMER", [])
             if spun(evs, e, "softirq", D_US * 1000)]
    if not timer or timer["class"] != "softirq" or len(spins) < N or \
            timer["count"] < len(runs) or timer["total_ns"] < sum(runs) or \
            timer["max_ns"] < max(runs):
        raise Fail(f"softirq:TIMER: {timer}, trace: {len(runs)} runs, "
                   f"{sum(runs)} ns, {len(spins)} spins of {D_US} us")
    if cpu["summary"]["lost_events"]:
        raise Fail(f"lost events: {cpu['summary']}")
    if d["file_version"] != 2 or not d["system"]["tsc_khz"]:
        raise Fail(f"system block: {d['system']}")
    out = os.path.join(tmp, "live.json")
    rc, txt = sysio.sh([jr, "--replay", os.path.join(tmp, "live.rec"), "-c",
                        str(CPU), "-q", "--json", out + ".2", "--hlog",
                        os.path.join(tmp, "replay.hlog"), "--hlog-interval",
                        "500ms"], check=False)
    with open(out + ".2") as f:
        if rc or json.load(f)["cpus"] != d["cpus"]:
            raise Fail(f"replay differs from the live run: {txt}")
    interval_log(tmp, cpu)


def interval_log(tmp, cpu):
    """--hlog of the live run: dated, its CPU's intervals hold every gap
    of the report, none above its max, and the replay of the recording
    writes the same intervals."""
    comments, live = hlog.read(os.path.join(tmp, "live.hlog"))
    _, replay = hlog.read(os.path.join(tmp, "replay.hlog"))
    gaps = cpu["classes"]["gap"]
    total = sum(iv.total for iv in live if iv.tag == f"cpu{CPU}")
    log(f"hlog: {len(live)} intervals, {total} gaps")
    if not any(c.startswith("#[StartTime: ") for c in comments):
        raise Fail("the live hlog has no StartTime")
    if total != gaps["count"] or \
            any(iv.max_ms * 1e6 > gaps["max_ns"] * 1.001 for iv in live):
        raise Fail(f"hlog: {total} gaps, report {gaps['count']}; max "
                   f"{max(iv.max_ms for iv in live)} ms")
    key = [(iv.tag, iv.start, iv.counts) for iv in live]
    if key != [(iv.tag, iv.start, iv.counts) for iv in replay]:
        raise Fail("the replay's hlog differs from the live run's")


def live_run(jr, tmp, inst):
    """A live jitread while the injector makes N of each class; (its JSON,
    this CPU's events in inst, the injector threads' pids)."""
    out = os.path.join(tmp, "live.json")
    rec = os.path.join(tmp, "live.rec")
    # -d only bounds the run: SIGINT ends it once the injections are in,
    # however long TCG took over them
    p = subprocess.Popen([jr, "-c", str(CPU), "-d", "60s", "-q", "--json",
                          out, "--record", rec, "--hlog",
                          os.path.join(tmp, "live.hlog"), "--hlog-interval",
                          "500ms"], stderr=subprocess.PIPE, text=True)
    if not sysio.wait_for(reading, 20):
        p.kill()
        raise Fail("jitread made no instance")
    inst.marker(MARK)
    time.sleep(0.5)
    pids = set()
    for _ in range(N):
        for cls in ("nmi", "thread", "softirq"):
            injector.fire(cls, D_US)
            if cls == "thread":
                pids.add(int(sysio.read(f"{injector.PARAMS}/last_pid")))
    if not sysio.wait_for(lambda: injected(inst, pids), 10):
        p.kill()
        seen = trace_sources(since_mark(inst) or [], pids)
        raise Fail(f"the injections are not all in the trace after 10 s: "
                   f"pids {sorted(pids)}; seen " +
                   ", ".join(f"{k} x{len(v)}" for k, v in seen.items()))
    inst.marker(END)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    if p.returncode:
        raise Fail(f"jitread exit {p.returncode}: {err.strip()}")
    if instances():
        raise Fail(f"instance left after a clean exit: {instances()}")
    with open(out) as f:
        d = json.load(f)
    return d, since_mark(inst), pids


def top_view(jr):
    rc, out = sysio.sh([jr, "top", "-d", "3s", "-c", str(CPU)], check=False)
    frames = out.count("jitread top:")
    rows = [ln for ln in out.splitlines() if ln.split()[:1] == [str(CPU)]]
    log(f"top: {frames} frames, last row: {rows[-1] if rows else None}")
    if rc or frames < 2 or not rows:
        raise Fail(f"top (exit {rc}) printed: {out[-400:]}")


def threshold_during(jr, tmp, args):
    """jitmod's threshold_ns while jitread runs with args (None if it
    ended before it was ready), its exit code and stderr.  The run lasts
    until SIGINT, sent once the value is read, so that a test starved by
    the host cannot read it after jitread has put it back."""
    ready = os.path.join(tmp, "ready")
    if os.path.exists(ready):
        os.unlink(ready)    # the last run's
    p = subprocess.Popen([jr, *args, "-q", "-d", "60s", "-c", str(CPU),
                          "--ready-file", ready],
                         stderr=subprocess.PIPE, text=True)
    if not sysio.wait_for(lambda: os.path.exists(ready) or
                          p.poll() is not None, 20):
        p.kill()
        raise Fail(f"jitread {args} never became ready")
    during = None
    if os.path.exists(ready):
        during = int(sysio.read(f"{kmod.JIT_PARAMS}/threshold_ns"))
        if p.poll() is not None:
            raise Fail(f"jitread {args} ended (exit {p.returncode}) "
                       "before its 60 s were up")
        p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    return during, p.returncode, err.strip()


def settings_put_back(jr, tmp):
    """-T sets threshold_ns for the run only, in the unit it says.  A bad
    output path is refused before anything is set or measured; a write
    that fails at the end (a full file system) ends the run cleanly, says
    so in one line, exits 1 and puts the setting back."""
    before = sysio.read(f"{kmod.JIT_PARAMS}/threshold_ns")
    full = os.path.join(tmp, "full")
    os.makedirs(full, exist_ok=True)
    sysio.sh(["mount", "-t", "tmpfs", "-o", "size=4k,mode=0700", "none",
              full])
    cases = [(["hist", "-T", "7us"], 7000, 0),
             (["hist", "-T", "12"], 12000, 0),
             (["-T", "9000"], 9000, 0),
             (["hist", "-T", "8us", "--json", "/nonexistent/x.json"], None,
              1),
             (["hist", "-T", "8us", "--record", "/nonexistent/x.rec"], None,
              1),
             (["hist", "-T", "8us", "--json", f"{full}/x.json"], 8000, 1)]
    try:
        for args, want, code in cases:
            during, rc, err = threshold_during(jr, tmp, args)
            after = sysio.read(f"{kmod.JIT_PARAMS}/threshold_ns")
            log(f"{' '.join(args)}: threshold_ns {during} during, {after} "
                f"after (was {before}), exit {rc}")
            if (during, rc, after) != (want, code, before):
                raise Fail(f"{args}: want {want} during, exit {code}, "
                           f"{before} after: {err}")
            if code and len(err.strip().splitlines()) != 1:
                raise Fail(f"{args}: want one line, got: {err}")
    finally:
        sysio.sh(["umount", full], check=False)


def on_threshold(jr, tmp):
    """-s sets stop_us; the stop runs the actions and ends the run."""
    trace, hit = os.path.join(tmp, "stop.txt"), os.path.join(tmp, "hit")
    # rtla's -t[FILE] for the trace, jitread's exec= for the command
    p = subprocess.Popen([jr, "-q", "-d", "60s", "-s", "40000",
                          f"-t{trace}",
                          "--on-threshold", f"exec=touch {hit}"],
                         stderr=subprocess.PIPE, text=True)
    if not sysio.wait_for(reading, 20):
        p.kill()
        raise Fail("jitread made no instance")
    time.sleep(0.5)
    # An IPI that lands in the sampler's sleep makes no gap: try again
    # until jitread ends.

    def ipi(_n):
        injector.fire("ipi", 80000)
        try:
            return p.communicate(timeout=5)[1]
        except subprocess.TimeoutExpired as e:
            raise jt.Again("jitread still runs 5 s after an 80 ms IPI") \
                from e

    try:
        err = jt.attempts(ipi, ATTEMPTS, retry=(), what="the stop")
    except Fail:
        p.kill()
        jt.diagnose(CPU)
        raise
    log(f"on-threshold: exit {p.returncode}: {err.strip()}")
    if p.returncode != 5:
        raise Fail(f"a run ended by a stop exits {p.returncode}, not 5")
    if "jitmod stopped: single gap" not in err or not os.path.exists(hit):
        raise Fail(f"actions did not run: {err}")
    with open(trace) as f:
        if "irq:call_function_single" not in f.read():
            raise Fail("the saved trace lacks the culprit")
    sysio.write(f"{kmod.JIT_PARAMS}/stop_us", 0)
    sysio.write(f"{kmod.JIT_PARAMS}/enable", 1)


def on_threshold_continue(jr, tmp):
    """--on-threshold continue (with rtla's shell,command= and
    trace,file= spellings): each stop runs the actions at once and
    jitmod samples again, so a run sees two stops; --on-end runs once,
    after the report; the exit is 5 and jitmod is left sampling."""
    hits, end = os.path.join(tmp, "hits"), os.path.join(tmp, "end.txt")
    out = os.path.join(tmp, "cont.json")
    p = subprocess.Popen([jr, "-q", "-d", "120s", "-s", "40000", "-c",
                          str(CPU), "--json", out, "--on-threshold",
                          "continue", "--on-threshold",
                          f"shell,command=echo hit >> {hits}", "--on-end",
                          f"trace,file={end}", "--on-end",
                          f"exec=echo end >> {hits}"],
                         stderr=subprocess.PIPE, text=True)
    if not sysio.wait_for(reading, 20):
        p.kill()
        raise Fail("jitread made no instance")
    time.sleep(0.5)

    def nr_hits():
        if not os.path.exists(hits):
            return 0
        with open(hits) as f:
            return f.read().count("hit")

    for _ in range(4 * ATTEMPTS):
        if nr_hits() >= 2 or p.poll() is not None:
            break
        injector.fire("ipi", 80000)
        # the action runs, then jitmod restarts: wait for enable
        sysio.wait_for(lambda: sysio.read(f"{kmod.JIT_PARAMS}/enable") ==
                       "1", 5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    log(f"continue: exit {p.returncode}, {nr_hits()} stops: {err.strip()}")
    with open(hits) as f:
        lines = f.read().split()
    if p.returncode != 5 or err.count("; sampling again") != nr_hits() or \
            nr_hits() < 2:
        raise Fail(f"continue: exit {p.returncode}, {nr_hits()} stops "
                   f"acted on: {err}")
    if lines[-1] != "end" or lines.count("end") != 1:
        raise Fail(f"--on-end ran out of order or more than once: {lines}")
    with open(out) as f:
        stops = json.load(f)["stops"]
    if stops != nr_hits():
        raise Fail(f"the report counts {stops} stops, the actions ran "
                   f"{nr_hits()} times")
    with open(end) as f:
        if "before the end" not in f.readline():
            raise Fail("--on-end trace= did not save the run's last events")
    if sysio.read(f"{kmod.JIT_PARAMS}/enable") != "1" or \
            sysio.read(f"{kmod.JIT_PARAMS}/stop_us") != "0":
        raise Fail("jitmod not left sampling with stop_us put back")


def terminated_reader(jr):
    """SIGTERM ends a run cleanly: report, exit 0, instance removed."""
    p = subprocess.Popen([jr, "-d", "1h", "-c", str(CPU)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if not sysio.wait_for(reading, 20):
        p.kill()
        raise Fail("jitread made no instance")
    time.sleep(1.5)
    p.terminate()
    out, err = p.communicate(timeout=30)
    if p.returncode or "per-CPU summary" not in out or instances():
        raise Fail(f"SIGTERM: exit {p.returncode}, instances "
                   f"{instances()}: {err.strip()}")


def instance_of(pid):
    """jitread's instance for pid: jitread-<pid>-<start>-<pidns>."""
    return next((i for i in instances() if i.startswith(f"jitread-{pid}-")),
                None)


def killed_reader(jr):
    """A SIGKILLed reader's instance goes at the next start; so does
    one whose pid now names another process (a later start time).  One
    of another PID namespace is never judged from this one."""
    p = subprocess.Popen([jr, "-q", "-d", "1h"], stderr=subprocess.DEVNULL)
    if not sysio.wait_for(lambda: instance_of(p.pid), 10):
        p.kill()
        raise Fail("jitread made no instance")
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    if not instance_of(p.pid):
        raise Fail("SIGKILL left nothing to clean up?")
    ns = os.stat("/proc/self/ns/pid").st_ino
    reused = f"jitread-{os.getpid()}-1-{ns}"       # our pid, not our start
    foreign = f"jitread-{os.getpid()}-1-{ns + 1}"  # another namespace's
    for name in (reused, foreign):
        os.mkdir(f"{tracefs.ROOT}/instances/{name}")
    try:
        rc, out = sysio.sh([jr, "-d", "2s", "-c", str(CPU)], check=False)
        left = instances()
    finally:
        if os.path.isdir(f"{tracefs.ROOT}/instances/{foreign}"):
            os.rmdir(f"{tracefs.ROOT}/instances/{foreign}")
    if rc or "removed 2 stale instance" not in out:
        raise Fail(f"next run did not clean up (exit {rc}): {out[-300:]}")
    if left != [foreign]:
        raise Fail(f"instances left: {left}, want only {foreign}")


def piped_top(jr):
    """jitread top | head: the closed pipe ends the run like ^C, with
    the instance removed, not a death by SIGPIPE that leaks it."""
    p = subprocess.Popen(f"{jr} top -d 60s | head -n 3", shell=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Fail("jitread top went on after head closed the pipe")
    if not sysio.wait_for(lambda: not instances(), 10):
        raise Fail(f"jitread top | head left {instances()}")


def rmmod_under_reader(jr):
    p = subprocess.Popen([jr, "-q", "-d", "1h"], stderr=subprocess.PIPE,
                         text=True)
    if not sysio.wait_for(reading, 20):
        p.kill()
        raise Fail("jitread made no instance")
    time.sleep(1)
    kmod.rmmod("jitinject")
    kmod.rmmod("jitmod")
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise Fail("jitread did not notice the rmmod within 30 s")
    log(f"rmmod under jitread: exit {p.returncode}: {err.strip()}")
    if p.returncode != 3 or "jitmod was unloaded" not in err or \
            len(err.strip().splitlines()) != 1:
        raise Fail(f"want exit 3 and one line, got {p.returncode}: {err}")
    if instances():
        raise Fail(f"instance left after rmmod: {instances()}")


def not_sampled(jr):
    """-c with a CPU jitmod does not sample is refused in one line."""
    rc, out = sysio.sh([jr, "-c", "0", "-d", "1s"], check=False)
    if rc != 2 or "CPU 0 is not sampled by jitmod" not in out:
        raise Fail(f"-c 0 (not sampled): exit {rc}: {out}")


def body():
    jr = kmod.jitread()
    # runtime = period: each injection must be seen, so the sampler may
    # sleep only its 100 us minimum a second, not the default 100 ms.
    kmod.insmod("jitmod", cpus=CPU, threshold_ns=10000, period_us=1000000,
                runtime_us=1000000)
    kmod.insmod("jitinject", cpu=CPU)
    tmp = f"/tmp/jitread-live-{os.getpid()}"
    os.makedirs(tmp, exist_ok=True)
    cases = jt.Cases(10)
    cases.run("not_sampled", not_sampled, jr)
    cases.run("live_attribution", live_attribution, jr, tmp)
    cases.run("top_view", top_view, jr)
    cases.run("settings_put_back", settings_put_back, jr, tmp)
    cases.run("on_threshold", on_threshold, jr, tmp)
    cases.run("on_threshold_continue", on_threshold_continue, jr, tmp)
    cases.run("terminated_reader", terminated_reader, jr)
    cases.run("piped_top", piped_top, jr)
    cases.run("killed_reader", killed_reader, jr)
    cases.run("rmmod_under_reader", rmmod_under_reader, jr)
    cases.finish()


if __name__ == "__main__":
    sys.exit(jt.run(body))
