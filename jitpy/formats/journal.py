# SPDX-License-Identifier: GPL-2.0
"""Read the pipeline journal that `jitread user --journal FILE` writes.

An independent reader of the format in Documentation/jitread-user.rst (a
64-byte header: "JRJRNL02", entries, checksum, TSC kHz, capacity, first,
kept checksum; then a ring of capacity 32-byte entries: sequence, payload,
transit ns, publish TSC, message s at entry s % capacity), so tests can
check jitread's own verification against the file.  As a command,
`python3 -m jitpy.formats.journal FILE` verifies a journal and prints one
line.
"""

import sys

MAGIC = b"JRJRNL02"
HEADER = 64
ENTRY = 32
MASK = (1 << 64) - 1


class JournalError(Exception):
    """Not a journal, or one whose entries disagree with its header."""


def mix(total, payload):
    """The order-dependent checksum step over the payloads."""
    return ((total * 0x100000001b3) & MASK) ^ payload


def u64s(raw, at, n):
    return [int.from_bytes(raw[at + 8 * k:at + 8 * k + 8], "little")
            for k in range(n)]


def read(path):
    """The header as a dict, and the kept entries in message order, each
    (seq, payload, transit, tsc)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:8] != MAGIC or len(raw) < HEADER:
        raise JournalError(f"{path}: not a jitread journal")
    n, csum, khz, cap, first, kept_csum = u64s(raw, 8, 6)
    hdr = {"entries": n, "checksum": csum, "tsc_khz": khz,
           "capacity": cap, "first": first, "kept_checksum": kept_csum}
    if not cap or cap & (cap - 1) or first != max(0, n - cap):
        raise JournalError(f"{path}: bad ring: capacity {cap}, first "
                           f"{first}, entries {n}")
    body = raw[HEADER:]
    held = min(n, cap)
    if len(body) < held * ENTRY:
        raise JournalError(f"{path}: {len(body) // ENTRY} entries, header "
                           f"says {held}")
    ents = [tuple(u64s(body, (s % cap) * ENTRY, 4)) for s in range(first, n)]
    return hdr, ents


def verify(path):
    """The kept entries in sequence, their checksum the header's, and the
    whole checksum too when none was dropped.

    Returns (entries, checksum) from the header; raises JournalError on
    any mismatch.
    """
    hdr, ents = read(path)
    total = 0
    for s, e in enumerate(ents, hdr["first"]):
        if e[0] != s:
            raise JournalError(f"{path}: entry of message {s} has sequence "
                               f"{e[0]}")
        total = mix(total, e[1])
    want = hdr["kept_checksum"]
    if total != want or (not hdr["first"] and total != hdr["checksum"]):
        raise JournalError(f"{path}: checksum {total:016x} != header "
                           f"{want:016x}")
    return hdr["entries"], hdr["checksum"]


def main():
    if len(sys.argv) != 2:
        print("usage: python3 -m jitpy.formats.journal JOURNAL",
              file=sys.stderr)
        return 2
    try:
        n, csum = verify(sys.argv[1])
    except (OSError, JournalError) as e:
        print(f"jrjournal: {e}", file=sys.stderr)
        return 1
    print(f"{sys.argv[1]}: {n} entries in sequence, checksum {csum:016x}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
