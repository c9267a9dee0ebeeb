#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Files the CLI reads are opened without blocking, and no output may be one of the command's
# inputs or another of its outputs: each case exits 2 within a second with one line naming the
# problem, and leaves every file as it was. Usage: input_files.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/checks.bash"
export XCONV_CACHE_DIR=$tmp/cache

# write_npy PATH DIMS...: a float32 .npy file of ones (Python's standard library only).
write_npy() {
    python3 - "$@" <<'EOF'
import struct, sys
path, dims = sys.argv[1], [int(d) for d in sys.argv[2:]]
count = 1
for d in dims:
    count *= d
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
    ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else ""))
header += " " * (63 - (len(header) + 10) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % count, *([1.0] * count)))
EOF
}

shape=n=1,c=2,h=6,w=6,k=2,r=3
mkfifo "$tmp/fifo"
write_npy "$tmp/x.npy" 1 2 6 6
write_npy "$tmp/w.npy" 2 2 3 3
cp "$tmp/x.npy" "$tmp/x0.npy"
"$xconv" validate --shape $shape --variant direct_naive --json "$tmp/g.json" >/dev/null 2>&1 ||
    printf '{"tool": "xconv"}\n' >"$tmp/g.json"  # no device: a file to leave intact all the same
cp "$tmp/g.json" "$tmp/g0.json"

# A FIFO (or any file that is not a regular one) where a file is read: refused, not waited on.
refused 2 "--input.*fifo.*not a regular file" -- run --shape $shape --input "$tmp/fifo" \
    --weights "$tmp/w.npy"
refused 2 "--weights.*fifo.*not a regular file" -- run --shape $shape --input "$tmp/x.npy" \
    --weights "$tmp/fifo"
refused 2 "--shapes.*fifo.*not a regular file" -- validate --shapes "$tmp/fifo"
refused 2 "fifo.*not a regular file" -- report "$tmp/fifo" -o "$tmp/page.html"
check "a refused report writes no page" [ ! -e "$tmp/page.html" ]
refused 2 "--compare.*fifo|fifo.*not a regular file" -- report "$tmp/g.json" --compare \
    "$tmp/fifo" -o "$tmp/page.html"

# An output that is an input, or two outputs on one path: refused before any work.
refused 2 "-o .*g.json is also a results file" -- report "$tmp/g.json" -o "$tmp/g.json"
check "report -o onto its input leaves the input intact" cmp -s "$tmp/g.json" "$tmp/g0.json"
ln -s "$tmp/g.json" "$tmp/link.json"
refused 2 "is also a results file" -- report "$tmp/g.json" -o "$tmp/link.json"
check "report -o onto a link to its input leaves the input intact" \
    cmp -s "$tmp/g.json" "$tmp/g0.json"
refused 2 "--output .*x.npy is also --input" -- run --shape $shape --input "$tmp/x.npy" \
    --weights "$tmp/w.npy" --output "$tmp/x.npy"
check "run --output onto its input leaves the input intact" cmp -s "$tmp/x.npy" "$tmp/x0.npy"
refused 2 "--csv .*both is also --json" -- validate --shape $shape --json "$tmp/both" \
    --csv "$tmp/both"
check "--json P --csv P writes nothing" [ ! -e "$tmp/both" ]
refused 2 "--csv .*g.json is also --json" -- validate --shape $shape --json "$tmp/g.json" \
    --csv "$tmp/./g.json"
check "--json P --csv P leaves an existing P intact" cmp -s "$tmp/g.json" "$tmp/g0.json"

echo "input_files: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
