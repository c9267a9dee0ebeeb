#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xconv's measured peaks beside clpeak's on one OpenCL device: runs `xconv peaks` into a scratch
# peaks file, finds the device's platform and index with clinfo, runs clpeak on it (Debian's
# clpeak, event timers) and prints both with their ratios (docs/peaks.md says how they compare).
# Usage: scripts/clpeak_compare.sh [--bandwidth-only] PATH/TO/xconv DEVICE
#   DEVICE: an xconv --device selector of an OpenCL device ("pocl", "opencl:1").
# The last line, "ratios: ...", gives xconv / clpeak for the figures measured (for scripts).
# Exits 2 for bad usage, a device that is not OpenCL or a missing clpeak or clinfo, 1 when a
# measurement failed.
set -u
bandwidth_only=0
if [ "${1:-}" = --bandwidth-only ]; then
    bandwidth_only=1
    shift
fi
if [ $# -ne 2 ]; then
    echo "usage: $0 [--bandwidth-only] PATH/TO/xconv DEVICE" >&2
    exit 2
fi
xconv=$1
device=$2
for tool in clpeak clinfo python3; do
    if ! command -v "$tool" >/dev/null; then
        echo "$0: $tool is missing (Debian: $tool)" >&2
        exit 2
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$xconv" peaks --device "$device" --repeat 10 --peaks-file "$tmp/peaks.json" || exit 1

# The device's platform and name, then its indices in clinfo's (and clpeak's) order.
IFS=$'\t' read -r backend platform name < <(python3 - "$tmp/peaks.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
print(d["backend"], d["platform"], d["name"], sep="\t")
PY
)
if [ "$backend" != opencl ]; then
    echo "$0: $device is a $backend device; clpeak measures OpenCL devices" >&2
    exit 2
fi
clinfo -l >"$tmp/clinfo.txt" 2>/dev/null
read -r p d < <(python3 - "$tmp/clinfo.txt" "$platform" "$name" <<'PY'
import re, sys
platform, name = sys.argv[2], sys.argv[3]
p = d = cur = None
for line in open(sys.argv[1]):
    m = re.match(r"Platform #(\d+): (.*)$", line.rstrip("\n"))
    if m:
        cur = int(m.group(1)) if m.group(2) == platform else None
        continue
    m = re.match(r"\s*`-- Device #(\d+): (.*)$", line.rstrip("\n"))
    if m and cur is not None and m.group(2) == name and p is None:
        p, d = cur, int(m.group(1))
print(p, d)
PY
)
if [ "$p" = None ] || [ -z "$p" ]; then
    echo "$0: clinfo -l does not list '$name' on platform '$platform'" >&2
    exit 1
fi
tests=(--global-bandwidth)
[ "$bandwidth_only" = 1 ] || tests+=(--compute-sp)
if ! clpeak -p "$p" -d "$d" --use-event-timer "${tests[@]}" --enable-xml-dump \
    -f "$tmp/clpeak.xml" >"$tmp/clpeak.txt" 2>&1; then
    cat "$tmp/clpeak.txt" >&2
    echo "$0: clpeak failed" >&2
    exit 1
fi

python3 - "$tmp/peaks.json" "$tmp/clpeak.xml" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
ours = json.load(open(sys.argv[1]))["devices"][0]
dev = ET.parse(sys.argv[2]).getroot().find("platform/device")

def best(tag):
    """clpeak's best figure over its vector widths (float .. float16), and that width."""
    node = dev.find(tag)
    if node is None:
        return None, None
    width, value = max(((c.tag, float(c.text)) for c in node), key=lambda kv: kv[1])
    return value, width

print(f"{ours['name']} ({ours['platform']}, driver {ours['driver']})")
print(f"{'':28} {'xconv peaks':>12} {'clpeak':>12}  clpeak's best width  xconv/clpeak")
ratios = []
bw, bw_w = best("global_memory_bandwidth")
for label, key in (("read GB/s", "gbps_read"), ("copy GB/s (read + written)", "gbps")):
    print(f"{label:28} {ours[key]:12.1f} {bw:12.1f}  {bw_w:19}  {ours[key] / bw:12.2f}")
    ratios.append(f"{key} {ours[key] / bw:.3g}")
sp, sp_w = best("single_precision_compute")
if sp:
    print(f"{'fp32 GFLOP/s':28} {ours['fp32_gflops']:12.1f} {sp:12.1f}  {sp_w:19}  "
          f"{ours['fp32_gflops'] / sp:12.2f}")
    ratios.append(f"fp32_gflops {ours['fp32_gflops'] / sp:.3g}")
print("ratios: " + ", ".join(ratios))
PY
