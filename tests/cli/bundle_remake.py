#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Rewrites a kernel bundle with one edit and its checksums made right again, so that only the
# edited field is wrong: the edit (python) sees head (the header's bytes), entries ([name, bytes]
# pairs), reentry(entry, key_edit) to edit an entry's key and rename it by the key's hash, and
# fnv (the 64-bit FNV-1a hash the bundle and the cache use).
# Usage: bundle_remake.py IN OUT EDIT
import re  # for edits
import sys
def fnv(data):
    h = 0xcbf29ce484222325
    for x in data:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
data = open(sys.argv[1], "rb").read()
body = data[: data.rindex(b"sum=")]
head, rest = body.split(b"\n\n", 1)
entries = []
while rest:
    line, rest = rest.split(b"\n", 1)
    _, name, size = line.split(b" ")
    entries.append([name, rest[: int(size)]])
    rest = rest[int(size) + 1:]
def reentry(e, key_edit):
    key, tail = e[1].split(b"\nbytes=", 1)
    key = key_edit(key + b"\n")
    e[0] = b"%016x.bin" % fnv(key)
    e[1] = key + b"bytes=" + tail
exec(sys.argv[3])
out = head + b"\n\n" + b"".join(b"file %s %d\n%s\n" % (n, len(d), d) for n, d in entries)
open(sys.argv[2], "wb").write(out + b"sum=%016x\n" % fnv(out))
