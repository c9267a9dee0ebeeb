#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Chooses the cuDNN 9 that xconv loads: the directory $XCONV_CUDNN_DIR names, else the newest
# libcudnn.so.9 found under the ROOTs (default /). Prints the chosen directory on stdout (nothing
# when there is none) and which one it is, with its version and the others found, on stderr.
# Usage: cudnn_pick.sh [ROOT ...]   (scripts/gpu_env.sh calls it)
set -u

# version_of LIB: prints LIB's cuDNN version: from the file its name resolves to
# (libcudnn.so.9.19.0), else from cudnn_version.h beside it (a Python wheel's include/), else
# from the library itself (cudnnGetVersion through Python), else 0.
version_of() {
    local real base dir header v
    real=$(realpath "$1" 2>/dev/null || echo "$1")
    base=${real##*/}
    if [[ $base =~ ^libcudnn\.so\.([0-9]+\.[0-9]+\.[0-9]+)$ ]]; then
        echo "${BASH_REMATCH[1]}"
        return
    fi
    dir=$(dirname "$real")
    for header in "$dir/../include/cudnn_version.h" "$dir/cudnn_version.h"; do
        if [ -f "$header" ]; then
            v=$(awk '/#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) / {printf "%s%s", sep, $3; sep="."}' \
                "$header")
            [ -n "$v" ] && { echo "$v"; return; }
        fi
    done
    v=$(python3 -c 'import ctypes,sys
v = ctypes.CDLL(sys.argv[1]).cudnnGetVersion()
print("%d.%d.%d" % (v // 10000, v % 10000 // 100, v % 100))' "$1" 2>/dev/null)
    echo "${v:-0}"
}

if [ -n "${XCONV_CUDNN_DIR:-}" ]; then
    if [ -e "$XCONV_CUDNN_DIR/libcudnn.so.9" ]; then
        echo "cudnn_pick: cuDNN $(version_of "$XCONV_CUDNN_DIR/libcudnn.so.9") from" \
             "$XCONV_CUDNN_DIR (XCONV_CUDNN_DIR)" >&2
        echo "$XCONV_CUDNN_DIR"
        exit 0
    fi
    echo "cudnn_pick: XCONV_CUDNN_DIR=$XCONV_CUDNN_DIR holds no libcudnn.so.9; no cuDNN chosen" >&2
    exit 1
fi

[ $# -gt 0 ] || set -- /
found=()
while IFS= read -r lib; do
    found+=("$(version_of "$lib") $(dirname "$lib")")
done < <(find "$@" -name 'libcudnn.so.9' -not -path '/proc/*' 2>/dev/null | sort -u)
if [ "${#found[@]}" -eq 0 ]; then
    echo "cudnn_pick: no libcudnn.so.9 under $*; the cuDNN rows will say so" >&2
    exit 0
fi
# Newest version first (sort -V orders 9.9.0 before 9.19.0); the same version: the first path.
mapfile -t sorted < <(printf '%s\n' "${found[@]}" | sort -k1,1Vr -k2,2 -s)
chosen=${sorted[0]#* }
others=""
for entry in "${sorted[@]:1}"; do
    others+="; also ${entry%% *} in ${entry#* }"
done
echo "cudnn_pick: cuDNN ${sorted[0]%% *} from $chosen, the newest of ${#sorted[@]} found$others" \
     "(XCONV_CUDNN_DIR=DIR chooses another)" >&2
echo "$chosen"
