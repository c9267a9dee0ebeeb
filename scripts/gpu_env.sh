#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Source on a GPU host without network: `source scripts/gpu_env.sh [BUNDLE_DIR]`.
# Unpacks the bundled Debian packages (scripts/gpu_bundle.sh) under BUNDLE_DIR/root, registers
# NVIDIA's OpenCL library when the driver left no ICD file, keeps the host's other ICDs (PoCL),
# and points LD_LIBRARY_PATH at CLBlast and at the cuDNN 9 that scripts/cudnn_pick.sh chooses:
# $XCONV_CUDNN_DIR when set, else the newest libcudnn.so.9 on the machine (it says which).
bundle=${1:-.gpu}
root="$bundle/root"
mkdir -p "$root" "$bundle/icd"
for deb in "$bundle"/debs/*.deb; do
    [ -e "$deb" ] && dpkg -x "$deb" "$root"
done
libdir="$(cd "$root" && pwd)/usr/lib/x86_64-linux-gnu"

# One .icd file per OpenCL library: the host's own, plus NVIDIA's when nobody registered it.
cp /etc/OpenCL/vendors/*.icd "$bundle/icd/" 2>/dev/null || true
nvidia_cl=""
for candidate in /usr/lib/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 \
                 /usr/local/nvidia/lib64/libnvidia-opencl.so.1; do
    [ -e "$candidate" ] && { nvidia_cl=$candidate; break; }
done
if [ -n "$nvidia_cl" ] && ! grep -qs nvidia-opencl "$bundle"/icd/*.icd; then
    echo "$nvidia_cl" >"$bundle/icd/nvidia.icd"
fi
export OCL_ICD_VENDORS="$(cd "$bundle/icd" && pwd)"

# cuDNN 9 may be the system's and also ship inside PyTorch's wheel (nvidia/cudnn/lib): the
# newest is chosen, not the first that find meets, and records name its version.
cudnn_dir=$(bash "$(dirname "${BASH_SOURCE[0]}")/cudnn_pick.sh" /)
export LD_LIBRARY_PATH="$libdir${cudnn_dir:+:$cudnn_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "gpu_env: OCL_ICD_VENDORS=$OCL_ICD_VENDORS ($(ls "$OCL_ICD_VENDORS" | tr '\n' ' '))"
echo "gpu_env: LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
