# SPDX-License-Identifier: MIT
# Sourced by the bench scripts called as SCRIPT XCONV_BINARY OUT [extra xconv bench options...]
# with bench_out naming OUT in the usage line: sets xconv and out from the first two arguments
# and shifts them off, leaving the extra options in "$@"; prints the usage and exits 2 when
# either is missing.
set -euo pipefail
if [[ $# -lt 2 ]]; then
    echo "usage: $0 XCONV_BINARY ${bench_out} [extra options]" >&2
    exit 2
fi
xconv=$1
out=$2
shift 2
