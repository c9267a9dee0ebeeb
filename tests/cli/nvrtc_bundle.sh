#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv precompile --target sm_90 on a machine with NVRTC and no GPU: the kernels of shapes
# compiled for the H100's architecture into a cache and exported as a bundle whose entries name
# sm_90, NVRTC's version and the kernel text's hash and hold CUBINs; the bundle staged into
# another cache through the profile; refused, nothing stored, where no device given is sm_90,
# and for kernel text or an architecture that is not this xconv's. Skips (exit 77) without NVRTC.
# Usage: nvrtc_bundle.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_nvrtc
shape=(--shape n=2,c=4,h=12,w=12,k=8,r=3,pad=1 --shape n=1,c=6,h=9,w=11,k=4,r=1)
variants=direct_naive,direct_regblock,implicit_gemm
b=$tmp/sm90.bundle

# Export: no GPU is asked for (CUDA_VISIBLE_DEVICES hides any the machine has).
CUDA_VISIBLE_DEVICES= XCONV_CACHE_DIR=$tmp/a "$xconv" precompile --target sm_90 "${shape[@]}" \
    --variant $variants --build-threads 2 --export "$b" >"$tmp/export.txt" 2>&1
check "precompile --target sm_90 --export exits 0" test $? -eq 0
cat "$tmp/export.txt"
n=$(ls "$tmp/a/kernels" 2>/dev/null | wc -l)
check "it compiled kernels without a GPU ($n)" test "$n" -gt 0
check "it exported every one" grep -q "exported $n compiled kernel(s) of 1 device(s)" \
    "$tmp/export.txt"
check "the bundle's header counts them" grep -qa "^count=$n\$" "$b"

# Every entry: for sm_90 on any driver, compiled by the NVRTC installed here, with the hash of
# the kernel text, holding a CUBIN (an ELF image), one program per (source, defines).
nvrtc=$(grep -ao "^compiler=nvrtc [0-9]*\.[0-9]*" "$b" | sort -u)
python3 - "$b" "$n" >"$tmp/entries.txt" 2>&1 <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
body = data[: data.rindex(b"sum=")]
head, rest = body.split(b"\n\n", 1)
keys = set()
count = 0
while rest:
    line, rest = rest.split(b"\n", 1)
    _, name, size = line.split(b" ")
    entry, rest = rest[: int(size)], rest[int(size) + 1:]
    key, tail = entry.split(b"\nbytes=", 1)
    payload = tail.split(b"\n\n", 1)[1]
    lines = dict(l.split(b"=", 1) for l in key.split(b"\n")[1:])
    assert lines[b"backend"] == b"cuda", lines[b"backend"]
    assert lines[b"device"] == b"sm_90" and lines[b"cc"] == b"9.0", lines[b"device"]
    assert lines[b"driver"] == b"any", lines[b"driver"]
    assert re.match(rb"nvrtc [1-9][0-9]*\.[0-9]+ ", lines[b"compiler"]), lines[b"compiler"]
    assert re.fullmatch(rb"[0-9a-f]{16}", lines[b"source_hash"]), lines[b"source_hash"]
    assert payload[:4] == b"\x7fELF", "entry %s is not a CUBIN" % name
    keys.add((lines[b"source"], lines[b"options"]))
    count += 1
assert count == int(sys.argv[2]) == len(keys), (count, len(keys))
print("entries: %d CUBINs for sm_90" % count)
PY
check "every entry names sm_90, NVRTC and the text's hash and holds a CUBIN" test $? -eq 0
cat "$tmp/entries.txt"
check "NVRTC's version is recorded ($nvrtc)" test -n "$nvrtc"

# A second export of the same cache compiles nothing: the files are kept as they are.
(cd "$tmp/a/kernels" && md5sum ./* >"$tmp/before.md5")
XCONV_CACHE_DIR=$tmp/a "$xconv" precompile --target sm_90 "${shape[@]}" --variant $variants \
    --build-threads 2 >/dev/null 2>&1
check "a second precompile keeps every compiled file" \
    bash -c "cd '$tmp/a/kernels' && md5sum -c --quiet '$tmp/before.md5' && \
             [ \$(ls | wc -l) -eq $n ]"

# Staged through the profile into another cache (for a GPU machine's cache folder).
XCONV_CACHE_DIR=$tmp/b "$xconv" precompile --import "$b" --target sm_90 >"$tmp/import.txt" 2>&1
check "--import --target sm_90 exits 0" test $? -eq 0
check "it says how many it imported" grep -q "imported $n compiled kernel(s)" "$tmp/import.txt"
check "the staged cache holds the same files" diff -r "$tmp/a/kernels" "$tmp/b/kernels"

# refused NAME FILE WHY [DEVICE ARGS]: an import into a fresh cache exits 1 saying WHY, stores
# nothing.
refused() {
    rm -rf "$tmp/r"
    XCONV_CACHE_DIR=$tmp/r "$xconv" precompile --import "$2" "${@:4}" >"$tmp/r.txt" 2>&1
    local rc=$?
    check "$1: refused, exit 1 (got $rc)" test "$rc" -eq 1
    check "$1: says '$3'" grep -q "$3" "$tmp/r.txt"
    check "$1: nothing stored" bash -c "[ \$(ls '$tmp/r/kernels' 2>/dev/null | wc -l) -eq 0 ]"
    cat "$tmp/r.txt"
}
# On this machine's own device (no CUDA device: PoCL's CPU, when there is one).
if "$xconv" devices 2>/dev/null | grep -qi "opencl.*\(pthread\|cpu\|pocl\)"; then
    refused "on a device that is not sm_90" "$b" \
        "foreign: it holds kernels for device 'sm_90', driver any, compiler 'nvrtc" \
        --device pocl
else
    echo "(no OpenCL CPU device: the import on a device that is not sm_90 is not tried)"
fi
remake() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/bundle_remake.py" "$b" "$1" "$2"
}
remake "$tmp/arch.bundle" \
    "reentry(entries[0], lambda k: k.replace(b'device=sm_90', b'device=sm_80'))"
refused "a kernel for another architecture" "$tmp/arch.bundle" \
    "foreign: it holds kernels for device 'sm_80'" --target sm_90
remake "$tmp/nvrtc.bundle" \
    "reentry(entries[0], lambda k: k.replace(b'compiler=nvrtc ', b'compiler=nvrtc 9'))"
refused "a kernel of another NVRTC" "$tmp/nvrtc.bundle" "foreign: .*compiler 'nvrtc 9" \
    --target sm_90
remake "$tmp/text.bundle" \
    "reentry(entries[-1], lambda k: re.sub(rb'source_hash=\w+', b'source_hash=' + b'0' * 16, k))"
refused "a kernel of other kernel text" "$tmp/text.bundle" \
    "stale: kernel .* was compiled from other text of .*\.cl" --target sm_90

# Usage: only CUDA profiles compile without their device here.
"$xconv" precompile --target gfx90a "${shape[@]}" >/dev/null 2>"$tmp/u1.txt"
check "precompile --target gfx90a exits 2" test $? -eq 2
check "saying only CUDA profiles are precompiled" grep -q "only CUDA profiles" "$tmp/u1.txt"

echo "nvrtc_bundle.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
