# SPDX-License-Identifier: GPL-2.0
"""Read jitread's --hlog: an HdrHistogram interval log (format 1.3).

Written from HdrHistogram's published encoding, apart from the C writer,
so that a test can hold one against the other: each line is
Tag=cpuN,START,LENGTH,MAX_MS,BASE64, the payload a V2 histogram (ZigZag
LEB128 counts, a zero run as its negated length) deflated behind an
8-byte header.  The guest tests use it where the PyPI reader is absent.
"""

import base64
import struct
import zlib

COOKIE = 0x1c849313
ZCOOKIE = 0x1c849314
HDR = struct.Struct(">iiiiqqd")


class Interval:
    """One line: tag, start and length (s), max (ms), and the counts by
    HdrHistogram slot."""

    def __init__(self, tag, start, length, max_ms, payload):
        self.tag, self.start, self.length = tag, start, length
        self.max_ms = max_ms
        (cookie, _, offset, self.digits, self.lowest, self.highest,
         ratio), self.counts = decode(payload)
        if cookie != COOKIE or offset != 0 or ratio != 1.0:
            raise ValueError(f"{tag}@{start}: header {cookie:#x} {offset} "
                             f"{ratio}")

    @property
    def total(self):
        return sum(self.counts.values())


def zigzag(buf, pos):
    """One ZigZag LEB128 number at pos: (value, next pos)."""
    z = shift = 0
    for i in range(9):
        b = buf[pos]
        pos += 1
        if i == 8:
            z |= b << shift
            break
        z |= (b & 0x7f) << shift
        shift += 7
        if b < 0x80:
            break
    return (z >> 1) ^ -(z & 1), pos


def decode(text):
    """A compressed V2 histogram in base64: (header fields, {slot: n})."""
    raw = base64.b64decode(text, validate=True)
    cookie, zlen = struct.unpack(">ii", raw[:8])
    if cookie != ZCOOKIE or zlen != len(raw) - 8:
        raise ValueError(f"compressed header {cookie:#x}, {zlen} bytes")
    buf = zlib.decompress(raw[8:])
    head = HDR.unpack(buf[:HDR.size])
    if head[1] != len(buf) - HDR.size:
        raise ValueError("payload length")
    counts, pos, idx = {}, HDR.size, 0
    while pos < len(buf):
        v, pos = zigzag(buf, pos)
        if v < 0:
            idx += -v
        else:
            if v:
                counts[idx] = v
            idx += 1
    return head, counts


def value_at(idx, digits):
    """The lowest value of slot idx, for a unit of 1 and digits digits."""
    m = (2 * 10 ** digits - 1).bit_length()
    half = m - 1
    if idx < 1 << m:
        return idx
    b = (idx >> half) - 1
    return ((idx & ((1 << half) - 1)) + (1 << half)) << b


def read(path):
    """(header comments, [Interval]) of a log."""
    comments, out = [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                comments.append(line)
                continue
            if line.startswith('"StartTimestamp"'):
                continue
            tag = None
            if line.startswith("Tag="):
                tag, line = line[4:].split(",", 1)
            start, length, max_ms, payload = line.split(",")
            out.append(Interval(tag, float(start), float(length),
                                float(max_ms), payload))
    return comments, out
