# SPDX-License-Identifier: GPL-2.0
"""Run one command inside a QEMU guest that boots an installed kernel.

The guest sees the host's root file system read-only through 9p, with a
tmpfs overlay on top (the virtme approach), so it runs the host's own
binaries and this checkout.  The command's output and exit status come back
to the host; the guest's full dmesg is saved to a file.

Exit status: the guest command's status, 124 on timeout, 2 on bad usage,
3 when something the runner needs is missing, 125 when the guest did not
report a status (it crashed or panicked).
"""

import argparse
import glob
import lzma
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import jitpy
from jitpy.vm import unstick as jitvm_unstick

DEFAULT_VCPUS = 4
DEFAULT_MEM_MB = 1024
DEFAULT_TIMEOUT_S = 600
KVM_PROBE_TIMEOUT_S = 4
EXIT_USAGE = 2
EXIT_MISSING = 3
EXIT_TIMEOUT = 124
EXIT_NO_STATUS = 125
DEPS_HINT = "run 'make deps' as root"
# the kernel matrix that scripts/kernels.sh fetched: boot/vmlinuz-REL and
# lib/modules/REL
KERNEL_CACHE = os.path.join(jitpy.TOP, "build", "kernels")
# The guest asks for a whole-VM pause (hardware-noise tests) through these
# files in the output share, /run/jitvm in the guest.
PAUSE_REQUEST = "pause-request"
PAUSE_DONE = "pause-done"
PAUSE_MAX_MS = 5000
# A guest that dies before its init starts the command is booted again,
# this many times in all: nothing of the command's can have caused it.
BOOT_TRIES = 2
# A guest whose init has not started the command this long after QEMU
# started is taken for hung in its boot (under TCG a boot can stall, and
# would otherwise hold the run until its whole time limit) and booted
# again; a TCG boot to the command takes well under a minute here.
BOOT_START_S = 300
# Under TCG the runner watches the vCPUs through this QMP socket in the
# output directory (see jitvm_unstick).
WATCH_QMP = "watch.qmp"
# The guest's clocks: the host's (its TSC is the host's, and the host
# deschedules its vCPUs at will), or deterministic time, where the TSC
# follows the guest's instruction count, one instruction a nanosecond,
# and nothing the host does shows in guest time.  icount needs
# single-threaded TCG, and a QEMU that boots SMP guests so: Debian 12's
# 7.2 hangs bringing up a second vCPU, so scripts/qemu.sh fetches 10.0
# from bookworm-backports into build/qemu, and its wrapper names the
# firmware.
CLOCKS = ("host", "icount")
ICOUNT_QEMU = os.path.join(jitpy.TOP, "build", "qemu", "qemu-system-x86_64")
ICOUNT_ARGS = ["-icount", "shift=0,sleep=off"]
ICOUNT_HINT = "run 'make deps' (scripts/qemu.sh) as root"

# Modules the initramfs loads, in dependency order, to reach the 9p root
# and the overlay on top of it.
GUEST_MODULES = [
    "virtio_ring", "virtio", "virtio_pci_legacy_dev", "virtio_pci_modern_dev",
    "virtio_pci", "netfs", "fscache", "9pnet", "9pnet_virtio", "9p", "overlay",
]

INIT_SCRIPT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
fail() { echo "jitvm-init: $*" > /dev/console; poweroff -f; }
for m in $(cat /modules.list); do
    [ -f /mods/$m.ko ] || continue
    insmod /mods/$m.ko 2>/dev/null || grep -q "^$m " /proc/modules || \
        echo "jitvm-init: insmod $m failed" > /dev/console
done
mkdir -p /lower /upper /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
    jitvmroot /lower || fail "cannot mount the host root"
mount -t tmpfs -o size=50% tmpfs /upper || fail "cannot mount tmpfs"
mkdir -p /upper/u /upper/w
mount -t overlay overlay \
    -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w \
    /newroot || fail "cannot mount the overlay"
# systemd takes a /run that is a mount already, and would hide the share
# under a tmpfs of its own otherwise
grep -qw jitvm.init=systemd /proc/cmdline && \
    mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /newroot/run
mkdir -p /newroot/run/jitvm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 jitvmout \
    /newroot/run/jitvm || fail "cannot mount the output share"
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
# devtmpfs has no /dev/fd or /dev/std*: udev makes them on a real system.
ln -sf /proc/self/fd /newroot/dev/fd
ln -sf /proc/self/fd/0 /newroot/dev/stdin
ln -sf /proc/self/fd/1 /newroot/dev/stdout
ln -sf /proc/self/fd/2 /newroot/dev/stderr
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
# /tmp stays the overlay: a checkout under the host /tmp must be visible.
mount -t tmpfs tmpfs /newroot/run/lock 2>/dev/null
mount -t tracefs tracefs /newroot/sys/kernel/tracing
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t bpf bpf /newroot/sys/fs/bpf 2>/dev/null
hostname jitvm
# loopback, for tests that serve and scrape (jitread serve)
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || \
    echo "jitvm-init: no loopback" > /dev/console
if grep -qw jitvm.init=systemd /proc/cmdline; then
    # systemd as PID 1 starts the command as a unit once the system is
    # up (SYSTEMD_CMD_SCRIPT), and powers off after it
    u=/newroot/etc/systemd/system
    mkdir -p $u/multi-user.target.wants
    printf '%s\n' '[Unit]' 'Description=jitvm: the command' \
        'After=multi-user.target' '[Service]' 'Type=oneshot' \
        'ExecStart=/bin/sh /run/jitvm/systemd-cmd.sh' \
        'TimeoutStartSec=infinity' > $u/jitvm-cmd.service
    ln -sf ../jitvm-cmd.service $u/multi-user.target.wants/jitvm-cmd.service
    exec switch_root /newroot /lib/systemd/systemd
fi
echo "jitvm-init: running command" > /dev/console
# The command writes into a pipe, not the 9p file: tools that reopen
# /dev/stdout with O_APPEND (the kselftest runner does) would otherwise
# write at their own offset and be overwritten.
chroot /newroot /bin/sh -c 'sh /run/jitvm/cmd.sh; echo $? > /run/jitvm/rc' \
    < /dev/null 2>&1 | cat > /newroot/run/jitvm/out
dmesg > /newroot/run/jitvm/dmesg
sync
umount /newroot/run/jitvm
poweroff -f
"""

# Under --init systemd, what jitvm-cmd.service runs: the command as the
# plain init runs it, then the power off.
SYSTEMD_CMD_SCRIPT = r"""echo "jitvm-init: running command" > /dev/console
{ sh /run/jitvm/cmd.sh; echo $? > /run/jitvm/rc; } < /dev/null 2>&1 | \
    cat > /run/jitvm/out
dmesg > /run/jitvm/dmesg
sync
systemctl poweroff --force --force
"""

CMD_SCRIPT = """export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin
export PATH=$PATH:/sbin:/bin
export HOME=/root TERM=dumb JITVM=1 JITVM_CLOCK={clock}
cd {cwd} || exit 125
{env}
{command}
"""


class UsageError(Exception):
    """Bad command-line input: one line, exit EXIT_USAGE."""


class MissingError(Exception):
    """A kernel, QEMU or busybox is missing: one line, exit EXIT_MISSING."""


def parse_duration(text):
    """Parse '90', '90s', '5m' or '1h' into seconds; raise on garbage."""
    m = re.fullmatch(r"(\d+)([smh]?)", text or "")
    if not m or int(m.group(1)) == 0:
        raise UsageError(f"bad duration '{text}' (use e.g. 90s, 5m, 1h)")
    return int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def isolation_cmdline(vcpus):
    """Kernel arguments that isolate CPUs 1..vcpus-1 for the samplers."""
    if vcpus < 2:
        return ""
    iso = "1" if vcpus == 2 else f"1-{vcpus - 1}"
    return (f"isolcpus={iso} nohz_full={iso} rcu_nocbs={iso} "
            "irqaffinity=0")


def build_parser():
    """The runner's command line."""
    p = argparse.ArgumentParser(
        prog="python3 -m jitpy.vm",
        description="Boot an installed kernel in QEMU and run one command "
                    "in it, with the host root visible read-only.")
    p.add_argument("-k", "--kernel", default="rt",
                   help="generic, rt (the installed 6.1 kernels), a release "
                        "that make kernels fetched (5.10.0-32-amd64), or a "
                        "path to a vmlinuz-RELEASE (default rt)")
    p.add_argument("-s", "--vcpus", type=int, default=DEFAULT_VCPUS,
                   help=f"guest vCPUs (default {DEFAULT_VCPUS})")
    p.add_argument("-m", "--mem-mb", type=int, default=DEFAULT_MEM_MB,
                   help=f"guest memory in MiB (default {DEFAULT_MEM_MB})")
    p.add_argument("-a", "--append", default="",
                   help="extra kernel command line")
    p.add_argument("--no-isolate", action="store_true",
                   help="do not isolate CPUs 1..N-1")
    p.add_argument("-t", "--timeout", default=str(DEFAULT_TIMEOUT_S),
                   help="time limit: 90s, 5m, 1h (default 600s)")
    p.add_argument("--accel", choices=["auto", "kvm", "tcg"],
                   default=os.environ.get("JITVM_ACCEL", "auto"),
                   help="accelerator (default auto: probe KVM, else TCG)")
    p.add_argument("--tcg-thread", choices=["multi", "single"],
                   default="multi",
                   help="under TCG, one host thread per vCPU (multi, the "
                        "default) or one for all (single: no vCPU runs a "
                        "translation another has made stale)")
    p.add_argument("--clock", choices=CLOCKS,
                   default=os.environ.get("JITVM_CLOCK", "host"),
                   help="the guest's time: the host's (default), or "
                        "icount: deterministic, one instruction a "
                        "nanosecond (TCG, single-threaded, QEMU 10 from "
                        "build/qemu)")
    p.add_argument("--dmesg", metavar="FILE",
                   help="save the guest's full dmesg here")
    p.add_argument("--qmp", metavar="SOCKET",
                   help="expose a QMP monitor on this unix socket")
    p.add_argument("--save", metavar="DIR",
                   help="copy what the guest wrote to /run/jitvm/save "
                        "into DIR")
    p.add_argument("-e", "--env", action="append", default=[],
                   metavar="NAME=VALUE", help="environment for the command")
    p.add_argument("--init", choices=["sh", "systemd"], default="sh",
                   help="what runs the command: a shell from the "
                        "initramfs (sh, the default), or the root's "
                        "systemd as PID 1, as a unit once the system is up")
    p.add_argument("--root", default="/", metavar="DIR",
                   help="the root file system the guest sees, read-only "
                        "under a tmpfs (default: the host's /)")
    p.add_argument("-C", "--cwd", default=os.getcwd(),
                   help="directory the command starts in (default: here)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="do not print runner progress lines (what the "
                        "vCPU watch did to the guest is still printed)")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="command to run in the guest (after --)")
    return p


def parse_args(argv):
    """Parse and validate argv; raise UsageError with a one-line reason."""
    parser = build_parser()

    def _error(msg):
        raise UsageError(msg)
    parser.error = _error
    args = parser.parse_args(argv)
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    if not args.command:
        raise UsageError("no command given (jitvm [options] -- CMD ...)")
    if not os.path.isdir(os.path.join(args.root, "bin")):
        raise UsageError(f"--root {args.root}: not a root file system "
                         "(no bin)")
    if "," in args.root:
        raise UsageError(f"--root {args.root}: QEMU cannot take a ',' "
                         "in the path")
    if not 1 <= args.vcpus <= 64:
        raise UsageError(f"--vcpus {args.vcpus} out of range 1..64")
    if not 128 <= args.mem_mb <= 65536:
        raise UsageError(f"--mem-mb {args.mem_mb} out of range 128..65536")
    args.timeout_s = parse_duration(args.timeout)
    if args.clock not in CLOCKS:
        raise UsageError(f"bad JITVM_CLOCK '{args.clock}' (host or icount)")
    if args.clock == "icount":
        if args.accel == "kvm":
            raise UsageError("--clock icount needs TCG, not --accel kvm")
        args.accel, args.tcg_thread = "tcg", "single"
    for e in args.env:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", e):
            raise UsageError(f"bad --env '{e}' (want NAME=VALUE)")
    return args


def kernel_release(vmlinuz):
    """The release string of /boot/vmlinuz-REL, or None for other paths."""
    base = os.path.basename(vmlinuz)
    return base[len("vmlinuz-"):] if base.startswith("vmlinuz-") else None


def _version_key(path):
    return [int(x) if x.isdigit() else x
            for x in re.split(r"(\d+)", os.path.basename(path))]


def kernel_matrix(cache=KERNEL_CACHE):
    """What scripts/kernels.sh wrote to status.tsv: (suite, flavour,
    release, "ok" or "skip", tree or reason) per kernel; None when it has
    not run."""
    try:
        with open(os.path.join(cache, "status.tsv")) as f:
            return [tuple(ln.rstrip("\n").split("\t", 4)) for ln in f]
    except FileNotFoundError:
        return None


def module_dir(vmlinuz):
    """Where the modules of vmlinuz live: lib/modules beside the boot
    directory that holds it (/boot: /lib/modules; the kernel cache's
    boot: its lib/modules)."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(vmlinuz)))
    return os.path.join(top, "lib", "modules")


def resolve_kernel(spec, boot="/boot", cache=KERNEL_CACHE):
    """Map 'generic', 'rt', a cached release or a path to (vmlinuz,
    release)."""
    cached = os.path.join(cache, "boot", f"vmlinuz-{spec}")
    if "/" not in spec and os.path.isfile(cached):
        return cached, spec
    if spec in ("generic", "rt"):
        found = []
        for path in glob.glob(os.path.join(boot, "vmlinuz-*")):
            rel = kernel_release(path)
            is_rt = "-rt-" in rel or rel.endswith("-rt")
            if is_rt == (spec == "rt"):
                found.append(path)
        if not found:
            raise MissingError(f"no {spec} kernel in {boot}; {DEPS_HINT}")
        path = sorted(found, key=_version_key)[-1]
        return path, kernel_release(path)
    if not os.path.isfile(spec):
        raise MissingError(f"kernel '{spec}' not found")
    rel = kernel_release(spec)
    if rel is None:
        raise UsageError(f"cannot tell the release of '{spec}' "
                         "(name it vmlinuz-RELEASE)")
    return spec, rel


def find_tool(name):
    """Path of a required host tool, or MissingError naming the fix."""
    path = shutil.which(name)
    if not path:
        raise MissingError(f"{name} not found; {DEPS_HINT}")
    return path


def find_qemu(clock, icount_qemu=ICOUNT_QEMU):
    """The QEMU that boots on clock: the system's for host time, the one
    scripts/qemu.sh fetched for deterministic time."""
    if clock == "host":
        return find_tool("qemu-system-x86_64")
    if not os.access(icount_qemu, os.X_OK):
        raise MissingError(f"no QEMU for --clock icount at {icount_qemu}; "
                           f"{ICOUNT_HINT}")
    return icount_qemu


def qemu_version(qemu):
    """QEMU's own version line, e.g. '10.0.2', or '?'."""
    try:
        out = subprocess.run([qemu, "--version"], capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    m = re.search(r"version (\S+)", out)
    return m.group(1) if m else "?"


def watches(accel, tcg_thread):
    """Whether a boot needs the vCPU watch (jitpy/vm/unstick.py): the
    stale translation it frees is multi-threaded TCG's, where one vCPU
    runs a translation while another patches its text.  Single-threaded
    TCG (the icount clock's) runs one vCPU at a time, and drops the
    translations of a page as it is written, before any other runs."""
    return accel == "tcg" and tcg_thread == "multi"


def clock_line(clock, version):
    """What the runner says of a boot's clock."""
    if clock == "icount":
        return (f"clock icount: deterministic, one instruction a "
                f"nanosecond (QEMU {version}, single-threaded TCG)")
    return f"clock host: the guest's TSC is the host's (QEMU {version})"


def _cpio_entry(name, mode, data=b"", ino=1):
    """One newc cpio record (the format the kernel's initramfs reads)."""
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join(f"{v:08X}" for v in (
        ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
    out = hdr.encode() + name_b
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def build_initramfs(release, busybox, out_path, moddir="/lib/modules"):
    """Write an initramfs holding busybox, the 9p/overlay modules and init."""
    entries = [("bin", 0o040755, b""), ("mods", 0o040755, b""),
               ("proc", 0o040755, b""), ("sys", 0o040755, b""),
               ("dev", 0o040755, b"")]
    with open(busybox, "rb") as f:
        entries.append(("bin/busybox", 0o100755, f.read()))
    kdir = os.path.join(moddir, release, "kernel")
    if not os.path.isdir(kdir):
        raise MissingError(f"no modules for {release} in {moddir}; "
                           f"{DEPS_HINT}")
    wanted = set(GUEST_MODULES)
    for root, _dirs, files in os.walk(kdir, followlinks=True):
        for fn in files:
            stem = fn[:-len(".ko")] if fn.endswith(".ko") else \
                fn[:-len(".ko.xz")] if fn.endswith(".ko.xz") else None
            if stem in wanted:
                with open(os.path.join(root, fn), "rb") as f:
                    data = f.read()
                if fn.endswith(".xz"):
                    data = lzma.decompress(data)
                entries.append((f"mods/{stem}.ko", 0o100644, data))
    entries.append(("modules.list", 0o100644,
                    "\n".join(GUEST_MODULES).encode() + b"\n"))
    entries.append(("init", 0o100755, INIT_SCRIPT.encode()))
    blob = b"".join(_cpio_entry(n, m, d, i + 1)
                    for i, (n, m, d) in enumerate(entries))
    blob += _cpio_entry("TRAILER!!!", 0, b"", 0)
    with open(out_path, "wb") as f:
        f.write(blob)


def probe_kvm(qemu, vmlinuz):
    """True when KVM boots a guest; a hanging /dev/kvm counts as no."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    cmd = [qemu, "-accel", "kvm", "-cpu", "host", "-M", "q35", "-m", "128",
           "-display", "none", "-no-reboot", "-serial", "none",
           "-monitor", "none", "-kernel", vmlinuz,
           "-append", "panic=-1 console=ttyS0"]
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL,
                                start_new_session=True)
    except OSError:
        return False
    try:
        return proc.wait(timeout=KVM_PROBE_TIMEOUT_S) == 0
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return False


def _kill_group(proc):
    """Kill QEMU and anything it started, then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def qemu_command(args, qemu, vmlinuz, initrd, outdir, accel):
    """The QEMU argv for one run."""
    append = ["console=ttyS0", "panic=-1", "loglevel=6",
              "rdinit=/init", "nokaslr"]
    if not args.no_isolate:
        append.append(isolation_cmdline(args.vcpus))
    if args.init == "systemd":
        append.append("jitvm.init=systemd")
    if args.append:
        append.append(args.append)
    cmd = [qemu, "-M", "q35", "-smp", str(args.vcpus),
           "-m", str(args.mem_mb), "-display", "none", "-no-reboot",
           "-monitor", "none", "-kernel", vmlinuz, "-initrd", initrd,
           "-append", " ".join(a for a in append if a),
           "-serial", f"file:{os.path.join(outdir, 'console.log')}",
           "-virtfs", f"local,path={args.root},mount_tag=jitvmroot,"
                      "readonly=on,security_model=none,multidevs=remap",
           "-virtfs", f"local,path={outdir},mount_tag=jitvmout,"
                      "security_model=none"]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", f"tcg,thread={args.tcg_thread}", "-cpu", "max"]
    if args.clock == "icount":
        cmd += ICOUNT_ARGS
    if args.qmp:
        cmd += ["-qmp", f"unix:{args.qmp},server=on,wait=off"]
    if accel == "tcg":
        cmd += ["-qmp", f"unix:{os.path.join(outdir, WATCH_QMP)},"
                "server=on,wait=off"]
    return cmd


def _stream(path, pos, sink):
    """Copy what a growing file gained since pos; return the new pos."""
    try:
        with open(path, "rb") as f:
            f.seek(pos)
            data = f.read()
    except FileNotFoundError:
        return pos
    if data:
        sink.write(data.decode(errors="replace"))
        sink.flush()
    return pos + len(data)


def run(args):
    """Boot the guest, run the command, and return its exit status."""
    vmlinuz, release = resolve_kernel(args.kernel)
    qemu = find_qemu(args.clock)
    busybox = find_tool("busybox")

    def tell(m):
        print(f"jitvm: {m}", file=sys.stderr, flush=True)

    say = (lambda m: None) if args.quiet else tell
    # 0700, root's: the guest's root runs cmd.sh from it
    outdir = tempfile.mkdtemp(prefix="jitvm-")
    try:
        initrd = os.path.join(outdir, "initramfs.cpio")
        build_initramfs(release, busybox, initrd, module_dir(vmlinuz))
        accel = args.accel
        if accel == "auto":
            accel = "kvm" if probe_kvm(qemu, vmlinuz) else "tcg"
            say(f"KVM {'works' if accel == 'kvm' else 'unusable'}; "
                f"using {accel.upper()}")
        env = "\n".join(f"export {shlex.quote(e)}" for e in args.env)
        with open(os.path.join(outdir, "cmd.sh"), "w") as f:
            f.write(CMD_SCRIPT.format(cwd=shlex.quote(args.cwd), env=env,
                                      clock=args.clock,
                                      command=shlex.join(args.command)))
        with open(os.path.join(outdir, "systemd-cmd.sh"), "w") as f:
            f.write(SYSTEMD_CMD_SCRIPT)
        cmd = qemu_command(args, qemu, vmlinuz, initrd, outdir, accel)
        say(f"booting {release} ({args.vcpus} vCPUs, {accel.upper()}), "
            f"limit {args.timeout_s}s")
        # said even with -q: a time measured in the guest means nothing
        # without its clock
        tell(clock_line(args.clock, qemu_version(qemu)))
        os.makedirs(os.path.join(outdir, "save"), mode=0o700)
        for boot in range(BOOT_TRIES):
            # what the watch did to the guest is said even with -q: it
            # tells QEMU's stall from the guest's own in a failed test
            watch = jitvm_unstick.Unsticker(
                os.path.join(outdir, WATCH_QMP), tell) \
                if watches(accel, args.tcg_thread) else None
            rc = _boot(cmd, outdir, args.timeout_s, say, watch)
            if rc != EXIT_NO_STATUS or command_started(outdir) or \
                    boot + 1 == BOOT_TRIES:
                break
            say("the guest died before the command started, so nothing "
                "the command does is to blame (under TCG, QEMU's stale "
                "translations after the kernel patched its text); "
                "booting again")
        _save_dmesg(args.dmesg, outdir)
        if args.save:
            shutil.copytree(os.path.join(outdir, "save"), args.save,
                            dirs_exist_ok=True)
        return rc
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


def command_started(outdir):
    """Whether the guest's init got as far as starting the command."""
    try:
        with open(os.path.join(outdir, "console.log"), errors="replace") as f:
            return "jitvm-init: running command" in f.read()
    except OSError:
        return False


def _boot(cmd, outdir, timeout_s, say, watch):
    """Run QEMU to completion or to the time limit, streaming output;
    watch (or None) is polled to free a vCPU stuck by a QEMU bug."""
    out = os.path.join(outdir, "out")
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    jitpy.session_nice(proc.pid)
    deadline = time.monotonic() + timeout_s
    start_by = time.monotonic() + min(BOOT_START_S, timeout_s)
    started = False
    pos = 0
    try:
        while proc.poll() is None:
            pos = _stream(out, pos, sys.stdout)
            _serve_pause(proc, outdir, say)
            if watch is not None:
                watch.poll()
            if not started and time.monotonic() > start_by:
                started = command_started(outdir)
                if not started:
                    _kill_group(proc)
                    say(f"the guest did not start the command within "
                        f"{min(BOOT_START_S, timeout_s)}s of boot; QEMU "
                        "killed")
                    break
            if time.monotonic() > deadline:
                _kill_group(proc)
                _stream(out, pos, sys.stdout)
                say(f"timeout after {timeout_s}s; QEMU killed")
                return EXIT_TIMEOUT
            time.sleep(jitvm_unstick.SAMPLE_S)
    except BaseException:
        _kill_group(proc)
        raise
    finally:
        if watch is not None:
            watch.close()
    _stream(out, pos, sys.stdout)
    try:
        with open(os.path.join(outdir, "rc")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        say("the guest reported no exit status (crash or panic?); "
            "see the console log")
        with open(os.path.join(outdir, "console.log"), errors="replace") as f:
            tail = f.read().splitlines()[-25:]
        for line in tail:
            print(f"jitvm: console: {line}", file=sys.stderr)
        return EXIT_NO_STATUS


def _serve_pause(proc, outdir, say):
    """Freeze the whole guest for the time it asked for, from outside.

    A guest test writes milliseconds to PAUSE_REQUEST in the output share;
    every vCPU then loses that much wall time at once, which only the
    hardware classes can explain.  SIGSTOP rather than the monitor's
    'stop': under TCG 'stop' also stops the guest's TSC, hiding the gap.
    """
    req = os.path.join(outdir, PAUSE_REQUEST)
    try:
        with open(req) as f:
            ms = int(f.read().strip())
    except (FileNotFoundError, ValueError):
        return
    ms = max(1, min(ms, PAUSE_MAX_MS))
    start = time.monotonic()
    os.killpg(proc.pid, signal.SIGSTOP)
    try:
        time.sleep(ms / 1000)
    finally:
        os.killpg(proc.pid, signal.SIGCONT)
    took = (time.monotonic() - start) * 1000
    os.unlink(req)
    with open(os.path.join(outdir, PAUSE_DONE + ".tmp"), "w") as f:
        f.write(f"{took:.0f}\n")
    os.rename(os.path.join(outdir, PAUSE_DONE + ".tmp"),
              os.path.join(outdir, PAUSE_DONE))
    say(f"paused the guest for {took:.0f} ms on its request")


def _save_dmesg(dest, outdir):
    """Copy the guest dmesg (or the console log if none) to dest."""
    if not dest:
        return
    src = os.path.join(outdir, "dmesg")
    if not os.path.exists(src):
        src = os.path.join(outdir, "console.log")
    if os.path.exists(src):
        shutil.copyfile(src, dest)


def main(argv=None):
    """Entry point: parse, run, map errors to one line and an exit code."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        return run(args)
    except UsageError as e:
        print(f"jitvm: {e}", file=sys.stderr)
        return EXIT_USAGE
    except MissingError as e:
        print(f"jitvm: {e}", file=sys.stderr)
        return EXIT_MISSING
    except KeyboardInterrupt:
        print("jitvm: interrupted; QEMU killed", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
