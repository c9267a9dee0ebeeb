# SPDX-License-Identifier: MIT
"""Re-runs the console blocks of README.md and docs/guide/*.md and compares what the commands
print with what the blocks show. A console block is a fenced block marked `console`: each line
starting with "$ " is a command (run by bash in the source tree's root, the binary's folder first
on PATH, so `$ xconv ...` runs the build's xconv), and the lines after it up to the next command
are what it prints on standard output. A line "..." in a block stands for any number of lines.

What depends on the machine or the moment is left out of the comparison: times (any number
before "ms", every plain decimal in a row under a table's titles), a device's name after
"opencl:N", the device listing's details (compute units, clock, memory, driver), and runs of
spaces (columns widen with their numbers). The rest, the variants, shapes, outcomes, errors,
notes and auto's reasons, must be what the command prints now.

Usage: console_blocks.py ROOT BIN_DIR [--update]; --update rewrites every block in place with
what the commands print now (keeping a block's "..." with as many lines around it). Prints one
line a difference; exits 1 when there is one."""
import os
import re
import subprocess
import sys
import tempfile

PAGES = ["README.md"]
GUIDE = "docs/guide"


def pages(root):
    """Returns the pages whose console blocks are checked, relative to root."""
    found = list(PAGES)
    for name in sorted(os.listdir(os.path.join(root, GUIDE))):
        if name.endswith(".md"):
            found.append(os.path.join(GUIDE, name))
    return found


def console_blocks(lines):
    """Yields (first line, last line + 1) of each console block's body in lines."""
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "```console":
            start = i + 1
            i = start
            while i < len(lines) and not lines[i].startswith("```"):
                i += 1
            yield start, i
        i += 1


def commands(body):
    """Splits a block's lines into [(command, [output lines])]."""
    out = []
    for line in body:
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return [(cmd, lines[:-1] if lines and lines[-1] == "" else lines) for cmd, lines in out]


def run(command, root, env):
    """Returns what command prints on standard output, as lines."""
    done = subprocess.run(["bash", "-c", command], cwd=root, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=900)
    text = done.stdout.decode("utf-8", "replace")
    return text.rstrip("\n").split("\n") if text.strip() else []


TIME = re.compile(r"\d+(?:\.\d+)? ms\b")
DEVICE = re.compile(r"\b(opencl|cuda):(\d+) [^:\n]+")
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+%?(?![\w.])")
DETAIL = re.compile(r"^\s+(platform|CPU|GPU|constant)\b")


def normalise(lines):
    """Returns lines with what depends on the machine or the moment replaced."""
    out, in_table = [], False
    for line in lines:
        if DETAIL.match(line):  # the device listing's details
            out.append(line.split()[0] + " ...")
            continue
        line = DEVICE.sub(r"\1:\2 <device>", line)
        line = TIME.sub("<t> ms", line)
        if not line.strip():
            in_table = False  # a table ends at a blank line
        elif line.startswith("variant "):
            in_table = True  # its titles
        elif in_table and not line.startswith(" "):
            line = DECIMAL.sub("<n>", line)  # a row's timings, rates and shares
        out.append(re.sub(r" {2,}", "  ", line.rstrip()))
    return out


def matches(want, got):
    """Returns None when got matches want ("..." any number of lines), else the first
    difference as text."""
    want, got = normalise(want), normalise(got)
    if "..." in want:
        k = want.index("...")
        head, tail = want[:k], want[k + 1:]
        if len(got) < len(head) + len(tail):
            return "prints %d lines, fewer than the block's %d" % (len(got), len(head + tail))
        got = got[:len(head)] + got[len(got) - len(tail):]
        want = head + tail
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else "<end>"
        g = got[i] if i < len(got) else "<end>"
        if w != g:
            return "line %d: the block reads %r, the command prints %r" % (i + 1, w, g)
    return None


def updated(want, got):
    """Returns got cut as want is: as many lines before and after its "..." as want has."""
    if "..." not in want:
        return got
    k = want.index("...")
    tail = len(want) - k - 1
    if len(got) <= k + tail:
        return got
    return got[:k] + ["..."] + (got[len(got) - tail:] if tail else [])


def main():
    root, bin_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    update = "--update" in sys.argv[3:]
    failures, ran = [], 0
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
                   XCONV_CACHE_DIR=cache)
        env.pop("XCONV_DEVICE", None)
        env.pop("XCONV_PEAKS", None)
        for page in pages(root):
            path = os.path.join(root, page)
            lines = open(path, encoding="utf-8").read().split("\n")
            changed = False
            for start, end in reversed(list(console_blocks(lines))):
                body = []
                for cmd, want in commands(lines[start:end]):
                    got = run(cmd, root, env)
                    ran += 1
                    diff = matches(want, got)
                    if diff:
                        failures.append("%s:%d: $ %s: %s" % (page, start, cmd, diff))
                    body += ["$ " + cmd] + updated(want, got) + [""]
                if update and lines[start:end] != body[:-1]:
                    lines[start:end] = body[:-1]
                    changed = True
            if changed:
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines))
                print("rewrote the console blocks of %s" % page)
    for f in failures:
        print(("was: " if update else "FAIL: ") + f)
    print("console blocks: %d commands, %d differ%s" % (ran, len(failures),
                                                       " (rewritten)" if update else ""))
    return 0 if update or not failures else 1


if __name__ == "__main__":
    sys.exit(main())
