#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rules-only auto against the measured fastest: for every device and shape of committed records
that time every variant (a matrix, a find), the variant auto's rules pick now (asked of the built
xconv: `explain --target T --find off`) beside the fastest passing variant of ours, their ratio,
and the geo-mean. Exits 1 when a shape's pick is more than --max-ratio times the fastest and
more than --slack-us behind it, or the geo-mean passes --max-geomean; 2 on bad input.

Usage: scripts/auto_rules_check.py [--xconv build/xconv] [--target sm_90] [--max-ratio 1.05]
                                   [--slack-us 0] [--max-geomean G] [--quiet] [FILE.json ...]
The default files are the H100 records listed in DEFAULT_FILES."""
import argparse
import json
import math
import os
import subprocess
import sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The committed H100 records that time every variant auto may choose on each of their shapes. In
# the device-time region (the timed region starts behind a device-side delay, c029fce): the small
# suite with ten network layers at batch 1, the standard suite (c029fce), and the network files
# ResNet-50 at batch 1, AlexNet, VGG-16, MobileNet v1 and v2 (b66cac2), through both backends (the
# first two replace the records of the same shapes made before that region, whose times held the
# host's launch path: a plan of several steps paid it once a step). Earlier records of larger
# kernels, where the region moved times by a few percent at most: ResNet-50's 23 layers at batch 32
# through CUDA (find, f4d1cb2); the rules-only matrices of lines 7, 13 and 17-18 (bc6674b, two
# runs) and of the direct family on MobileNet-v2's depthwise layers at batch 32 (3a64594, two
# runs); the direct family with direct_depthwise and the GEMMs on every depthwise shape of those
# files (f9c489a, two runs: the older files' depthwise groups, which did not time direct_depthwise,
# are left out where these timed it).
DEFAULT_FILES = [
    "bench/results/2026-11-28-h100-c029fce-matrix_rules_small_networks.json",
    "bench/results/2026-11-28-h100-c029fce-matrix_rules_standard.json",
    "bench/results/2026-11-28-h100-b66cac2-matrix_rules_resnet50_b1_alexnet_vgg16.json",
    "bench/results/2026-11-28-h100-b66cac2-matrix_rules_mobilenet_v1_v2.json",
    "bench/results/2026-11-27-h100-f4d1cb2-find_resnet50_cold_after.json",
    "bench/results/2026-11-27-h100-bc6674b-matrix_rules_r37_1.json",
    "bench/results/2026-11-27-h100-bc6674b-matrix_rules_r37_2.json",
    "bench/results/2026-11-27-h100-3a64594-matrix_depthwise_b32_1.json",
    "bench/results/2026-11-27-h100-3a64594-matrix_depthwise_b32_2.json",
    "bench/results/2026-11-28-h100-f9c489a-matrix_depthwise_1.json",
    "bench/results/2026-11-28-h100-f9c489a-matrix_depthwise_2.json",
]

# Families auto never picks (xconv_variant_auto_eligible): their records are not candidates.
NOT_CHOSEN = ("reference", "peer")
# A bench's auto row times auto's own pick of that run under another name: not a candidate.
NOT_CANDIDATES = ("auto",)

# ---------------------------------------------------------------------------------------------
# Records


def median(values):
    """Returns the median of a non-empty list."""
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def load_groups(paths):
    """Returns {(file, device, shape): {"name": shape name, "times": {variant: ms}}} from the
    records of paths: each variant's passing time (the median of its records' medians: a find
    repeats the close ones in confirm rounds), variants with a failing record left out.
    Raises ValueError naming the file when one is not a results file."""
    groups = OrderedDict()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or doc.get("tool") != "xconv" or \
                not isinstance(doc.get("records"), list):
            raise ValueError(f"{path}: not an xconv results file with records")
        base = os.path.basename(path)
        runs, failed = {}, set()
        for r in doc["records"]:
            if r.get("family") in NOT_CHOSEN or r.get("variant") in NOT_CANDIDATES:
                continue
            key = (base, r["device"], r["shape"])
            g = groups.setdefault(key, {"name": r.get("shape_name", ""), "times": {}})
            if r["outcome"] == "fail" or r["outcome"] == "error":
                failed.add((key, r["variant"]))
            elif r["outcome"] == "pass" and r.get("median_ms"):
                runs.setdefault((key, r["variant"]), []).append(r["median_ms"])
        for (key, variant), times in runs.items():
            if (key, variant) not in failed:
                groups[key]["times"][variant] = median(times)
    return OrderedDict((k, g) for k, g in groups.items() if g["times"])


# ---------------------------------------------------------------------------------------------
# Auto's picks


def auto_picks(xconv, target, shapes):
    """Returns {shape: (variant, why)} for auto's rules-only pick of each shape on the target
    profile, from `xconv explain` runs of at most EXPLAIN_SHAPES shapes each. Raises
    RuntimeError when explain fails or a shape's plan is missing from its output."""
    shapes = list(shapes)
    picks = {}
    for first in range(0, len(shapes), EXPLAIN_SHAPES):
        argv = [xconv, "explain", "--target", target, "--find", "off", "--variant", "auto"]
        for s in shapes[first:first + EXPLAIN_SHAPES]:
            argv += ["--shape", s]
        env = dict(os.environ, XCONV_CACHE_DIR="none")
        proc = subprocess.run(argv, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"xconv explain exited {proc.returncode}: {proc.stderr.strip()}")
        parse_explain(proc.stdout, picks)
    missing = [s for s in shapes if s not in picks]
    if missing:
        raise RuntimeError(f"xconv explain printed no auto plan for {', '.join(missing)}")
    return picks


# The most --shape options one `xconv explain` takes.
EXPLAIN_SHAPES = 64


def parse_explain(text, picks):
    """Adds explain's auto plans in text to picks ({shape: (variant, why)})."""
    current = None
    for line in text.splitlines():
        if line.startswith("plan of auto -> "):
            variant, rest = line[len("plan of auto -> "):].split(" for ", 1)
            current = rest.split(" on ", 1)[0]
            picks[current] = (variant, "")
        elif current and line.strip().startswith("auto: "):
            picks[current] = (picks[current][0], line.strip()[len("auto: "):])
            current = None


# ---------------------------------------------------------------------------------------------
# Comparing


def rule_line(why):
    """Returns "line N" from explain's reason ("rules, line N: ..."), else the reason."""
    head = why.split(":", 1)[0]
    return head[len("rules, "):] if head.startswith("rules, ") else head


def compare(groups, picks):
    """Returns one row a group: (file, device, shape, name, pick, rule, pick_ms, best, best_ms,
    ratio); pick_ms and ratio are None when the records have no passing time of the pick. A
    group that did not time the pick is left out where another file timed it on that device
    (a matrix over a few variants beside one over the whole family)."""
    timed = {(device, shape) for (_, device, shape), g in groups.items()
             if picks[shape][0] in g["times"]}
    rows = []
    for (base, device, shape), g in groups.items():
        best = min(g["times"], key=g["times"].get)
        pick, why = picks[shape]
        pick_ms = g["times"].get(pick)
        if pick_ms is None and (device, shape) in timed:
            continue
        ratio = pick_ms / g["times"][best] if pick_ms else None
        rows.append((base, device, shape, g["name"], pick, rule_line(why), pick_ms, best,
                     g["times"][best], ratio))
    return rows


def backend(device):
    """Returns the backend word of a record's device id ("cuda:0 NVIDIA ..." -> "cuda")."""
    return device.split(":", 1)[0]


def report(rows, max_ratio, slack_ms, max_geomean, quiet):
    """Prints the table (unless quiet: then only the shapes over the bound: more than max_ratio
    times the fastest and more than slack_ms behind it) and the summary; returns the number of
    shapes over the bound or without a time of the pick, plus 1 when the geo-mean passes
    max_geomean."""
    bad = 0
    if not quiet:
        print("| backend | shape | auto (rule) | ms | fastest | ms | ratio |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
    for base, device, shape, name, pick, rule, pick_ms, best, best_ms, ratio in rows:
        over = ratio is None or (ratio > max_ratio and pick_ms - best_ms > slack_ms)
        bad += over
        if quiet and not over:
            continue
        print(f"| {backend(device)} | {name or shape} | {pick} ({rule}) | "
              f"{'-' if pick_ms is None else f'{pick_ms:.4g}'} | {best} | {best_ms:.4g} | "
              f"{'not timed' if ratio is None else f'{ratio:.3f}'}{' *' if over else ''} |")
    ratios = [r[-1] for r in rows if r[-1] is not None]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else float("nan")
    exact = sum(1 for r in rows if r[4] == r[7])
    print(f"{len(rows)} device x shape pairs: auto picks the fastest on {exact}, "
          f"geo-mean {geo:.3f}x, worst {max(ratios, default=float('nan')):.3f}x, "
          f"{sum(1 for r in ratios if r > 1.05)} more than 5% behind, "
          f"{len(rows) - len(ratios)} with the pick not timed; "
          f"{bad} over {max_ratio:g}x and {slack_ms * 1000:g} us (marked *)")
    if geo > max_geomean:
        print(f"the geo-mean {geo:.3f}x passes {max_geomean:g}x")
        bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--xconv", default=os.path.join(ROOT, "build", "xconv"),
                    help="the xconv command to ask (default: build/xconv)")
    ap.add_argument("--target", default="sm_90", help="target profile auto plans for")
    ap.add_argument("--max-ratio", type=float, default=float("inf"),
                    help="exit 1 when auto's pick is more than this times the fastest")
    ap.add_argument("--slack-us", type=float, default=0.0,
                    help="a pick within this many microseconds of the fastest never fails")
    ap.add_argument("--max-geomean", type=float, default=float("inf"),
                    help="exit 1 when the geo-mean of the ratios passes this")
    ap.add_argument("--quiet", action="store_true", help="print only the shapes over the bound")
    ap.add_argument("files", nargs="*", help="results files (default: the H100 records)")
    args = ap.parse_args()
    files = args.files or [os.path.join(ROOT, f) for f in DEFAULT_FILES]
    try:
        groups = load_groups(files)
        shapes = list(OrderedDict.fromkeys(shape for _, _, shape in groups))
        picks = auto_picks(args.xconv, args.target, shapes)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        print(f"auto_rules_check: {e}", file=sys.stderr)
        return 2
    bad = report(compare(groups, picks), args.max_ratio, args.slack_us / 1000,
                 args.max_geomean, args.quiet)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
