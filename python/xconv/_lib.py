# SPDX-License-Identifier: MIT
"""Finds the installed libxconv and declares the C functions the package calls (ctypes)."""

import ctypes
import ctypes.util
import os
import shutil
import subprocess

# ---------------------------------------------------------------------------------------------
# The C structures the package reads and fills (their layout is <xconv/xconv.h>'s)

ERROR_MSG_LEN = 512
BACKEND_COUNT = 2


class CError(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("msg", ctypes.c_char * ERROR_MSG_LEN)]


class CEpilogue(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in
                ("bias", "act", "pool_h", "pool_w", "pool_stride_h", "pool_stride_w",
                 "pool_pad_h", "pool_pad_w")]


class CProblem(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in
                ("n", "c", "h", "w", "k", "r", "s", "stride_h", "stride_w", "pad_h", "pad_w",
                 "dil_h", "dil_w", "groups")] + [("epi", CEpilogue), ("dtype", ctypes.c_int64),
                                                 ("math", ctypes.c_int64)]


class CDeviceInfo(ctypes.Structure):
    _fields_ = [
        ("backend", ctypes.c_int), ("backend_index", ctypes.c_int),
        ("platform", ctypes.c_char * 128), ("vendor", ctypes.c_char * 128),
        ("name", ctypes.c_char * 256), ("driver", ctypes.c_char * 128),
        ("version", ctypes.c_char * 128), ("is_gpu", ctypes.c_bool), ("is_cpu", ctypes.c_bool),
        ("compute_units", ctypes.c_int), ("clock_mhz", ctypes.c_int),
        ("global_mem_bytes", ctypes.c_uint64), ("local_mem_bytes", ctypes.c_uint64),
        ("max_alloc_bytes", ctypes.c_uint64), ("const_mem_bytes", ctypes.c_uint64),
        ("cache_bytes", ctypes.c_uint64), ("max_work_group_size", ctypes.c_size_t),
        ("max_work_item_sizes", ctypes.c_size_t * 3), ("preferred_multiple", ctypes.c_size_t),
        ("native_float_width", ctypes.c_int), ("max_registers_per_work_group", ctypes.c_int),
        ("max_registers_per_item", ctypes.c_int), ("max_scalar_registers", ctypes.c_int),
        ("fp64", ctypes.c_bool), ("cc_major", ctypes.c_int), ("cc_minor", ctypes.c_int),
        ("intel_mma_sub_group", ctypes.c_int),
        ("peak_gflops", ctypes.c_double), ("peak_gbps", ctypes.c_double),
        ("fp32_config", ctypes.c_uint), ("build_flags", ctypes.c_char * 192),
        ("local_mem_per_unit_bytes", ctypes.c_uint64),
    ]




class CVariantInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("family", ctypes.c_char_p),
                ("summary", ctypes.c_char_p), ("accuracy", ctypes.c_char_p),
                ("notes", ctypes.c_char_p), ("backends", ctypes.c_uint)]


class CTuning(ctypes.Structure):
    _fields_ = [("direct_tiling", ctypes.c_char * 160), ("gemm_tiles", ctypes.c_char * 64),
                ("math", ctypes.c_char * 8)]


class CAutoInfo(ctypes.Structure):
    _fields_ = [("variant", ctypes.c_void_p), ("source", ctypes.c_int), ("tuning", CTuning),
                ("db_ms", ctypes.c_double), ("stale_ignored", ctypes.c_bool),
                ("why", ctypes.c_char * 512)]


class CStepInfo(ctypes.Structure):
    _fields_ = [("label", ctypes.c_char_p), ("source", ctypes.c_char_p),
                ("kernel", ctypes.c_char_p), ("dims", ctypes.c_int),
                ("global_", ctypes.c_size_t * 3), ("local", ctypes.c_size_t * 3),
                ("local_mem_bytes", ctypes.c_size_t)]


# ---------------------------------------------------------------------------------------------
# Finding the library

LIB_ENV = "XCONV_LIBRARY"
STANDARD_DIRS = ("/usr/local/lib", "/usr/local/lib64", "/usr/lib", "/usr/lib64",
                 "/usr/lib/x86_64-linux-gnu", "/opt/xconv/lib")


def _pkg_config_libdir():
    """Returns xconv.pc's libdir when pkg-config knows xconv, else None."""
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=libdir", "xconv"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return out.stdout.strip()


def candidates():
    """Returns the paths tried for libxconv, in order, each with where it came from."""
    found = []
    env = os.environ.get(LIB_ENV)
    if env:
        path = os.path.join(env, "libxconv.so") if os.path.isdir(env) else env
        found.append((path, "$" + LIB_ENV))
    libdir = _pkg_config_libdir()
    if libdir:
        found.append((os.path.normpath(os.path.join(libdir, "libxconv.so")),
                      "pkg-config xconv"))
    name = ctypes.util.find_library("xconv")
    if name:
        found.append((name, "the linker's search path"))
    for d in STANDARD_DIRS:
        found.append((os.path.join(d, "libxconv.so"), d))
    return found


def _load():
    """Loads libxconv from the first candidate that loads; raises OSError saying what was
    tried. $XCONV_LIBRARY, when set, is the only candidate (a wrong path is an error, not a
    fallback)."""
    tried = []
    for path, origin in candidates():
        if origin != "$" + LIB_ENV and os.path.isabs(path) and not os.path.exists(path):
            tried.append(f"{path} ({origin}): not there")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({origin}): {e}")
        if origin == "$" + LIB_ENV:
            break
    raise OSError("libxconv not found; install xconv (make install PREFIX=...) and set "
                  f"${LIB_ENV} to its lib/libxconv.so, or PKG_CONFIG_PATH to its "
                  "lib/pkgconfig. Tried:\n  " + "\n  ".join(tried))


# ---------------------------------------------------------------------------------------------
# The functions

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_E = ctypes.POINTER(CError)
_I64 = ctypes.c_int64
_PROB = ctypes.POINTER(CProblem)
_FLOATS = ctypes.POINTER(ctypes.c_float)

_SIGNATURES = {
    "xconv_status_to_string": (_S, [ctypes.c_int]),
    "xconv_problem_default": (CProblem, []),
    "xconv_problem_check": (ctypes.c_int, [_PROB, _E]),
    "xconv_problem_y_h": (_I64, [_PROB]),
    "xconv_problem_y_w": (_I64, [_PROB]),
    "xconv_problem_y_elems": (_I64, [_PROB]),
    "xconv_shape_parse": (ctypes.c_int, [_S, _PROB, _E]),
    "xconv_shape_format": (ctypes.c_int, [_PROB, _S, ctypes.c_size_t]),
    "xconv_devices_enumerate": (_P, [ctypes.c_uint, _E]),
    "xconv_devices_free": (None, [_P]),
    "xconv_devices_count": (ctypes.c_int, [_P]),
    "xconv_devices_info_at": (ctypes.POINTER(CDeviceInfo), [_P, ctypes.c_int]),
    "xconv_devices_select": (ctypes.c_int, [_P, _S, _E]),
    "xconv_device_open_info": (_P, [ctypes.POINTER(CDeviceInfo), _E]),
    "xconv_device_close": (None, [_P]),
    "xconv_device_get_info": (ctypes.POINTER(CDeviceInfo), [_P]),
    "xconv_device_label": (None, [ctypes.POINTER(CDeviceInfo), _S, ctypes.c_size_t]),
    "xconv_device_set_cache": (None, [_P, _P]),
    "xconv_cache_open_default": (_P, [_S, _S, _S, ctypes.c_uint, _E]),
    "xconv_cache_open": (_P, [_S, ctypes.c_uint, _E]),
    "xconv_cache_close": (None, [_P]),
    "xconv_cache_dir": (_S, [_P]),
    "xconv_backend_name": (_S, [ctypes.c_int]),
    "xconv_variant_count": (ctypes.c_int, []),
    "xconv_variant_at": (_P, [ctypes.c_int]),
    "xconv_variant_find": (_P, [_S, _E]),
    "xconv_variant_get_info": (ctypes.POINTER(CVariantInfo), [_P]),
    "xconv_variant_applies": (ctypes.c_bool, [_P, _P, _PROB, _S, ctypes.c_size_t]),
    "xconv_forward": (ctypes.c_int, [_P, _PROB, _S, _P, _FLOATS, _FLOATS, _FLOATS, _FLOATS,
                                     _E]),
    "xconv_plan_create": (_P, [_P, _PROB, _S, _P, _E]),
    "xconv_plan_destroy": (None, [_P]),
    "xconv_plan_variant": (_P, [_P]),
    "xconv_plan_summary": (_S, [_P]),
    "xconv_plan_workspace_size": (ctypes.c_size_t, [_P]),
    "xconv_plan_fused": (ctypes.c_uint, [_P]),
    "xconv_plan_auto_info": (ctypes.c_bool, [_P, ctypes.POINTER(CAutoInfo)]),
    "xconv_plan_step_count": (ctypes.c_int, [_P]),
    "xconv_plan_step_get_info": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(CStepInfo),
                                                _E]),
    "xconv_plan_step_options": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_char_p,
                                               ctypes.c_size_t]),
}

_lib = None
_path = None


def lib():
    """Returns the loaded library (loading it on first use) with every signature declared."""
    global _lib, _path
    if _lib is None:
        handle, path = _load()
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(handle, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _lib, _path = handle, path
    return _lib


def path():
    """Returns the file the library was loaded from (loading it)."""
    lib()
    return _path
