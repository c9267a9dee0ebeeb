#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Summarises xconv bench JSON files: per shape, the best variant of each family beside the peers,
and the ratio of each family's best to a chosen peer (geometric mean over shapes).
Usage: scripts/summarize_results.py --peer clblast_convgemm FILE.json [FILE.json ...]"""
import argparse
import json
import math
from collections import OrderedDict


def load(paths):
    records = []
    for path in paths:
        with open(path) as f:
            records += json.load(f)["records"]
    return records


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", default="clblast_convgemm", help="variant the families are compared with")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    records = [r for r in load(args.files) if r.get("median_ms")]
    by_key = OrderedDict()
    for r in records:
        by_key.setdefault((r["device"], r["shape_name"] or r["shape"]), []).append(r)
    ratios = {}
    print(f"| device | shape | best direct (ms) | best gemm (ms) | {args.peer} (ms) | other peers (ms) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (device, shape), rows in by_key.items():
        def best(family):
            ok = [r for r in rows if r["family"] == family and r["outcome"] == "pass"]
            return min(ok, key=lambda r: r["median_ms"]) if ok else None
        peer = next((r for r in rows if r["variant"] == args.peer), None)
        cells = []
        for family in ("direct", "gemm"):
            b = best(family)
            cells.append(f"{b['variant']} {b['median_ms']:.3f}" if b else "-")
            if b and peer:
                ratios.setdefault((device, family), []).append(peer["median_ms"] / b["median_ms"])
        others = ", ".join(f"{r['variant']} {r['median_ms']:.3f}{'' if r['outcome'] == 'pass' else ' (' + r['outcome'] + ')'}"
                           for r in rows if r["family"] == "peer" and r["variant"] != args.peer)
        print(f"| {device} | {shape} | {cells[0]} | {cells[1]} | "
              f"{peer['median_ms']:.3f} | {others} |" if peer else
              f"| {device} | {shape} | {cells[0]} | {cells[1]} | - | {others} |")
    for (device, family), values in ratios.items():
        geo = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"\n{device}: best {family} is {geo:.2f}x faster than {args.peer} "
              f"(geometric mean over {len(values)} shapes; min {min(values):.2f}x)")


if __name__ == "__main__":
    main()
