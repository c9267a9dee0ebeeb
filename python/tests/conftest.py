# SPDX-License-Identifier: MIT
"""pytest's setup: the package from this folder, the device the tests run on, and a float64
NumPy reference of conv2d with its epilogue."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

# The device under test ($XCONV_TEST_DEVICE, "pocl" by default: PoCL's CPU device).
DEVICE = os.environ.get("XCONV_TEST_DEVICE", "pocl")


@pytest.fixture
def device():
    return DEVICE


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def reference(x, w, bias=None, stride=1, pad=0, dilation=1, groups=1, activation=None,
              pool=None, pool_stride=None, pool_pad=0):
    """Returns (y, scale): conv2d in float64 with its epilogue, and per output the sum of |x*w|
    over its terms (plus |bias|), max-pooled like y, to measure errors in."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(pad), _pair(dilation)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    p = (h + 2 * ph - dh * (r - 1) - 1) // sh + 1
    q = (wd + 2 * pw - dw * (s - 1) - 1) // sw + 1
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    y, scale = np.zeros((n, k, p, q)), np.zeros((n, k, p, q))
    kg = k // groups
    for g in range(groups):
        xg, wg = xp[:, g * cg:(g + 1) * cg], w[g * kg:(g + 1) * kg]
        for i in range(r):
            for j in range(s):
                patch = xg[:, :, i * dh:i * dh + sh * (p - 1) + 1:sh,
                           j * dw:j * dw + sw * (q - 1) + 1:sw]
                y[:, g * kg:(g + 1) * kg] += np.einsum("ncpq,kc->nkpq", patch, wg[:, :, i, j])
                scale[:, g * kg:(g + 1) * kg] += np.einsum("ncpq,kc->nkpq", np.abs(patch),
                                                           np.abs(wg[:, :, i, j]))
    if bias is not None:
        y += bias.astype(np.float64)[None, :, None, None]
        scale += np.abs(bias.astype(np.float64))[None, :, None, None]
    if activation == "relu":
        y = np.maximum(y, 0)
    elif activation == "relu6":
        y = np.clip(y, 0, 6)
    if pool:
        y, scale = _maxpool(y, pool, pool_stride or pool, pool_pad), \
            _maxpool(scale, pool, pool_stride or pool, pool_pad)
    return y, np.maximum(scale, 1e-30)


def _maxpool(y, window, stride, pad):
    """Max-pools y (N x K x P x Q) with -infinity padding."""
    (wh, ww), (sh, sw), (ph, pw) = _pair(window), _pair(stride), _pair(pad)
    yp = np.pad(y, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=-np.inf)
    oh = (y.shape[2] + 2 * ph - wh) // sh + 1
    ow = (y.shape[3] + 2 * pw - ww) // sw + 1
    out = np.full(y.shape[:2] + (oh, ow), -np.inf)
    for i in range(wh):
        for j in range(ww):
            out = np.maximum(out, yp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw])
    return out
