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
