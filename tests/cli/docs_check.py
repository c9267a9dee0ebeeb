# SPDX-License-Identifier: MIT
"""Checks the documentation against the tree: every variant has its row in the variants table and
a teaching chapter naming it, every teaching chapter (references.md aside) quotes kernel lines,
every quoted kernel excerpt matches its file byte for byte, every table of a vendor compiler's
figures matches its compile record, every results file of record is named in the docs and every
one the docs name exists, and relative links resolve. Usage: docs_check.py ROOT
VARIANTS_LISTING [--fix]; prints one line a failure.
With --fix, a quote whose lines moved (found unchanged, once, elsewhere in its file) gets its
header's line numbers rewritten in place; a quote whose text changed must be quoted again."""
import json
import os
import re
import sys

# A quote is a fenced block whose first line names its source: `// cl/sgemm.cl:L10-L24`.
QUOTE_HEAD = re.compile(r"^(?://|#) ((?:cl|common|host|cuda)/[\w./-]+):L(\d+)-L(\d+)$")
RECORD_NAME = re.compile(r"20\d\d-\d\d-\d\d-[\w.+-]+")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# Chapters written on other branches, linked before they land: a link to one of these may point
# nowhere while the file is absent. Delete an entry once its chapter is in the tree.
PENDING = set()
# The pages that say where the command is in a build tree.
BUILD_PATH_PAGES = {"README.md", "docs/README.md", "docs/guide/cli.md"}
# Teaching chapters about no kernel of their own.
NO_KERNEL_CHAPTERS = {"docs/teaching/references.md"}


def markdown_files(root):
    """Returns README.md and every .md under docs/, as paths relative to root."""
    found = ["README.md"]
    for base, _, files in os.walk(os.path.join(root, "docs")):
        found += [os.path.relpath(os.path.join(base, f), root) for f in files if f.endswith(".md")]
    return sorted(found)


def fenced_blocks(lines):
    """Yields (line number of the opening fence, the block's lines) of each fenced block."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            start, body = i, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            yield start + 1, body
        i += 1


def find_block(source, block):
    """Returns the 1-based first line of the one place block occurs in source, else None."""
    hits = [i + 1 for i in range(len(source) - len(block) + 1)
            if block and source[i:i + len(block)] == block]
    return hits[0] if len(hits) == 1 else None


def check_quotes(root, path, text, fail, moved):
    """Fails each quote of path whose lines differ from its source's (adding (old header, new
    header) to moved where the lines are found elsewhere in the file); returns how many quotes."""
    count = 0
    for line_no, body in fenced_blocks(text.split("\n")):
        m = QUOTE_HEAD.match(body[0]) if body else None
        if not m:
            continue
        count += 1
        src, first, last = m.group(1), int(m.group(2)), int(m.group(3))
        where = "%s:%d: quote of %s:L%d-L%d" % (path, line_no, src, first, last)
        try:
            with open(os.path.join(root, src), "rb") as f:
                source = f.read().decode("utf-8").split("\n")
        except OSError as e:
            fail("%s: %s" % (where, e))
            continue
        want = source[first - 1:last]
        if first < 1 or last < first or last > len(source):
            fail("%s: the file has %d lines" % (where, len(source)))
        elif body[1:] != want and find_block(source, body[1:]):
            at = find_block(source, body[1:])
            new = "%s %s:L%d-L%d" % (body[0].split()[0], src, at, at + len(body) - 2)
            moved.append((path, body[0], new))
            fail("%s: the lines moved to L%d-L%d (--fix rewrites the header)" %
                 (where, at, at + len(body) - 2))
        elif body[1:] != want:
            diff = next(i for i in range(max(len(want), len(body) - 1))
                        if i >= len(want) or i + 1 >= len(body) or body[i + 1] != want[i])
            fail("%s: differs from line %d on (the source reads %r)" %
                 (where, first + diff, want[diff] if diff < len(want) else "<end>"))
    return count


# A table of what a vendor's compiler reported, from the compile record named above it:
# a header "| shape | auto's pick | kernel | VGPRs | SGPRs | spills | LDS bytes | occupancy ...".
COMPILE_TABLE_HEAD = "| shape | auto's pick | kernel | VGPRs | SGPRs | spills | LDS bytes |"
COMPILE_TABLE_FIELDS = ("registers", "sgprs", "spills", "lds_bytes", "occupancy")


def check_compile_tables(root, path, text, fail):
    """Fails each row of a compile table in path that differs from the records of the last
    compile record named before the table (target and its auto picks as the table's caption
    says: the first `gfx...`/`dg2`/`pvc` in backquotes between the record and the table)."""
    lines = text.split("\n")
    record, target = None, None
    for i, line in enumerate(lines):
        for name in RECORD_NAME.findall(line):
            if "compile" in name and name.endswith(".json"):
                record, target = name, None
        tm = re.search(r"`(gfx\w+|dg2|pvc|sm_\d+)`", line)
        if record and tm and not line.startswith("|"):
            target = tm.group(1)
        if not line.startswith(COMPILE_TABLE_HEAD):
            continue
        where = "%s:%d" % (path, i + 1)
        if not record or not target:
            fail("%s: a compile table with no record and `target` named before it" % where)
            continue
        try:
            with open(os.path.join(root, "bench", "results", record), encoding="utf-8") as f:
                recs = json.load(f)["records"]
        except (OSError, ValueError, KeyError) as e:
            fail("%s: %s: %s" % (where, record, e))
            continue
        rows = 0
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in row.strip("|").split("|")]
            rows += 1
            hits = [r for r in recs if r["target"] == target and r["auto"] and r["compiled"] and
                    r["shape_name"] == cells[0] and r["variant"] == cells[1] and
                    r["kernel"] == cells[2]]
            got = [str(hits[0][k]) for k in COMPILE_TABLE_FIELDS] if hits else None
            if got != cells[3:8]:
                fail("%s: row %s reads %s; %s records %s" %
                     (where, " ".join(cells[:3]), cells[3:8], record, got))
        want = sum(1 for r in recs if r["target"] == target and r["auto"] and r["compiled"])
        if rows != want:
            fail("%s: %d rows; %s has %d records of auto's picks compiled for %s" %
                 (where, rows, record, want, target))


def main():
    root, listing = sys.argv[1], sys.argv[2]
    failures = []
    fail = failures.append
    variants = [ln.split()[0] for ln in open(listing).read().splitlines()[1:] if ln.strip()]
    if len(variants) < 10:
        fail("xconv variants listed only %d variants" % len(variants))
    docs = {p: open(os.path.join(root, p), encoding="utf-8").read() for p in markdown_files(root)}
    table = docs.get("docs/guide/variants.md", "")
    chapters = {p: t for p, t in docs.items() if p.startswith("docs/teaching/")}
    for v in variants:
        if not re.search(r"^\| `%s` \|" % re.escape(v), table, re.M):
            fail("docs/guide/variants.md: no row '| `%s` |'" % v)
        word = re.compile(r"(?<![\w])%s(?![\w])" % re.escape(v))
        if not any(word.search(t) for t in chapters.values()):
            fail("docs/teaching/: no chapter names %s" % v)
    moved = []
    quotes = 0
    for p, t in docs.items():
        n = check_quotes(root, p, t, fail, moved)
        quotes += n
        if p.startswith("docs/teaching/") and n == 0 and p not in NO_KERNEL_CHAPTERS:
            fail("%s: quotes no kernel lines (a fenced block headed `// cl/FILE:Lm-Ln`)" % p)
    if "--fix" in sys.argv[3:]:
        for p, old, new in moved:
            docs[p] = docs[p].replace(old + "\n", new + "\n", 1)
            with open(os.path.join(root, p), "w", encoding="utf-8") as f:
                f.write(docs[p])
            print("fixed %s: %s -> %s" % (p, old, new))
    if quotes < 8:
        fail("only %d kernel quotes found in the docs" % quotes)
    for p, t in docs.items():
        check_compile_tables(root, p, t, fail)
    # Results of record: each file named in the docs, each name in the docs a file.
    results = os.path.join(root, "bench", "results")
    kept = set()
    for base, _, files in os.walk(results):
        kept |= {os.path.relpath(os.path.join(base, f), results) for f in files}
    named = set()
    for p, t in docs.items():
        for name in RECORD_NAME.findall(t):
            named.add(name)
            if name not in kept and not name.endswith(("-", ".")):
                fail("%s: names bench/results/%s, which is not there" % (p, name))
    for f in sorted(kept - named):
        if f != "README.md":
            fail("bench/results/%s: named in no document" % f)
    # One form of the command: `xconv`; the build tree's path is said where the docs start.
    for p, t in docs.items():
        if p not in BUILD_PATH_PAGES and "build/xconv" in t:
            fail("%s: writes build/xconv; the docs write the command as xconv" % p)
    for p, t in docs.items():
        for target in LINK.findall(t):
            if "://" in target or target.startswith("mailto:"):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(p), target))
            if not os.path.exists(os.path.join(root, path)) and path not in PENDING:
                fail("%s: link to %s, which is not there" % (p, target))
    for f in failures:
        print("FAIL: " + f)
    print("docs: %d variants, %d chapters, %d quotes, %d results files; %d failures" %
          (len(variants), len(chapters), quotes, len(kept), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
