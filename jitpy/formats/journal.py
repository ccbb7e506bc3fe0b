# SPDX-License-Identifier: GPL-2.0
"""Read the pipeline journal that `jitread --user --journal FILE` writes.

An independent reader of the format in Documentation/jitread.rst (a 64-byte
header: "JRJRNL01", entries, checksum, TSC kHz; then 32-byte entries:
sequence, payload, transit ns, publish TSC), so tests can check jitread's
own verification against the file.  As a command,
`python3 -m jitpy.formats.journal FILE` verifies a journal and prints one
line.
"""

import sys

MAGIC = b"JRJRNL01"
HEADER = 64
ENTRY = 32
MASK = (1 << 64) - 1


class JournalError(Exception):
    """Not a journal, or one whose entries disagree with its header."""


def mix(total, payload):
    """The order-dependent checksum step over the payloads."""
    return ((total * 0x100000001b3) & MASK) ^ payload


def read(path):
    """(header entries, header checksum, [(seq, payload, transit, tsc)])."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:8] != MAGIC or len(raw) < HEADER:
        raise JournalError(f"{path}: not a jitread journal")
    n = int.from_bytes(raw[8:16], "little")
    csum = int.from_bytes(raw[16:24], "little")
    body = raw[HEADER:]
    if len(body) % ENTRY:
        raise JournalError(f"{path}: truncated entry at the end")
    ents = [tuple(int.from_bytes(body[i + k:i + k + 8], "little")
                  for k in (0, 8, 16, 24))
            for i in range(0, len(body), ENTRY)]
    return n, csum, ents


def verify(path):
    """Entries in sequence, as many as the header says, checksum equal.

    Returns (entries, checksum); raises JournalError on any mismatch.
    """
    n, csum, ents = read(path)
    if len(ents) != n:
        raise JournalError(f"{path}: header says {n} entries, file has "
                           f"{len(ents)}")
    total = 0
    for i, e in enumerate(ents):
        if e[0] != i:
            raise JournalError(f"{path}: entry {i} has sequence {e[0]}")
        total = mix(total, e[1])
    if total != csum:
        raise JournalError(f"{path}: checksum {total:016x} != header "
                           f"{csum:016x}")
    return n, csum


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
