# SPDX-License-Identifier: MIT
"""Checks that a PNG (8-bit RGB or RGBA, not interlaced, as Chromium writes screenshots) has the
expected size and is not blank: decodes it with zlib alone and counts colours and pixels that
differ from the most common one. Used by report.sh; not a test by itself.

Usage: png_check.py FILE WIDTH HEIGHT
"""
import struct
import sys
import zlib


def chunks(data):
    """Yields (type, payload) for each chunk after the signature."""
    pos = 8
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def rows(raw, width, height, channels):
    """Undoes the scanline filters; yields each row's bytes."""
    stride = width * channels
    prev = bytearray(stride)
    pos = 0
    for _ in range(height):
        kind = raw[pos]
        line = bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            corner = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + paeth(left, up, corner)) & 0xFF
            elif kind != 0:
                raise ValueError("unknown filter %d" % kind)
        yield line
        prev = line


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    header = dict(chunks(data))[b"IHDR"]
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if (width, height) != (want_w, want_h):
        sys.exit("%s: %dx%d, want %dx%d" % (path, width, height, want_w, want_h))
    if depth != 8 or color not in (2, 6) or interlace:
        sys.exit("%s: depth %d colour type %d interlace %d not handled" %
                 (path, depth, color, interlace))
    raw = zlib.decompress(b"".join(p for k, p in chunks(data) if k == b"IDAT"))
    channels = 3 if color == 2 else 4
    counts = {}
    # Every 4th row and column is plenty to tell a page from a blank one, and quick.
    for y, line in enumerate(rows(raw, width, height, channels)):
        if y % 4:
            continue
        for x in range(0, width * channels, 4 * channels):
            px = bytes(line[x:x + 3])
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    common = max(counts.values())
    ink = 1 - common / total
    print("%s: %dx%d, %d colours, %.1f%% of pixels not the background" %
          (path, width, height, len(counts), 100 * ink))
    if len(counts) < 50 or ink < 0.05:
        sys.exit("%s looks blank" % path)


main()
