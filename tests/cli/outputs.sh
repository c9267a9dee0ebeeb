#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output files honour what is there: --output, --json, --csv and report's -o refuse a directory,
# a device node, a FIFO, a read-only file and a missing directory before any work (exit 2, no
# file left behind, the target untouched); a symbolic link is followed to its target, which
# keeps its mode; `--json -` writes to standard output. The device node is made with mknod in
# the test's own directory when running as root (skipped otherwise, with a message), and the
# read-only case also runs as an ordinary user (nobody) when root can switch to one.
# Usage: outputs.sh PATH/TO/xconv
set -u
xconv=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# shellcheck source=checks.bash
source "$(dirname "${BASH_SOURCE[0]}")/checks.bash"

# A shape that runs on the host: no device is needed to check where its output goes.
run=(run --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref)

# refused WHAT PATTERN COMMAND...: exits 2 with PATTERN on stderr, before any work ("random
# inputs" is the run's first line) and with nothing new in the directory.
refused() {
    local what=$1 pattern=$2
    shift 2
    local before after
    before=$(ls -A "$tmp/d")
    "$xconv" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    after=$(ls -A "$tmp/d")
    check "$what: exit 2 (got $rc)" test "$rc" -eq 2
    check "$what: says '$pattern'" grep -qE -- "$pattern" "$tmp/err"
    check "$what: refused before the work" bash -c "! grep -q 'random inputs' '$tmp/out'"
    check "$what: leaves nothing behind" test "$before" = "$after"
    [ "$rc" -eq 2 ] || cat "$tmp/out" "$tmp/err" >&2
}

mkdir "$tmp/d"
cd "$tmp/d" || exit 1
refused "missing directory" "^xconv run: --output nodir/y.npy: the directory nodir does not exist" \
    "${run[@]}" --output nodir/y.npy
refused "a directory" "is a directory" "${run[@]}" --output .
mkfifo fifo
refused "a FIFO" "fifo is a FIFO; xconv writes regular files only" "${run[@]}" --output fifo
refused "a FIFO as --json" "fifo is a FIFO.*- writes to standard output" \
    validate --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref --json fifo
refused "/dev/null" "/dev/null is a character device" "${run[@]}" --output /dev/null
echo keep >ro.npy
chmod 444 ro.npy
refused "a read-only file" "ro.npy is read-only \(mode 0444\)" "${run[@]}" --output ro.npy
check "the read-only file is untouched" test "$(cat ro.npy)" = keep
refused "a read-only file as --csv" "is read-only" \
    validate --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref --csv ro.npy
refused "a read-only file as report -o" "is read-only" report nothing.json -o ro.npy
refused "--json and --csv both to stdout" "only one of them can write to standard output" \
    validate --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref --json - --csv -
refused "--output -" "cannot go to standard output" "${run[@]}" --output -

# A symbolic link to a regular file: the target is written, the link stays a link, and the
# target keeps its mode.
echo old >target.npy
chmod 640 target.npy
ln -s target.npy link.npy
"$xconv" "${run[@]}" --output link.npy >"$tmp/out" 2>"$tmp/err"
check "a link: exit 0" test $? -eq 0
check "a link: says it follows it" grep -q "link.npy is a symbolic link: writing its target" \
    "$tmp/err"
check "a link stays a link" test -L link.npy
check "its target got the array" bash -c "head -c 6 target.npy | grep -q NUMPY"
check "its target kept mode 640" test "$(stat -c %a target.npy)" = 640
# A link to a directory, to a FIFO, and a dangling one into a missing directory are refused.
ln -s . dirlink
refused "a link to a directory" "the target of the symbolic link dirlink.*is a directory" \
    "${run[@]}" --output dirlink
ln -s fifo fifolink
refused "a link to a FIFO" "is a FIFO" "${run[@]}" --output fifolink
ln -s nowhere/y.npy dangling
refused "a dangling link into a missing directory" "the directory ./nowhere does not exist" \
    "${run[@]}" --output dangling
ln -s loop2 loop1
ln -s loop1 loop2
refused "a loop of links" "cannot follow the symbolic link" "${run[@]}" --output loop1
# A dangling link whose directory exists: its target is made.
ln -s made.npy tomake
"$xconv" "${run[@]}" --output tomake >/dev/null 2>&1
check "a dangling link makes its target" test -f made.npy -a -L tomake

# A new file gets the usual mode of a new file (0666 less the umask), not a private one.
(umask 022 && "$xconv" "${run[@]}" --output fresh.npy >/dev/null 2>&1)
check "a new file is 644 under umask 022" test "$(stat -c %a fresh.npy)" = 644

# A results file with a second name (a hard link) is rewritten in place, so both names hold the
# new records; a streamed file replaced by rename keeps the mode of the file it replaces.
echo old >linked.json
ln linked.json other-name.json
"$xconv" validate --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref --json linked.json \
    >/dev/null 2>&1
check "a hard-linked --json is valid JSON after the run" python3 -c 'import json,sys
assert len(json.load(open(sys.argv[1]))["records"]) == 1' linked.json
check "and its other name holds the same file" cmp -s linked.json other-name.json
echo old >kept.json && chmod 600 kept.json
"$xconv" validate --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref --json kept.json >/dev/null 2>&1
check "a streamed --json keeps the mode of the file it replaces" \
    test "$(stat -c %a kept.json)" = 600
check "and leaves no temporary file beside it" bash -c '! ls | grep -q "\.tmp\."'

# --json - writes the JSON to standard output alone (the table goes to stderr).
"$xconv" validate --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref --json - \
    >"$tmp/stdout.json" 2>"$tmp/err"
check "--json - exits 0" test $? -eq 0
check "--json - is JSON on stdout" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["records"][0]["variant"] == "cpu_ref"' "$tmp/stdout.json"
check "--json - made no file named -" test ! -e ./-
check "--json -: the table is on stderr" grep -q "1 record: 0 failed" "$tmp/err"

# A character device node made here (root only).
if [ "$(id -u)" -eq 0 ]; then
    mknod node c 1 3
    refused "a device node made with mknod" "node is a character device" "${run[@]}" --output node
    check "the node is still a character device" test -c node
    refused "a device node as --json" "is a character device" \
        validate --shape n=1,c=2,h=6,w=6,k=2,r=3 --variant cpu_ref --json node
    ln -s node nodelink
    refused "a link to a device node" "is a character device" "${run[@]}" --output nodelink
    check "the node behind the link is still a character device" test -c node -a -L nodelink
else
    echo "note: not root: the mknod device-node case is skipped"
fi

# As an ordinary user, a read-only file is refused too (rename would have replaced it).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    mkdir "$tmp/user"
    echo keep >"$tmp/user/ro.npy"
    chmod 444 "$tmp/user/ro.npy"
    chown -R nobody "$tmp/user"
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
        "$xconv" "${run[@]}" --output "$tmp/user/ro.npy" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "as nobody, a read-only file: exit 2 (got $rc)" test "$rc" -eq 2
    check "as nobody, it says read-only" grep -q "is read-only (mode 0444)" "$tmp/err"
    check "as nobody, the file is untouched" test "$(cat "$tmp/user/ro.npy")" = keep
else
    echo "note: cannot run as an ordinary user here: the read-only case ran as $(id -un) only"
fi

echo "cli outputs: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
