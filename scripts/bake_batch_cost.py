#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What taking the batch size N at run time costs each variant, from bench records of the same
commit and shapes run with --bake-batch on (two runs) and off: per variant the kernel x shape x
backend pairs, the geo-mean and the worst of off / max(on), the run time against the slower of
the two baked runs (a slowdown beyond the spread of the baked runs), and whether that worst is
within --limit. Where a shape has one baked run only, off / on. Pairs whose off record bakes N in
every step ("N: baked") ran the same programs both ways: they are left out of the variants'
rows and give the noise rows instead (those of two baked runs and those of one). Prints a Markdown table; exits 2 on bad input.

Usage: scripts/bake_batch_cost.py [--limit 1.02] [ON1.json ON2.json OFF.json ...]
The default files are the H100 records of docs/guide/compile.md (DEFAULT_SETS)."""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = "bench/results/2026-11-27-h100-96bc74d-bake_batch_"
# (on, on, off) of each suite.
DEFAULT_SETS = [
    [RESULTS + s for s in ("standard_on1.json", "standard_on3.json", "standard_off2.json")],
    [RESULTS + s for s in ("resnet50_on1_cuda.json", "resnet50_on3.json",
                           "resnet50_off2.json")],
]


def load(path):
    """The passing timed records of path by (backend, variant, shape), each (min_ms, note)."""
    with open(os.path.join(ROOT, path)) as f:
        records = json.load(f)["records"]
    return {(r["backend"], r["variant"], r["shape_name"]): (r["min_ms"], r.get("note", ""))
            for r in records if r.get("outcome") == "pass" and r.get("min_ms")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=1.02)
    ap.add_argument("files", nargs="*", help="ON1 ON2 OFF, repeated per suite")
    args = ap.parse_args()
    if len(args.files) % 3:
        print("expected the records in threes: on, on, off", file=sys.stderr)
        return 2
    sets = [args.files[i:i + 3] for i in range(0, len(args.files), 3)] or DEFAULT_SETS
    costs = defaultdict(list)  # variant -> [(cost, backend, shape, ons)]
    noise = {1: [], 2: []}  # same programs, by the number of baked runs
    try:
        for on1, on2, off in sets:
            ons, offs = [load(on1), load(on2)], load(off)
            for key, (off_ms, note) in offs.items():
                on_ms = [o[key][0] for o in ons if key in o]
                if not on_ms or key[1] == "auto":
                    continue
                cost = off_ms / max(on_ms)
                row = (cost, key[0], key[2], len(on_ms))
                same = "N: a run-time argument" not in note
                (noise[len(on_ms)] if same else costs[key[1]]).append(row)
    except (OSError, ValueError, KeyError) as e:
        print(f"bad records: {e}", file=sys.stderr)
        return 2
    print(f"| variant | pairs | geo-mean | worst (backend, shape) | within {args.limit} |")
    print("| --- | --- | --- | --- | --- |")
    rows_of = sorted(costs.items()) + [("(same programs, two baked runs)", noise[2]),
                                       ("(same programs, one baked run)", noise[1])]
    for name, rows in rows_of:
        if not rows:
            continue
        geo = math.exp(sum(math.log(r[0]) for r in rows) / len(rows))
        worst = max(rows)
        one = "" if worst[3] == 2 else ", one baked run"
        ok = "-" if name.startswith("(") else "yes" if worst[0] <= args.limit else "no"
        print(f"| {name} | {len(rows)} | {geo:.3f} | {worst[0]:.4f} ({worst[1]}, {worst[2]}"
              f"{one}) | {ok} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
