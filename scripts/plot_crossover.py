#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plots time against filter size per variant from xconv bench JSON files (the FFT crossover sweep,
bench/shapes/fft_crossover.shapes) as one standalone SVG, one panel per device and backend, and
prints where FFT convolution (the faster of fft and fft_tiled) overtakes every other variant: the
smallest filter size from which it stays faster over the rest of the sweep.
Only shapes whose name starts with --name (default "crossover") are plotted, so a record may
hold other shapes too.
Usage: scripts/plot_crossover.py RUN.json [RUN2.json ...] [-o crossover.svg] [--title TEXT]
       [--name PREFIX]"""
import argparse
import json
import math
import os
import sys
from xml.sax.saxutils import escape

FFT_VARIANTS = ("fft", "fft_tiled")
# Line colours, assigned to variants in order of first appearance (FFT variants first).
COLOURS = ["#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#843c39", "#7b4173"]
WIDTH, PANEL_H = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 200, 40, 50


def filter_size(shape):
    """The filter size of a SPEC string: r (s when it differs: r x s as r)."""
    keys = dict(kv.split("=", 1) for kv in shape.split(",") if "=" in kv)
    return int(keys["r"]) if "r" in keys else None


def load(paths, prefix):
    """Passing, timed records of shapes named PREFIX... grouped as
    {(device, backend): {variant: {r: ms}}}."""
    panels = {}
    for path in paths:
        with open(path) as f:
            records = json.load(f)["records"]
        for rec in records:
            r = filter_size(rec.get("shape", ""))
            if rec.get("outcome") != "pass" or not rec.get("median_ms") or r is None:
                continue
            if not rec.get("shape_name", "").startswith(prefix):
                continue
            key = (rec["device"], rec["backend"])
            times = panels.setdefault(key, {}).setdefault(rec["variant"], {})
            times[r] = min(rec["median_ms"], times.get(r, math.inf))
    return panels


def crossovers(variants):
    """For each variant that is not FFT: the smallest filter size from which the best FFT time is
    below its time at every size both have, or None; and the FFT's best time per size."""
    best = {}
    for v in FFT_VARIANTS:
        for r, ms in variants.get(v, {}).items():
            best[r] = min(ms, best.get(r, math.inf))
    out = {}
    for v, times in variants.items():
        if v in FFT_VARIANTS:
            continue
        sizes = sorted(r for r in times if r in best)
        cross = None
        for r in reversed(sizes):
            if best[r] < times[r]:
                cross = r
            else:
                break
        out[v] = cross
    return out, best


def panel_svg(y0, title, variants, colour_of):
    """One panel: log-scale time against filter size, a line per variant, the crossovers."""
    sizes = sorted({r for t in variants.values() for r in t})
    times = [ms for t in variants.values() for ms in t.values()]
    x_lo, x_hi = sizes[0], sizes[-1] if sizes[-1] > sizes[0] else sizes[0] + 1
    y_lo = 10 ** math.floor(math.log10(min(times)))
    y_hi = 10 ** math.ceil(math.log10(max(times)))
    if y_hi <= y_lo:
        y_hi = y_lo * 10
    w, h = WIDTH - LEFT - RIGHT, PANEL_H - TOP - BOTTOM

    def px(r):
        return LEFT + (r - x_lo) / (x_hi - x_lo) * w

    def py(ms):
        return y0 + TOP + (1 - (math.log10(ms) - math.log10(y_lo)) /
                           (math.log10(y_hi) - math.log10(y_lo))) * h

    out = ['<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>'
           % (LEFT, y0 + 24, escape(title))]
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>'
               % (LEFT, y0 + TOP, w, h))
    decade = y_lo
    while decade <= y_hi * 1.0001:
        y = py(decade)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (LEFT, y, LEFT + w, y))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%g</text>'
                   % (LEFT - 6, y + 4, decade))
        decade *= 10
    for r in sizes:
        out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%d</text>'
                   % (px(r), y0 + TOP + h + 16, r))
    out.append('<text x="%d" y="%d" font-size="12" text-anchor="middle">filter size R (R x R, '
               'stride 1)</text>' % (LEFT + w // 2, y0 + TOP + h + 36))
    out.append('<text x="16" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 16 '
               '%d)">median time (ms, log scale)</text>' % (y0 + TOP + h // 2, y0 + TOP + h // 2))
    cross, _ = crossovers(variants)
    legend_y = y0 + TOP + 4
    for v in sorted(variants, key=lambda v: (v not in FFT_VARIANTS, v)):
        pts = sorted(variants[v].items())
        colour, bold = colour_of(v), v in FFT_VARIANTS
        path = " ".join("%.1f,%.1f" % (px(r), py(ms)) for r, ms in pts)
        out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%s"/>'
                   % (path, colour, "3" if bold else "1.5"))
        for r, ms in pts:
            out.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s R=%d: %.4g ms'
                       '</title></circle>' % (px(r), py(ms), colour, escape(v), r, ms))
        label = v if bold else "%s (FFT from %s)" % (v, cross[v] if cross.get(v) else "-")
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%s"/>'
                   % (LEFT + w + 12, legend_y, LEFT + w + 32, legend_y, colour,
                      "3" if bold else "1.5"))
        out.append('<text x="%d" y="%d" font-size="11">%s</text>'
                   % (LEFT + w + 36, legend_y + 4, escape(label)))
        legend_y += 17
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="bench JSON files of the sweep")
    ap.add_argument("-o", "--output", help="SVG file to write (default: crossover.svg)",
                    default="crossover.svg")
    ap.add_argument("--title", default="", help="text before each panel's device name")
    ap.add_argument("--name", default="crossover", help="plot only the shapes whose name starts "
                    "with this (default: crossover, the sweep files' names)")
    args = ap.parse_args()
    try:
        panels = load(args.files, args.name)
    except (OSError, ValueError, KeyError) as e:
        print("plot_crossover: cannot read the results: %s" % e, file=sys.stderr)
        return 2
    panels = {k: v for k, v in panels.items() if any(f in v for f in FFT_VARIANTS)}
    if not panels:
        print("plot_crossover: no passing timed records of fft or fft_tiled on shapes named "
              "%s..." % args.name, file=sys.stderr)
        return 2
    order = []
    for variants in panels.values():
        for v in sorted(variants, key=lambda v: (v not in FFT_VARIANTS, v)):
            if v not in order:
                order.append(v)

    def colour_of(v):
        return COLOURS[order.index(v) % len(COLOURS)]

    body = []
    for i, ((device, backend), variants) in enumerate(sorted(panels.items())):
        title = "%s%s (%s)" % (args.title + ": " if args.title else "", device, backend)
        body += panel_svg(i * PANEL_H, title, variants, colour_of)
        cross, best = crossovers(variants)
        print("%s (%s): FFT's best time per filter size: %s" % (
            device, backend, ", ".join("R=%d %.3g ms" % (r, best[r]) for r in sorted(best))))
        for v in sorted(cross):
            print("  FFT overtakes %-18s %s" % (v, "from R=%d" % cross[v] if cross[v] else
                                                "nowhere in this sweep"))
    height = PANEL_H * len(panels)
    svg = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif">' % (WIDTH, height, WIDTH, height),
           '<rect width="100%" height="100%" fill="white"/>'] + body + ['</svg>']
    try:  # a temporary beside it, renamed into place: no partial file on failure
        with open(args.output + ".tmp", "w") as f:
            f.write("\n".join(svg) + "\n")
        os.replace(args.output + ".tmp", args.output)
    except OSError as e:
        print("plot_crossover: cannot write %s: %s" % (args.output, e), file=sys.stderr)
        return 1
    print("wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
