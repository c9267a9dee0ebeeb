#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run on a machine with network (Debian 12): downloads the Debian packages a GPU host without
# network needs into .gpu/debs (ignored by git; carry it to the GPU host with the build folder).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu/debs
cd .gpu/debs
# The OpenCL ICD loader, CLBlast (the reference path and a peer), Jansson (the results reader)
# and clinfo.
apt-get download ocl-icd-libopencl1 libclblast1 libjansson4 clinfo
ls -l
