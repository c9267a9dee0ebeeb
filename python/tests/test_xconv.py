# SPDX-License-Identifier: MIT
"""The Python package on a real device (PoCL by default): conv2d against NumPy's float64
reference with every option, the bad arguments it refuses, devices, variants, explain, bench
and find records, and results files."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import xconv
from conftest import reference

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
rng = np.random.default_rng(1)


def rand(*shape):
    return rng.uniform(-1, 1, size=shape).astype(np.float32)


def check_close(y, ref, scale, bound=1e-5):
    """Asserts y has ref's shape and each element is within bound of it, in units of the sum
    of |x*w| of its terms (the library's normalised error)."""
    assert y.dtype == np.float32 and y.shape == ref.shape
    err = np.abs(y.astype(np.float64) - ref) / scale
    assert np.all(np.isfinite(y)) and err.max() <= bound, f"max normalised error {err.max()}"


# ---------------------------------------------------------------------------------------------
# conv2d against the float64 reference

CASES = [
    dict(),
    dict(stride=2, pad=1),
    dict(pad=(1, 2), dilation=2),
    dict(stride=(1, 2), groups=2),
    dict(pad=1, bias=True, activation="relu"),
    dict(pad=1, bias=True, activation="relu6", pool=2),
    dict(pad=1, activation="relu", pool=3, pool_stride=2, pool_pad=1),
]


@pytest.mark.parametrize("case", CASES, ids=[",".join(f"{k}={v}" for k, v in c.items()) or
                                             "plain" for c in CASES])
def test_conv2d_auto_matches_float64(device, case):
    case = dict(case)
    groups = case.get("groups", 1)
    x, w = rand(2, 4, 11, 13), rand(6, 4 // groups, 3, 3)
    bias = rand(6) if case.pop("bias", False) else None
    y = xconv.conv2d(x, w, bias, device=device, **case)
    check_close(y, *reference(x, w, bias, **case))


def test_conv2d_depthwise_and_1x1(device):
    x = rand(1, 8, 9, 9)
    w = rand(8, 1, 3, 3)
    check_close(xconv.conv2d(x, w, pad=1, groups=8, device=device),
                *reference(x, w, pad=1, groups=8))
    w1 = rand(16, 8, 1, 1)
    check_close(xconv.conv2d(x, w1, device=device), *reference(x, w1))


@pytest.mark.parametrize("variant", ["direct_naive", "direct_regblock", "im2col_gemm",
                                     "implicit_gemm", "winograd_f23", "fft"])
def test_conv2d_named_variants(device, variant):
    x, w = rand(2, 3, 10, 10), rand(4, 3, 3, 3)
    bound = 3e-5 if variant.startswith("winograd") else 1e-5
    check_close(xconv.conv2d(x, w, pad=1, variant=variant, device=device),
                *reference(x, w, pad=1), bound)


def test_conv2d_non_contiguous_input(device):
    x = rand(2, 3, 10, 20)[:, :, :, ::2]  # a strided view: copied, not misread
    w = rand(4, 3, 3, 3)
    check_close(xconv.conv2d(x, w, device=device), *reference(x, w))


def test_device_by_index_and_info(device):
    info = [d for d in xconv.devices()
            if device.lower() in (d.label + d.platform + d.version).lower()][0]
    x, w = rand(1, 2, 6, 6), rand(2, 2, 3, 3)
    a = xconv.conv2d(x, w, device=info, variant="direct_naive")
    b = xconv.conv2d(x, w, device=info.index, variant="direct_naive")
    assert np.array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# Bad arguments raise, with the library's message where the library refuses

def test_bad_dtype_and_dimensions(device):
    x, w = rand(1, 2, 6, 6), rand(2, 2, 3, 3)
    with pytest.raises(TypeError, match="float32"):
        xconv.conv2d(x.astype(np.float64), w, device=device)
    with pytest.raises(TypeError, match="NumPy array"):
        xconv.conv2d(x.tolist(), w, device=device)
    with pytest.raises(ValueError, match="4 dimensions"):
        xconv.conv2d(x[0], w, device=device)
    with pytest.raises(ValueError, match="groups"):
        xconv.conv2d(x, rand(2, 3, 3, 3), device=device)
    with pytest.raises(ValueError, match="bias"):
        xconv.conv2d(x, w, rand(3), device=device)
    with pytest.raises(ValueError, match="activation"):
        xconv.conv2d(x, w, activation="tanh", device=device)
    with pytest.raises(TypeError, match="stride"):
        xconv.conv2d(x, w, stride=1.5, device=device)
    with pytest.raises(ValueError, match="pool_stride"):
        xconv.conv2d(x, w, pool_stride=2, device=device)


def test_library_refusals_carry_its_message(device):
    x, w = rand(1, 2, 4, 4), rand(2, 2, 5, 5)
    with pytest.raises(xconv.InvalidError) as e:  # no output: the filter passes the input
        xconv.conv2d(x, w, device=device)
    assert e.value.status == -1 and "output" in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, xconv.Error)
    x, w = rand(1, 2, 8, 8), rand(2, 2, 3, 3)
    with pytest.raises(xconv.NotFoundError, match="direct_naive"):  # the valid names listed
        xconv.conv2d(x, w, variant="no_such_variant", device=device)
    with pytest.raises(xconv.NotApplicableError, match="1x1"):
        xconv.conv2d(x, w, variant="gemm_1x1", device=device)
    with pytest.raises(xconv.Error) as e:
        xconv.conv2d(x, w, device="no-such-device-anywhere")
    assert "no-such-device-anywhere" in str(e.value)
    with pytest.raises(xconv.InvalidError, match="pool"):  # a window larger than the output
        xconv.conv2d(x, w, pool=9, device=device)


def test_missing_library_is_a_clear_error():
    code = "import xconv; xconv.devices()"
    env = dict(os.environ, XCONV_LIBRARY="/nonexistent/libxconv.so",
               PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "libxconv not found" in out.stderr and "/nonexistent/libxconv.so" in out.stderr


# ---------------------------------------------------------------------------------------------
# Devices, variants, explain

def test_devices_and_variants(device):
    devs = xconv.devices()
    assert devs and all(d.selector.split(":")[0] in ("opencl", "cuda") for d in devs)
    assert any(device.lower() in (d.label + d.platform + d.version).lower() for d in devs)
    names = [v.name for v in xconv.variants()]
    assert "direct_naive" in names and "auto" not in names and len(set(names)) == len(names)
    applies = {v.name: v for v in xconv.variants("n=1,c=4,h=8,w=8,k=4,r=3,pad=1", device)}
    assert applies["direct_naive"].applies is True
    assert applies["gemm_1x1"].applies is False and "1x1" in applies["gemm_1x1"].reason


def test_spec_and_explain(device):
    s = xconv.spec((2, 4, 12, 12), (8, 2, 3, 3), groups=2, pad=1, bias=True, activation="relu")
    assert s == "n=2,c=4,h=12,w=12,k=8,r=3,pad=1,groups=2,bias=1,act=relu"
    plan = xconv.explain(s, device=device)
    assert plan.requested == "auto" and plan.variant in [v.name for v in xconv.variants()]
    assert plan.auto_why and plan.steps and plan.steps[0].kernel
    assert plan.shape == s and plan.summary
    named = xconv.explain(s, "direct_naive", device)
    assert named.variant == "direct_naive" and named.auto_why is None
    assert "bias_act" in named.fused
    with pytest.raises(xconv.NotApplicableError):
        xconv.explain(s, "gemm_1x1", device)
    with pytest.raises(xconv.InvalidError, match="bogus"):
        xconv.explain("n=1,bogus=3", device=device)


# ---------------------------------------------------------------------------------------------
# bench and find through the command line, results files

def test_bench_records(device):
    res = xconv.bench("n=1,c=3,h=8,w=8,k=4,r=3,pad=1", variant=["direct_naive", "auto"],
                      device=device, repeat=2, warmup=1)
    assert res.returncode == 0 and [r.variant for r in res.records] == ["direct_naive", "auto"]
    for r in res.records:
        assert r.passed and r.outcome == "pass" and r.median_ms > 0
        assert r.max_norm_err < r.threshold and r.shape == "n=1,c=3,h=8,w=8,k=4,r=3,pad=1"
    assert res.records[1].note.startswith("auto -> ")
    with pytest.raises(RuntimeError, match="bench"):
        xconv.bench("n=1,c=3,h=0,w=8,k=4,r=3", device=device)
    with pytest.raises(ValueError, match="shape"):
        xconv.bench(device=device)


def test_find_then_auto_follows_it(device):
    shape = "n=1,c=4,h=10,w=10,k=8,r=3,pad=1"
    res = xconv.find(shape, device=device, repeat=2, warmup=1, confirm=0, force=True)
    assert res.returncode == 0 and res.records
    assert all(r.outcome in ("pass", "not_applicable") for r in res.records)
    plan = xconv.explain(shape, device=device)
    assert plan.auto_why.startswith("find-db"), plan.auto_why
    timed = [r.variant for r in res.records if r.passed and r.median_ms]
    assert plan.variant in timed


def test_read_results_files(tmp_path):
    committed = os.path.join(ROOT, "bench", "results",
                             "2026-11-21-pocl2core-d6f93a9-bench_small.json")
    res = xconv.read_results(committed)
    assert res.records and res.tool == "xconv" and res.command
    assert all(isinstance(r.median_ms, (float, int, type(None))) for r in res.records)
    assert any(r.passed for r in res.records)
    bad = tmp_path / "bad.json"
    bad.write_text('{"tool": "xconv", "records": [{"device": "d", "variant": "v"}]}')
    with pytest.raises(ValueError, match=r"records\[0\]\.shape"):
        xconv.read_results(bad)
    bad.write_text('{"tool": "xconv", "records": [], "x": NaN}')
    with pytest.raises(ValueError, match="not a results file"):
        xconv.read_results(bad)
    bad.write_text(json.dumps({"records": []}))
    with pytest.raises(ValueError, match="tool"):
        xconv.read_results(bad)
    with pytest.raises(OSError):
        xconv.read_results(tmp_path / "missing.json")
