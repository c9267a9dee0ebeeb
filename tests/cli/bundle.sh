#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv precompile on PoCL's CPU device: programs built into a cache and exported as one bundle,
# imported into another cache and used there without a build; damaged, stale, foreign and
# non-bundle files refused with a message and nothing stored; concurrent importers and a
# concurrent builder of one cache folder; usage errors. Skips (exit 77) without an OpenCL CPU
# device.
# Usage: bundle.sh PATH/TO/xconv
set -u
xconv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"
skip_without_cpu_device
shape=(--shape n=2,c=4,h=12,w=12,k=8,r=3,pad=1 --shape n=1,c=6,h=9,w=11,k=4,r=1)
variants=direct_naive,direct_regblock,implicit_gemm
b=$tmp/k.bundle

# Build and export on one cache, import into a fresh one.
XCONV_CACHE_DIR=$tmp/a "$xconv" precompile "${shape[@]}" --variant $variants --device pocl \
    --export "$b" >"$tmp/export.txt" 2>&1
check "precompile --export exits 0" test $? -eq 0
cat "$tmp/export.txt"
n=$(ls "$tmp/a/kernels" | wc -l)
check "it exported every program it built ($n)" \
    grep -q "exported $n compiled kernel(s) of 1 device(s)" "$tmp/export.txt"
XCONV_CACHE_DIR=$tmp/b "$xconv" precompile --import "$b" --device pocl >"$tmp/import.txt" 2>&1
check "--import exits 0" test $? -eq 0
check "it says how many it imported" grep -q "imported $n compiled kernel(s)" "$tmp/import.txt"
check "the imported cache holds the same files" diff -r "$tmp/a/kernels" "$tmp/b/kernels"

# The imported programs are used as they are: a validate of the same cases builds nothing (no
# file of the cache is replaced or added).
(cd "$tmp/b/kernels" && md5sum ./* >"$tmp/before.md5")
XCONV_CACHE_DIR=$tmp/b "$xconv" validate "${shape[@]}" --variant $variants --device pocl \
    --build-threads 0 >/dev/null 2>&1
check "a validate on the imported cache passes" test $? -eq 0
check "and builds nothing: the cache is as imported" \
    bash -c "cd '$tmp/b/kernels' && md5sum -c --quiet '$tmp/before.md5' && \
             [ \$(ls | wc -l) -eq $n ]"

# refused NAME FILE WHY: an import of FILE into a fresh cache exits 1 saying WHY and stores
# nothing.
refused() {
    rm -rf "$tmp/r"
    XCONV_CACHE_DIR=$tmp/r "$xconv" precompile --import "$2" --device pocl >"$tmp/r.txt" 2>&1
    local rc=$?
    check "$1: refused, exit 1 (got $rc)" test "$rc" -eq 1
    check "$1: says '$3'" grep -q "$3" "$tmp/r.txt"
    check "$1: nothing stored" bash -c "[ \$(ls '$tmp/r/kernels' 2>/dev/null | wc -l) -eq 0 ]"
    grep -q "$3" "$tmp/r.txt" || cat "$tmp/r.txt"
}
# remake OUT EDIT: rewrites the bundle with EDIT (python on head, entries) and its checksums
# made right again, so that only the edited field is wrong.
remake() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/bundle_remake.py" "$b" "$1" "$2"
}
remake "$tmp/same.bundle" "pass"
check "a bundle remade unchanged is identical" cmp "$b" "$tmp/same.bundle"
cp "$b" "$tmp/flip.bundle"
printf 'X' | dd of="$tmp/flip.bundle" bs=1 seek=3000 conv=notrunc 2>/dev/null
refused "a flipped byte" "$tmp/flip.bundle" "damaged: its checksum does not match"
head -c 5000 "$b" >"$tmp/cut.bundle"
refused "a bundle cut short" "$tmp/cut.bundle" "damaged: its checksum line is missing"
remake "$tmp/entry.bundle" "entries[0][1] = entries[0][1][:-1] + b'?'"
refused "an entry whose payload is damaged" "$tmp/entry.bundle" "damaged: kernel .* is not whole"
remake "$tmp/format.bundle" "head = head.replace(b'bundle 1', b'bundle 2')"
refused "another bundle format" "$tmp/format.bundle" "stale: bundle format 2"
remake "$tmp/version.bundle" "head = head.replace(b'xconv=', b'xconv=9.')"
refused "another xconv" "$tmp/version.bundle" "stale: made by xconv 9."
remake "$tmp/sources.bundle" "head = head.replace(b'kernels=', b'kernels=0')"
refused "other kernel sources" "$tmp/sources.bundle" "stale: made from other kernel sources"
remake "$tmp/device.bundle" \
    "reentry(entries[-1], lambda k: k.replace(b'\ndevice=', b'\ndevice=Other '))"
refused "a kernel of another device" "$tmp/device.bundle" "foreign: .*device 'Other "
remake "$tmp/driver.bundle" \
    "reentry(entries[0], lambda k: k.replace(b'\ndriver=', b'\ndriver=0.'))"
refused "a kernel of another driver" "$tmp/driver.bundle" "foreign: .*driver 0\."
echo "not a bundle" >"$tmp/text.bundle"
refused "a file that is no bundle" "$tmp/text.bundle" "not an xconv kernel bundle"

# Three importers and a builder of the same programs into one fresh folder at once: every file
# whole and the same as exported.
for i in 1 2 3; do
    XCONV_CACHE_DIR=$tmp/c "$xconv" precompile --import "$b" --device pocl >/dev/null 2>&1 &
done
XCONV_CACHE_DIR=$tmp/c "$xconv" precompile "${shape[@]}" --variant $variants --device pocl \
    --build-threads 2 >/dev/null 2>&1 &
rcs=0
for job in $(jobs -p); do wait "$job" || rcs=$((rcs + 1)); done
check "concurrent importers and a builder all exit 0" test "$rcs" -eq 0
check "no temporary file is left" bash -c "! ls '$tmp/c/kernels' | grep -q tmp"
check "the folder holds every program once" diff <(ls "$tmp/c/kernels") <(ls "$tmp/a/kernels")
XCONV_CACHE_DIR=$tmp/c "$xconv" precompile --device pocl --export "$tmp/c.bundle" >/dev/null 2>&1
check "each file whole: the folder exports again, and imports" \
    bash -c "XCONV_CACHE_DIR='$tmp/d' '$xconv' precompile --import '$tmp/c.bundle' \
             --device pocl >/dev/null 2>&1"

# Usage.
"$xconv" precompile --device pocl >/dev/null 2>"$tmp/u1.txt"
check "precompile with nothing to do exits 2" test $? -eq 2
"$xconv" precompile --import "$b" "${shape[@]}" >/dev/null 2>"$tmp/u2.txt"
check "--import with shapes exits 2" test $? -eq 2
XCONV_CACHE_DIR=none "$xconv" precompile --import "$b" --device pocl >/dev/null 2>"$tmp/u3.txt"
check "no cache folder: exit 1" test $? -eq 1
check "saying a cache is needed" grep -q "need one" "$tmp/u3.txt"

echo "bundle.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
