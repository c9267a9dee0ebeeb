# SPDX-License-Identifier: MIT
"""conv2d on NumPy arrays, the devices and variants, and what a plan does, over libxconv."""

import atexit
import ctypes
import os
import threading
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np

from . import _lib
from ._lib import CAutoInfo, CDeviceInfo, CError, CProblem, CStepInfo

# ---------------------------------------------------------------------------------------------
# Errors

XCONV_ERR_INVALID, XCONV_ERR_PARSE, XCONV_ERR_NOT_APPLICABLE, XCONV_ERR_NOT_FOUND = -1, -2, -4, -9


class Error(RuntimeError):
    """A call into libxconv failed. str(e) is the library's message; e.status its xconv_status
    (a negative number) and e.status_name the status in words."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.status_name = _lib.lib().xconv_status_to_string(status).decode()


class InvalidError(Error, ValueError):
    """A bad argument or descriptor (XCONV_ERR_INVALID, XCONV_ERR_PARSE)."""


class NotApplicableError(Error):
    """The variant does not handle this problem on this device (XCONV_ERR_NOT_APPLICABLE)."""


class NotFoundError(Error, LookupError):
    """An unknown name: a variant or a device selector that matches nothing."""


def _raise(err: CError):
    """Raises the exception class that fits err's status, with the library's message."""
    status = err.status
    msg = err.msg.decode(errors="replace")
    cls = (InvalidError if status in (XCONV_ERR_INVALID, XCONV_ERR_PARSE)
           else NotApplicableError if status == XCONV_ERR_NOT_APPLICABLE
           else NotFoundError if status == XCONV_ERR_NOT_FOUND else Error)
    raise cls(status, msg)


def library_path() -> str:
    """Returns the file libxconv was loaded from (loading it: OSError when it is not found)."""
    return _lib.path()


# ---------------------------------------------------------------------------------------------
# Devices

@dataclass(frozen=True)
class DeviceInfo:
    """One device as the library lists it; `selector` ("opencl:0", "cuda:1") opens it."""
    index: int
    selector: str
    label: str
    backend: str
    name: str
    platform: str
    vendor: str
    driver: str
    version: str
    is_gpu: bool
    is_cpu: bool
    compute_units: int
    clock_mhz: int
    global_mem_bytes: int
    local_mem_bytes: int
    max_alloc_bytes: int
    fp64: bool


def _device_info(index: int, c: CDeviceInfo) -> DeviceInfo:
    """Returns the Python view of one xconv_device_info."""
    lib = _lib.lib()
    label = ctypes.create_string_buffer(320)
    lib.xconv_device_label(ctypes.byref(c), label, len(label))
    backend = lib.xconv_backend_name(c.backend).decode()
    return DeviceInfo(index=index, selector=f"{backend}:{c.backend_index}",
                      label=label.value.decode(), backend=backend, name=c.name.decode(),
                      platform=c.platform.decode(), vendor=c.vendor.decode(),
                      driver=c.driver.decode(), version=c.version.decode(),
                      is_gpu=c.is_gpu, is_cpu=c.is_cpu, compute_units=c.compute_units,
                      clock_mhz=c.clock_mhz, global_mem_bytes=c.global_mem_bytes,
                      local_mem_bytes=c.local_mem_bytes, max_alloc_bytes=c.max_alloc_bytes,
                      fp64=c.fp64)


class _List:
    """A snapshot of every backend's devices (xconv_devices_enumerate), freed with the object."""

    def __init__(self):
        lib, err = _lib.lib(), CError()
        self.lib = lib
        self.handle = lib.xconv_devices_enumerate(0xFFFFFFFF, ctypes.byref(err))
        if not self.handle:
            _raise(err)

    def __del__(self):
        if getattr(self, "handle", None):
            self.lib.xconv_devices_free(self.handle)

    def count(self) -> int:
        return self.lib.xconv_devices_count(self.handle)

    def at(self, index: int):
        return self.lib.xconv_devices_info_at(self.handle, index).contents


def _list() -> _List:
    """Returns every backend's devices."""
    return _List()


def devices() -> List[DeviceInfo]:
    """Returns every device of every backend built into the library, in the order the command
    line's `xconv devices` lists them."""
    devs = _list()
    return [_device_info(i, devs.at(i)) for i in range(devs.count())]


class _OpenDevice:
    """An open device with the default cache attached, and the lock its calls take (a device
    belongs to one thread at a time)."""

    def __init__(self, handle, cache, info: DeviceInfo):
        self.handle, self.cache, self.info = handle, cache, info
        self.lock = threading.Lock()


_open = {}  # selector -> _OpenDevice, kept open for the process (programs stay compiled)
_open_lock = threading.Lock()


def _env(name: str) -> Optional[bytes]:
    """Returns the environment variable's value as bytes, None when unset."""
    value = os.environ.get(name)
    return None if value is None else value.encode()


def _selector(device) -> str:
    """Returns the library's selector for device: None (the first GPU, else the first CPU), an
    int (an index of devices()), a DeviceInfo or a selector string ("pocl", "cuda:0")."""
    if device is None:
        return ""
    if isinstance(device, DeviceInfo):
        return device.selector
    if isinstance(device, bool) or not isinstance(device, (int, str)):
        raise TypeError(f"device: wants None, an int, a str or a DeviceInfo, not "
                        f"{type(device).__name__}")
    return str(device)


def _device(device) -> _OpenDevice:
    """Opens the device that `device` selects (once a process) with the default cache, the one
    the command line uses, attached: auto reads the find-db `xconv find` writes."""
    lib = _lib.lib()
    sel = _selector(device)
    with _open_lock:
        if sel in _open:
            return _open[sel]
        devs = _list()
        err = CError()
        index = lib.xconv_devices_select(devs.handle, sel.encode(), ctypes.byref(err))
        if index < 0:
            _raise(err)
        info = _device_info(index, devs.at(index))
        if info.selector in _open:  # the same device under another selector
            _open[sel] = _open[info.selector]
            return _open[sel]
        handle = lib.xconv_device_open_info(ctypes.byref(devs.at(index)), ctypes.byref(err))
        if not handle:
            _raise(err)
        cache_err = CError()
        cache = lib.xconv_cache_open_default(_env("XCONV_CACHE_DIR"), _env("XDG_CACHE_HOME"),
                                             _env("HOME"), 0, ctypes.byref(cache_err))
        lib.xconv_device_set_cache(handle, cache)  # NULL: no cache, auto uses its rules
        _open[sel] = _open[info.selector] = _OpenDevice(handle, cache, info)
        return _open[sel]


@atexit.register
def _close_all():
    """Closes every device opened, then their caches."""
    if _lib._lib is None:
        return
    for dev in {id(d): d for d in _open.values()}.values():
        _lib._lib.xconv_device_close(dev.handle)
        _lib._lib.xconv_cache_close(dev.cache)
    _open.clear()


# ---------------------------------------------------------------------------------------------
# The problem

_ACTIVATIONS = {None: 0, "none": 0, "relu": 1, "relu6": 2}


def _pair(value, name: str, least: int) -> Tuple[int, int]:
    """Returns (h, w) from an int or a pair of ints, each at least `least`."""
    items = value if isinstance(value, (tuple, list)) else (value, value)
    if len(items) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                  for v in items):
        raise TypeError(f"{name}: wants an int or a pair of ints, not {value!r}")
    if min(items) < least:
        raise ValueError(f"{name}: wants values of at least {least}, not {value!r}")
    return int(items[0]), int(items[1])


def _problem(x_shape, w_shape, bias, stride, pad, dilation, groups, activation, pool,
             pool_stride, pool_pad) -> CProblem:
    """Returns the checked xconv_problem of conv2d's arguments; raises InvalidError with the
    library's message for a problem that breaks one of its rules."""
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"x wants 4 dimensions (N, C, H, W) and w 4 (K, C/groups, R, S), not "
                         f"{tuple(x_shape)} and {tuple(w_shape)}")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"groups: wants a positive int, not {groups!r}")
    if w_shape[1] * groups != x_shape[1]:
        raise ValueError(f"w's shape {tuple(w_shape)} wants C/groups = {w_shape[1]} input "
                         f"channels a group, but x has C = {x_shape[1]} and groups = {groups}")
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation: wants None, 'relu' or 'relu6', not {activation!r}")
    p = _lib.lib().xconv_problem_default()
    p.n, p.c, p.h, p.w = (int(v) for v in x_shape)
    p.k, _, p.r, p.s = (int(v) for v in w_shape)
    p.stride_h, p.stride_w = _pair(stride, "stride", 1)
    p.pad_h, p.pad_w = _pair(pad, "pad", 0)
    p.dil_h, p.dil_w = _pair(dilation, "dilation", 1)
    p.groups = int(groups)
    p.epi.bias = 1 if bias else 0
    p.epi.act = _ACTIVATIONS[activation]
    if pool is not None and pool != 0:
        p.epi.pool_h, p.epi.pool_w = _pair(pool, "pool", 1)
        stride = pool if pool_stride is None else pool_stride
        p.epi.pool_stride_h, p.epi.pool_stride_w = _pair(stride, "pool_stride", 1)
        p.epi.pool_pad_h, p.epi.pool_pad_w = _pair(pool_pad, "pool_pad", 0)
    elif pool_stride is not None or pool_pad != 0:
        raise ValueError("pool_stride and pool_pad want a pool window (pool=...)")
    err = CError()
    if _lib.lib().xconv_problem_check(ctypes.byref(p), ctypes.byref(err)) != 0:
        _raise(err)
    return p


def _format(p: CProblem) -> str:
    """Returns the canonical SPEC of p."""
    buf = ctypes.create_string_buffer(512)
    _lib.lib().xconv_shape_format(ctypes.byref(p), buf, len(buf))
    return buf.value.decode()


def _parse(shape: str) -> CProblem:
    """Returns the checked problem of a SPEC string; InvalidError names what is wrong."""
    if not isinstance(shape, str):
        raise TypeError(f"shape: wants a SPEC string such as 'n=1,c=3,h=32,w=32,k=8,r=3', not "
                        f"{type(shape).__name__}")
    p, err = CProblem(), CError()
    if _lib.lib().xconv_shape_parse(shape.encode(), ctypes.byref(p), ctypes.byref(err)) != 0:
        _raise(err)
    return p


def spec(x_shape, w_shape, *, bias=False, stride=1, pad=0, dilation=1, groups=1,
         activation=None, pool=None, pool_stride=None, pool_pad=0) -> str:
    """Returns the SPEC string ("n=1,c=3,h=32,w=32,k=8,r=3,pad=1") of the convolution conv2d
    would run for arrays of these shapes and these options, for explain, bench and find."""
    return _format(_problem(tuple(x_shape), tuple(w_shape), bias, stride, pad, dilation, groups,
                            activation, pool, pool_stride, pool_pad))


# ---------------------------------------------------------------------------------------------
# conv2d

def _floats(a, name: str, ndim: int) -> np.ndarray:
    """Returns a as a C-contiguous float32 array of ndim dimensions; TypeError for another
    dtype (nothing is converted silently)."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{name}: wants a NumPy array, not {type(a).__name__}")
    if a.dtype != np.float32:
        raise TypeError(f"{name}: wants float32, not {a.dtype} (use {name}.astype(np.float32))")
    if a.ndim != ndim:
        raise ValueError(f"{name}: wants {ndim} dimensions, not {a.ndim} (shape {a.shape})")
    return np.ascontiguousarray(a)


def _ptr(a: Optional[np.ndarray]):
    """Returns a float pointer to a's data, or None."""
    return None if a is None else a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


def conv2d(x, w, bias=None, *, stride=1, pad=0, dilation=1, groups=1, activation=None,
           pool=None, pool_stride=None, pool_pad=0, variant="auto", device=None) -> np.ndarray:
    """Returns y = pool(activation(conv2d(x, w) + bias)) as a new float32 array.

    x is N x C x H x W and w K x C/groups x R x S, float32 (cross-correlation, as in deep
    learning frameworks); bias None or K floats. stride, pad, dilation, pool, pool_stride and
    pool_pad take an int or an (h, w) pair; activation None, "relu" or "relu6"; pool a max-pool
    window (pool_stride defaults to it). variant is "auto" or a name from variants(); device None
    (the first GPU, else the first CPU), an index of devices(), a DeviceInfo or a selector
    ("pocl", "cuda:0"). The result is N x K x P x Q, or pooled N x K x PH x PW. Raises
    TypeError/ValueError for bad arguments and xconv.Error (InvalidError, NotApplicableError,
    NotFoundError) with the library's message for what the library refuses."""
    x = _floats(x, "x", 4)
    w = _floats(w, "w", 4)
    if bias is not None:
        bias = _floats(bias, "bias", 1)
        if bias.shape[0] != w.shape[0]:
            raise ValueError(f"bias: wants K = {w.shape[0]} values, not {bias.shape[0]}")
    if not isinstance(variant, str):
        raise TypeError(f"variant: wants a str, not {type(variant).__name__}")
    p = _problem(x.shape, w.shape, bias is not None, stride, pad, dilation, groups, activation,
                 pool, pool_stride, pool_pad)
    lib = _lib.lib()
    y = np.empty((p.n, p.k, lib.xconv_problem_y_h(ctypes.byref(p)),
                  lib.xconv_problem_y_w(ctypes.byref(p))), dtype=np.float32)
    dev = _device(device)
    err = CError()
    with dev.lock:
        st = lib.xconv_forward(dev.handle, ctypes.byref(p), variant.encode(), None, _ptr(x),
                               _ptr(w), _ptr(bias), _ptr(y), ctypes.byref(err))
    if st != 0:
        _raise(err)
    return y


# ---------------------------------------------------------------------------------------------
# Variants and plans

@dataclass(frozen=True)
class VariantInfo:
    """One variant of the registry; `applies` and `reason` say whether it runs the shape given
    to variants() on its device (None when no shape was given)."""
    name: str
    family: str
    summary: str
    accuracy: str
    notes: str
    backends: Tuple[str, ...]
    applies: Optional[bool] = None
    reason: str = ""


def variants(shape: Optional[str] = None, device=None) -> List[VariantInfo]:
    """Returns every variant in listing order (`xconv variants`); with shape (a SPEC string),
    each says whether it applies to the shape on the device and, if not, why."""
    lib = _lib.lib()
    p = _parse(shape) if shape is not None else None
    dev = _device(device) if p is not None else None
    out = []
    for i in range(lib.xconv_variant_count()):
        v = lib.xconv_variant_at(i)
        c = lib.xconv_variant_get_info(v).contents
        backends = tuple(lib.xconv_backend_name(b).decode() for b in range(_lib.BACKEND_COUNT)
                         if c.backends & (1 << b))
        applies, reason = None, ""
        if p is not None:
            buf = ctypes.create_string_buffer(1024)
            with dev.lock:
                applies = bool(lib.xconv_variant_applies(v, dev.handle, ctypes.byref(p), buf,
                                                         len(buf)))
            reason = "" if applies else buf.value.decode()
        out.append(VariantInfo(c.name.decode(), c.family.decode(), c.summary.decode(),
                               c.accuracy.decode(), c.notes.decode(), backends, applies, reason))
    return out


@dataclass(frozen=True)
class Step:
    """One step a plan enqueues per run (a kernel, or a vendor library's call)."""
    label: str
    kernel: str
    source: Optional[str]
    global_size: Tuple[int, ...]
    local_size: Tuple[int, ...]
    local_mem_bytes: int
    options: str


@dataclass(frozen=True)
class Plan:
    """What a variant plans for one shape on one device (`xconv explain`)."""
    shape: str
    device: str
    requested: str
    variant: str
    summary: str
    workspace_bytes: int
    fused: Tuple[str, ...]
    auto_why: Optional[str]
    steps: List[Step] = field(default_factory=list)


def _text(b: Optional[bytes]) -> Optional[str]:
    """Returns a C string as str, None for NULL."""
    return b.decode() if b else None


def _steps(lib, plan) -> List[Step]:
    """Returns the steps of a plan."""
    steps = []
    for i in range(lib.xconv_plan_step_count(plan)):
        s, err = CStepInfo(), CError()
        if lib.xconv_plan_step_get_info(plan, i, ctypes.byref(s), ctypes.byref(err)) != 0:
            _raise(err)
        options = ctypes.create_string_buffer(4096)
        if lib.xconv_plan_step_options(plan, i, options, ctypes.sizeof(options)) < 0:
            options.value = b""
        steps.append(Step(_text(s.label), _text(s.kernel), _text(s.source),
                          tuple(s.global_[:s.dims]), tuple(s.local[:s.dims]),
                          s.local_mem_bytes, _text(options.value) or ""))
    return steps


def explain(shape: str, variant: str = "auto", device=None) -> Plan:
    """Returns what `variant` ("auto" by default) plans for shape (a SPEC string; spec() makes
    one from arrays' shapes) on the device: the variant auto chose and why, the planner's
    summary, the workspace, the fused epilogue parts and every step. Builds and runs nothing.
    Raises NotApplicableError with the reason when the variant does not apply."""
    p = _parse(shape)
    lib = _lib.lib()
    dev = _device(device)
    err = CError()
    with dev.lock:
        plan = lib.xconv_plan_create(dev.handle, ctypes.byref(p), variant.encode(), None,
                                     ctypes.byref(err))
        if not plan:
            _raise(err)
        try:
            info = CAutoInfo()
            why = (info.why.decode() if lib.xconv_plan_auto_info(plan, ctypes.byref(info))
                   else None)
            fused_bits = lib.xconv_plan_fused(plan)
            name = lib.xconv_variant_get_info(lib.xconv_plan_variant(plan)).contents.name
            return Plan(shape=_format(p), device=dev.info.label, requested=variant,
                        variant=name.decode(), summary=lib.xconv_plan_summary(plan).decode(),
                        workspace_bytes=lib.xconv_plan_workspace_size(plan),
                        fused=tuple(n for bit, n in ((1, "bias_act"), (2, "pool"))
                                    if fused_bits & bit),
                        auto_why=why, steps=_steps(lib, plan))
        finally:
            lib.xconv_plan_destroy(plan)
