#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the folders' include arrows: no circle between folders, no arrow running back up, and
the command-line tool (cli/ and its folders) a client of the installed public headers only.

Each folder of C sources has a layer (LAYERS, lowest first). A quoted #include from a file in one
folder to a header in another is an arrow; it must go to a lower layer, or to a folder of the same
layer that is not reached back (folders of one layer may use each other one way, such as one
family's planner using another's). Prints every arrow that breaks the rule and exits 1, or prints
the folder graph and exits 0. A file under cli/ may include, of the project, only headers under
cli/ and the public ones (host/include/xconv/, as <xconv/NAME.h>), quoted or in angle brackets.
Usage: check_layers.py [ROOT] [--graph]
"""
import os
import re
import subprocess
import sys

# Lowest first. A folder not named here is an error, so that a new folder gets a place.
LAYERS = [
    ["common"],                                  # kernel headers: the dialect, parameter blocks
    ["host/include/xconv", "host/include/xconv/internal"],  # the public headers; internal
                                                 # ones for tests (not installed)
    ["host/core"],                               # problem, status, devices, buffers, programs
    ["cl", "cuda"],                              # the backends, behind core/backend.h's table
    ["host/caches"],                             # programs (memory and disk), the find-db
    ["host/plan"],                               # plans and their API, registry, auto, epilogues
    ["host/families/gemm", "host/families/direct", "host/families/winograd",
     "host/families/fft"],                       # each family: planner, variants, handles
    ["host/reference", "host/shapes"],           # the references; shapes, files and suites
    ["host/measure"],                            # checking, timing, peaks
    ["cli/report", "cli/peers"],                 # the CLI's records and report; the FFT peers
    ["cli"],                                     # the command-line tool
]

# Arrows allowed to break the rule, each with its reason: none today, and the list only shrinks.
KNOWN = {}

# Folders whose files are not part of the layered build (tests reach anywhere on purpose).
SKIP = ("tests/", "python/", "scripts/", "build", "docs/", "shared/")

# Include roots the build passes (-I): host/, common/ and the project's root.
ROOTS = ["host", "common", "."]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ANY_INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)

# The command-line tool's folders, and what of the project they may include besides their own.
CLIENT = "cli"
PUBLIC = "host/include/xconv"


def layer_of(folder):
    for rank, names in enumerate(LAYERS):
        if folder in names:
            return rank
    return None


def arrows(root):
    files = subprocess.check_output(["git", "-C", root, "ls-files", "*.c", "*.h"],
                                    text=True).split()
    found = {}
    for f in files:
        if f.startswith(SKIP):
            continue
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            candidates = [os.path.normpath(os.path.join(os.path.dirname(f), name))]
            candidates += [os.path.normpath(os.path.join(r, name)) for r in ROOTS]
            target = next((c for c in candidates if os.path.isfile(os.path.join(root, c))), None)
            if target is None or target.startswith(SKIP):
                continue
            a, b = os.path.dirname(f), os.path.dirname(target)
            if a != b:
                found.setdefault((a, b), []).append(f"{f} includes {target}")
    return found


def in_folder(path, folder):
    return path == folder or path.startswith(folder + "/")


def client_breaches(root):
    """Each include of a file under cli/ that reaches a project file outside cli/ and the public
    headers, or names an <xconv/...> header that is not public, as a message."""
    files = subprocess.check_output(["git", "-C", root, "ls-files", CLIENT + "/*.c",
                                     CLIENT + "/*.h"], text=True).split()
    breaches = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            text = fh.read()
        for bracket, name in ANY_INCLUDE.findall(text):
            if bracket == "<" and name.startswith("xconv/"):
                if not os.path.isfile(os.path.join(root, "host/include", name)):
                    breaches.append(f"{f} includes <{name}>, not a public header")
                continue
            candidates = [os.path.join("host/include", name)] if bracket == "<" else \
                [os.path.join(os.path.dirname(f), name)]
            candidates += [os.path.join(r, name) for r in ROOTS]
            candidates = [os.path.normpath(c) for c in candidates]
            target = next((c for c in candidates if os.path.isfile(os.path.join(root, c))), None)
            if target is None or in_folder(target, CLIENT) or in_folder(target, PUBLIC):
                continue
            breaches.append(f"{f} includes {target}, neither cli/'s own nor a public header")
    return breaches


def reaches(graph, start, goal):
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = arrows(root)
    graph = {}
    for a, b in found:
        graph.setdefault(a, set()).add(b)
    problems = []
    for (a, b), where in sorted(found.items()):
        la, lb = layer_of(a), layer_of(b)
        for folder, rank in ((a, la), (b, lb)):
            if rank is None:
                problems.append(f"{folder}: a folder without a layer (add it to LAYERS)")
        if la is None or lb is None or (a, b) in KNOWN:
            continue
        if lb > la:
            problems.append(f"{a} -> {b}: an arrow back up ({where[0]})")
        elif lb == la and reaches(graph, b, a):
            problems.append(f"{a} -> {b}: a circle ({where[0]})")
    problems += client_breaches(root)
    if "--graph" in sys.argv or not problems:
        for a in sorted(graph):
            print(f"{a} -> {', '.join(sorted(graph[a]))}")
    for (a, b), why in KNOWN.items():
        if (a, b) in found:
            print(f"check_layers: known: {a} -> {b}: {why}")
        else:
            problems.append(f"{a} -> {b} is gone: take it out of KNOWN")
    for p in sorted(set(problems)):
        print(f"check_layers: {p}", file=sys.stderr)
    print(f"check_layers: {len(found)} arrows between {len({a for a, _ in found} | {b for _, b in found})}"
          f" folders, {len(set(problems))} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
