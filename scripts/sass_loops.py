#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The instruction mix of every loop of a compiled NVIDIA kernel: what docs/cuda.md compares
between the two backends' builds of one kernel text (instructions, FFMA, LDS/LDG/STS and their
widths, branches, BSSY regions, predicated instructions, registers).

Each FILE is a file of xconv's kernel cache (<cache>/kernels/*.bin: an OpenCL program's PTX or a
CUDA program's CUBIN after its header), a .ptx, a .cubin or a `cuobjdump -sass` listing (.sass).
PTX goes through `ptxas -arch=ARCH` first, capped at the plan's registers as the OpenCL
backend's -cl-nv-maxrregcount caps the driver's JIT (the cache header's XC_REGISTER_CAP, or
--maxrregcount N for a bare .ptx), CUBINs through `cuobjdump -sass` and `-res-usage`; both tools
from the CUDA toolkit, on PATH.
Usage: scripts/sass_loops.py [--arch sm_90] [--maxrregcount N] [--keep DIR] FILE [FILE ...]"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PREDICATE = re.compile(r"(@!?U?P[T0-9]+)\s+(.*)")


def payload(path):
    """The bytes of a file, without the header of an xconv kernel-cache file."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"xconv-kernel-binary"):
        head, sep, body = data.partition(b"\n\n")
        if not sep:
            sys.exit(f"{path}: a kernel-cache file without its payload")
        return body, head.decode(errors="replace")
    return data, ""


def sass_of(path, args, work):
    """(listing, registers line) of a .sass, .ptx, .cubin or kernel-cache file."""
    data, head = payload(path)
    base = os.path.join(work, os.path.basename(path))
    if path.endswith(".sass"):
        return data.decode(errors="replace"), ""
    if data.lstrip().startswith(b"//") or b".entry" in data[:100000]:
        ptx = base + ".ptx"
        with open(ptx, "wb") as f:
            f.write(data.rstrip(b"\0"))
        cubin = base + ".cubin"
        cmd = ["ptxas", "-arch=" + args.arch, ptx, "-o", cubin]
        cap = re.search(r"-DXC_REGISTER_CAP=(\d+)", head)
        cap = args.maxrregcount or (int(cap.group(1)) if cap else 0)
        if cap:
            cmd.insert(1, "--maxrregcount=%d" % cap)
        subprocess.run(cmd, check=True)
    else:
        cubin = base + ".cubin"
        with open(cubin, "wb") as f:
            f.write(data)
    listing = subprocess.run(["cuobjdump", "-sass", cubin], check=True, capture_output=True,
                             text=True).stdout
    usage = subprocess.run(["cuobjdump", "-res-usage", cubin], check=True, capture_output=True,
                           text=True).stdout
    regs = " ".join(line.strip() for line in usage.splitlines() if "REG:" in line)
    options = [line for line in head.splitlines() if line.startswith(("backend=", "source="))]
    return listing, " ".join(options + [regs])


def instructions(listing):
    """[(address, predicate, opcode)] of a cuobjdump -sass listing."""
    out = []
    for line in listing.splitlines():
        m = INSTRUCTION.match(line)
        if not m:
            continue
        text = m.group(2)
        p = PREDICATE.match(text)
        pred, text = (p.group(1), p.group(2)) if p else ("", text)
        out.append((int(m.group(1), 16), pred, text.split()[0]))
    return out


def report(path, listing, regs):
    code = instructions(listing)
    targets = {}
    for line in listing.splitlines():
        m = INSTRUCTION.match(line)
        if m and re.search(r"\bBRA\b", m.group(2)):
            t = re.search(r"BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", m.group(2))
            if t and t.group(1):
                targets[int(m.group(1), 16)] = int(t.group(1), 16)
    print(f"{path}: {len(code)} instructions; {regs}")
    for at, to in sorted(targets.items()):
        if to >= at:
            continue
        body = [(p, op) for a, p, op in code if to <= a <= at]
        mix = collections.Counter(op for _, op in body)
        predicated = sum(1 for p, _ in body if p)
        print(f"  loop 0x{to:x}..0x{at:x}: {len(body)} instructions, {predicated} predicated, "
              f"{mix.get('BSSY', 0)} BSSY regions")
        print("    " + ", ".join(f"{op} {n}" for op, n in mix.most_common()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--maxrregcount", type=int, default=0)
    ap.add_argument("--keep", help="keep the PTX, CUBIN and SASS here")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        failed = 0
        for path in args.files:
            try:
                listing, regs = sass_of(path, args, work)
            except (OSError, subprocess.CalledProcessError) as e:
                print(f"{path}: {e}", file=sys.stderr)
                failed += 1
                continue
            if args.keep:
                with open(os.path.join(work, os.path.basename(path) + ".sass"), "w") as f:
                    f.write(listing)
            report(path, listing, regs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
