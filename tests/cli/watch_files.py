#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Runs a command that streams records to a JSON and a CSV file and reads both files as fast as
# it can while the command runs, as a user's script watching a long run would: every read must
# parse (the JSON whole, the CSV with rows of equal length). Prints "reads N invalid M records R"
# (R: the JSON's records at the end) and exits 1 if any read was invalid, or the command's own
# status when it failed.
# Usage: watch_files.py JSON CSV -- COMMAND...
import csv
import json
import os
import subprocess
import sys


def json_ok(path):
    with open(path) as f:
        return len(json.load(f)["records"])


def csv_ok(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        raise ValueError("rows of different lengths")
    return len(rows) - 1


def main():
    json_path, csv_path, sep, *command = sys.argv[1:]
    assert sep == "--" and command, __doc__
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    reads = invalid = 0
    while proc.poll() is None:
        for path, parse in ((json_path, json_ok), (csv_path, csv_ok)):
            if not os.path.exists(path):
                continue
            try:
                reads += 1
                parse(path)
            except (ValueError, KeyError, OSError) as e:
                invalid += 1
                print(f"invalid read of {path}: {e}", file=sys.stderr)
    rc = proc.wait()
    records = json_ok(json_path) if os.path.exists(json_path) else 0
    print(f"reads {reads} invalid {invalid} records {records}")
    if rc != 0:
        return rc
    return 1 if invalid else 0


sys.exit(main())
