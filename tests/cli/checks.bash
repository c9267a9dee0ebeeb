# SPDX-License-Identifier: MIT
# Sourced by the CLI tests (not a test itself: ctest runs tests/cli/*.sh): `check DESCRIPTION
# COMMAND...` runs COMMAND and counts it in $checks, and a failure in $failures with a FAIL line.
failures=0
checks=0
check() {
    local what=$1
    shift
    checks=$((checks + 1))
    if ! "$@"; then
        failures=$((failures + 1))
        echo "FAIL: $what" >&2
    fi
}

# `isolate_cache DIR` points XDG_CACHE_HOME at DIR, so that xconv's peaks file is the test's own,
# while PoCL keeps its kernel cache where it was (it lives under XDG_CACHE_HOME too).
isolate_cache() {
    export POCL_CACHE_DIR=${POCL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pocl/kcache}
    export XDG_CACHE_HOME=$1
}
