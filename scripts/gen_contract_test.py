#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates the contract tests of the public headers from their declarations.

gen_contract_test.py HEADER... CONTRACT_C EXPORTS_C writes two C programs:
- CONTRACT_C calls every function the HEADERs declare with each pointer argument NULL (the others
  valid) and with out-of-range sizes, indices, enums and descriptors, and checks what the
  header's contract promises: an error status naming the argument, NULL, false, 0 or NaN, and
  no crash (it runs under ASan/UBSan in the sanitizer build);
- EXPORTS_C loads the shared library and looks every declared function up (dlsym).
A function whose return type or argument (type and name) has no entry in the tables below makes
the generator fail, naming it: a function added to the header cannot go untested.
"""
import re
import os
import sys

# ---------------------------------------------------------------------------------------------
# Arguments: "TYPE NAME" (or "FUNCTION:NAME", or "TYPE") -> (valid C expression, [bad
# expressions], flags). Flags: "nullable" (NULL is allowed by the contract: called, nothing
# asserted), "dev" (needs the fixture's device), "nonull" (not a pointer to test with NULL).
ARGS = {
    "xconv_error * err": ("&fx.err", [], {"nullable"}),
    "const char * fmt": ('"context"', [], set()),
    "xconv_status status": ("XCONV_ERR_IO", ["(xconv_status)-99", "(xconv_status)5"], set()),
    "... ...": (None, [], set()),
    "const xconv_problem * p": ("&fx.p", ["&fx.bad_p"], set()),
    "xconv_problem * p": ("&(xconv_problem){0}", [], set()),
    "int64_t index": ("0", ["-1", "INT64_MAX"], set()),
    "int64_t * nkpq": ("(int64_t[4]){0}", [], set()),
    "const xconv_device_info * info": ("&fx.info", [], {"dev"}),
    "xconv_device_open_info:info": ("&fx.info", ["&fx.bad_info"], {"dev"}),
    "const char * spec": ("fx.text", ['"n=1,c="', '"n=1,c=2,h=6,w=6,k=2,r=9"'], set()),
    "xconv_shape_apply:spec": ("fx.text", ['"n=1,c="', '"n=1,,c=2"', '"q=1"'], set()),
    "unsigned * seen": ("&(unsigned){0}", [], {"nullable"}),
    "xconv_shape_read:spec": ("fx.text", ['"n=1,c="', '"n=1,c=2,h=6,w=6,r=3"', '"q=1"'], set()),
    "int64_t act": ("1", ["-1", "3"], set()),
    "char * buf": ("(char[512]){0}", [], set()),
    "size_t len": ("512", [], set()),
    "uint64_t seed": ("7", [], set()),
    "xconv_shape_random:index": ("0", ["-1", "INT_MIN"], set()),
    "int index": ("0", ["-1", "INT_MAX"], set()),
    "const char * name": ('"standard"', ['"no such name"'], set()),
    "xconv_variant_find:name": ('"direct_naive"', ['"no such variant"'], set()),
    "int * count": ("&(int){0}", [], set()),
    "xconv_suite_find:count": ("&(int){0}", [], {"nullable"}),
    "const char * desc": ('"mb1ic2ih6oc2kh3"', ['"mb1ic2ih6oc2kh9"', '"garbage"'], set()),
    "char * name": ("(char[64]){0}", [], {"nullable"}),
    "size_t name_len": ("64", [], set()),
    "const char * line": ("fx.text", ['"n=1,c=2"'], set()),
    "xconv_shape_entry * entry": ("&(xconv_shape_entry){0}", [], set()),
    "bool * blank": ("&(bool){false}", [], set()),
    "const char * text": ("fx.text", [], set()),
    "xconv_shapes_parse:len": ("strlen(fx.text)", [], set()),
    "const char * origin": ('"origin"', [], {"nullable"}),
    "xconv_shape_entry ** shapes": ("&(xconv_shape_entry *){NULL}", [], set()),
    "const char * path": ("fx.shapes_path", ['"/nonexistent/x.shapes"', "fx.fifo_path",
                                             "fx.dir"], set()),
    "xconv_shape_entry * shapes": ("NULL", [], set()),
    "xconv_backend_kind kind": ("XCONV_BACKEND_OPENCL", ["(xconv_backend_kind)99",
                                                         "(xconv_backend_kind)-1"], set()),
    "xconv_devices * devs": ("fx.list", [], set()),
    "const xconv_devices * devs": ("fx.list", [], set()),
    "xconv_devices_backend_status:reason": ("(char[512]){0}", [], set()),
    "unsigned backends": ("0", [], set()),
    "const char * selector": ('"opencl:0"', ['"no such device"', '"opencl:99"'], {"nullable"}),
    "xconv_device * dev": ("fx.dev", [], {"dev"}),
    "const xconv_device * dev": ("fx.dev", [], {"dev"}),
    "xconv_variant_applies:dev": ("fx.dev", [], {"dev", "nullable"}),
    "xconv_variant_tunings:dev": ("fx.dev", [], {"dev", "nullable"}),
    "xconv_plan_create:dev": ("fx.dev", [], {"dev", "nullable"}),
    "xconv_forward:dev": ("fx.dev", [], {"dev", "nullable"}),
    "xconv_convolve:dev": ("fx.dev", [], {"dev", "nullable"}),
    "size_t bytes": ("16", ["SIZE_MAX"], set()),
    "xconv_buffer * buf": ("fx.buf", [], {"dev"}),
    "const xconv_buffer * buf": ("fx.buf", [], {"dev"}),
    "size_t offset": ("0", ["SIZE_MAX", "1020"], set()),
    "const void * src": ("fx.hx", [], set()),
    "void * dst": ("fx.hy", [], set()),
    "size_t count": ("4", ["SIZE_MAX", "257"], set()),
    "float value": ("1.0f", [], set()),
    "const xconv_variant * v": ("fx.v", [], set()),
    "char * reason": ("(char[256]){0}", [], {"nullable"}),
    "xconv_plan_options * opts": ("&fx.opts", [], set()),
    "const xconv_plan_options * opts": ("&fx.opts", ["&fx.bad_opts", "&fx.bad_tiles"],
                                        {"nullable"}),
    "const char * variant": ('"direct_naive"', ['"no such variant"'], set()),
    "xconv_plan * plan": ("fx.plan", [], {"dev"}),
    "const xconv_plan * plan": ("fx.plan", [], {"dev"}),
    "int64_t * block_h": ("&(int64_t){0}", [], {"nullable"}),
    "int64_t * block_w": ("&(int64_t){0}", [], {"nullable"}),
    "int step": ("0", ["-1", "INT_MAX"], set()),
    "xconv_plan_step_info * out": ("&(xconv_plan_step_info){0}", [], set()),
    "int i": ("0", ["-1", "INT_MAX"], set()),
    "const char ** name": ("&(const char *){NULL}", [], {"nullable"}),
    "size_t * offset": ("&(size_t){0}", [], {"nullable"}),
    "size_t * bytes": ("&(size_t){0}", [], {"nullable"}),
    "double * compile_ms": ("&(double){0}", [], {"nullable"}),
    "const xconv_tensors * t": ("&fx.t", ["&fx.t_foreign", "&fx.t_small"], {"dev"}),
    "const float * x": ("fx.hx", [], set()),
    "const float * w": ("fx.hw", [], set()),
    "const float * bias": ("fx.hbias", [], {"nullable"}),
    "float * y": ("fx.hy", [], set()),
    "xconv_tuning * out": ("(xconv_tuning[4]){0}", [], set()),
    "int max": ("4", [], set()),
    "const xconv_tuning * tuning": ("&(xconv_tuning){0}", ['&(xconv_tuning){.gemm_tiles = "8,8"}',
                                    '&(xconv_tuning){.direct_tiling = "direct_x:1,1,1,1,1,1,1,1"}'],
                                    set()),
    "xconv_auto_source source": ("XCONV_AUTO_DB", ["(xconv_auto_source)99"], set()),
    "xconv_auto_info * out": ("&(xconv_auto_info){0}", [], set()),
    "const char * dir": ("fx.dir", ['""', "fx.file_path"], set()),
    "xconv_cache_default_dir:cache_dir": ("fx.dir", ['""', '"none"'], {"nullable"}),
    "xconv_cache_open_default:cache_dir": ("fx.dir", ['""', '"none"', "fx.file_path"],
                                           {"nullable"}),
    "const char * xdg_cache_home": ("NULL", [], {"nullable"}),
    "int64_t dtype": ("XCONV_DTYPE_F16", ["-1", "3"], set()),
    "int64_t math": ("XCONV_MATH_F32", ["-1", "4"], set()),
    "float f": ("1.5f", [], set()),
    "uint16_t h": ("0x3c00", [], set()),
    "uint16_t b": ("0x3f80", [], set()),
    "xconv_dtype_from_f32:src": ("(const float[4]){1, 2, 3, 4}", [], set()),
    "xconv_dtype_from_f32:dst": ("(uint16_t[4]){0}", [], set()),
    "xconv_dtype_to_f32:src": ("(const uint16_t[4]){0x3c00}", [], set()),
    "xconv_dtype_to_f32:dst": ("(float[4]){0}", [], set()),
    "float * values": ("(float[4]){1, 2, 3, 4}", [], set()),
    "size_t n": ("4", [], set()),
    "xconv_plan *const * plans": ("&fx.plan", [], {"dev"}),
    "int nplans": ("1", ["-1"], set()),
    "xconv_build_progress_fn progress": ("NULL", [], {"nullable"}),
    "void * user": ("NULL", [], {"nullable"}),
    "xconv_build_stats * stats": ("&(xconv_build_stats){0}", [], {"nullable"}),
    "xconv_device *const * devs": ("&fx.dev", [], {"dev"}),
    "int ndevs": ("1", ["-1"], set()),
    "xconv_cache_export_kernels:path": ("fx.bundle_path", ['"/nonexistent/dir/b.bundle"'],
                                        set()),
    "xconv_cache_import_kernels:path": ("fx.bundle_path", ['"/nonexistent/b.bundle"',
                                                           "fx.fifo_path", "fx.dir"], set()),
    "const xconv_target * target": ("xconv_target_at(0)", [], set()),
    "xconv_target_find:name": ('"gfx90a"', ['"no such target"'], set()),
    "char ** text": ("&(char *){NULL}", [], set()),
    "char * options": ("(char[4096]){0}", [], set()),
    "char ** log": ("&(char *){NULL}", [], set()),
    "const char * home": ("NULL", [], {"nullable"}),
    "unsigned flags": ("0", ["0x100u"], set()),
    "xconv_cache * cache": ("fx.cache", [], set()),
    "const xconv_cache * cache": ("fx.cache", [], set()),
    "xconv_device_set_cache:cache": ("fx.cache", [], {"nullable"}),
    "xconv_cache_stats * out": ("&(xconv_cache_stats){0}", [], set()),
    "int * removed": ("&(int){0}", [], {"nullable"}),
    "xconv_find_record * rec": ("&(xconv_find_record){.count = 0}", [], set()),
    "const xconv_find_record * rec": ("&fx.rec", [], {"dev"}),
    "xconv_find_db_store:rec": ("&fx.rec", [], {"dev"}),
    "xconv_find_record * recs": ("NULL", [], set()),
    "int count": ("0", ["-1"], set()),
    "bool * stale": ("&(bool){false}", [], set()),
    "xconv_find_record * out": ("&(xconv_find_record){.count = 0}", [], set()),
    "xconv_find_record ** out": ("&(xconv_find_record *){NULL}", [], set()),
    "const char * device": ('"no such device"', [], {"nullable"}),
    "double * y64": ("fx.dy", [], set()),
    "double * norm64": ("fx.dnorm", [], {"nullable"}),
    "int threads": ("1", [], set()),
    "const double * conv": ("fx.dconv", [], set()),
    "const double * conv_scale": ("fx.dnorm", [], {"nullable"}),
    "double * y": ("fx.dy", [], set()),
    "double * y_scale": ("fx.dnorm", [], {"nullable"}),
    "const float * conv": ("fx.hx", [], set()),
    "const float * conv_scale": ("fx.hscale", [], {"nullable"}),
    "float * y_scale": ("fx.hscale", [], {"nullable"}),
    "xconv_enqueue_fn enqueue": ("fx_enqueue_nothing", [], set()),
    "void * user": ("NULL", [], {"nullable"}),
    "int warmup": ("0", ["-1"], set()),
    "int repeat": ("1", ["0", "-1"], set()),
    "xconv_timing * out": ("&(xconv_timing){0}", [], set()),
    "xconv_timing_delay mode": ("XCONV_TIMING_DELAY_AUTO", ["(xconv_timing_delay)99",
                                                            "(xconv_timing_delay)-1"], set()),
    "double * samples": ("(double[4]){0}", [], {"nullable"}),
    "xconv_peaks * out": ("&(xconv_peaks){0}", [], set()),
    "xconv_native_device * out": ("&(xconv_native_device){0}", [], set()),
    "xconv_native_buffer * out": ("&(xconv_native_buffer){0}", [], set()),
    "int64_t m": ("8", ["0", "-1", "INT64_MAX"], set()),
    "int64_t n": ("8", ["0", "-1", "INT64_MAX"], set()),
    "int64_t k": ("8", ["0", "-1", "INT64_MAX"], set()),
    "const char * impl": ('"xconv"', ['"bogus"'], set()),
    "xconv_gemm * g": ("fx.gemm", [], {"dev"}),
    "const xconv_gemm * g": ("fx.gemm", [], {"dev"}),
    "xconv_buffer * a": ("fx.x", ["fx.small", "fx.foreign"], {"dev"}),
    "xconv_buffer * b": ("fx.w", ["fx.small", "fx.foreign"], {"dev"}),
    "xconv_buffer * c": ("fx.y", ["fx.small", "fx.foreign"], {"dev"}),
    "int64_t lh": ("8", ["0", "7", "-8", "8192"], set()),
    "int64_t lw": ("8", ["0", "7", "-8", "8192"], set()),
    "int64_t batch": ("1", ["0", "-1", "INT64_MAX"], set()),
    "xconv_fft2d * f": ("fx.fft", [], {"dev"}),
    "const xconv_fft2d * f": ("fx.fft", [], {"dev"}),
    "xconv_buffer * planes": ("fx.planes", ["fx.small", "fx.foreign"], {"dev"}),
    "xconv_buffer * spectra": ("fx.spectra", ["fx.small", "fx.foreign"], {"dev"}),
    # <xconv/measure.h>
    "xconv_outcome outcome": ("XCONV_OUTCOME_PASS", ["(xconv_outcome)99"], set()),
    "xconv_pitfall_parse:name": ('"mean"', ['"no such pitfall"'], set()),
    "xconv_case_options * opts": ("&(xconv_case_options){0}", [], set()),
    "xconv_case_create:dev": ("NULL", [], {"nullable"}),
    "const char * shape_name": ('"shape"', [], {"nullable"}),
    "const xconv_case_options * opts": ("&fx.copts", ["&fx.bad_copts"], set()),
    "xconv_case * c": ("fx.kase", [], set()),
    "const xconv_case * c": ("fx.kase", [], set()),
    "xconv_case_set_bias:bias": ("fx.hbias", [], set()),
    "xconv_result * out": ("&fx.result", [], set()),
    "double flops": ("1e6", [], set()),
    "double bytes": ("1e6", [], set()),
    "const xconv_plan_options * plan": ("&fx.opts", [], set()),
    "int mode": ("0", [], set()),
    "const xconv_problem *const * problems": ("(const xconv_problem *const[]){&fx.p}", [],
                                              set()),
    "int nproblems": ("1", ["-1"], set()),
    "const xconv_variant *const * variants": ("&fx.v", [], set()),
    "int nvariants": ("1", ["-1"], set()),
    "bool with_auto": ("false", [], set()),
    "xconv_prebuild:opts": ("&fx.opts", [], {"nullable"}),
    "xconv_find_mode mode": ("XCONV_FIND_NORMAL", ["(xconv_find_mode)99"], set()),
    "xconv_find_mode_parse:name": ('"normal"', ['"no such mode"'], set()),
    "xconv_find_mode * mode": ("&(xconv_find_mode){0}", [], set()),
    "xconv_find_opts * opts": ("&(xconv_find_opts){0}", [], set()),
    "const xconv_find_opts * opts": ("&fx.fopts", [], set()),
    "xconv_find_run:rec": ("fx_find_rec()", [], set()),
    "xconv_find_progress_fn progress": ("fx_stop_find", [], set()),
    "xconv_find_summary * summary": ("&(xconv_find_summary){0}", [], {"nullable"}),
    "float * out": ("fx.hy", [], set()),
    "xconv_random_fill:count": ("4", [], set()),
    "uint64_t stream": ("1", [], set()),
    "int64_t * out": ("(int64_t[4]){0}", [], set()),
    "xconv_sample_indices:count": ("4", ["-1"], set()),
    "const double * ref": ("fx.dy", [], set()),
    "const double * norm": ("fx.dnorm", [], set()),
    "int64_t count": ("4", ["-1"], set()),
    "xconv_compare_result * out": ("&(xconv_compare_result){0}", [], set()),
    "const float * y": ("fx.hy", [], set()),
    "const int64_t * indices": ("(const int64_t[4]){0, 1, 2, 3}", [], set()),
    "xconv_compare_sampled:count": ("4", ["-1"], set()),
    "const char * family": ('"direct"', [], {"nullable"}),
    "int64_t block_h": ("2", ["-1", "INT64_MAX"], set()),
    "int64_t block_w": ("2", ["-1", "INT64_MAX"], set()),
    "const double * scale": ("fx.dnorm", [], set()),
    "double * out": ("fx.dconv", [], set()),
    "const xconv_variant_info * v": ("xconv_variant_get_info(fx.v)", [], set()),
}

# Functions whose bad arguments are judged differently from their return type's default:
# "status" (not XCONV_OK, err filled naming the argument), "null", "false", "neg" (< 0), "zero",
# "nan", "string" (always a readable string), "empty" (NULL or ""), "none" (no crash),
# "problem" (a problem of zero sizes).
EXPECT = {
    "xconv_status_to_string": "string",
    "xconv_backend_name": "string",
    "xconv_auto_source_name": "string",
    "xconv_error_set": "none",        # returns the status it is given
    "xconv_plan_summary": "empty",
    "xconv_gemm_summary": "empty",
    "xconv_gemm_c_dtype": "neg",
    "xconv_fft2d_summary": "empty",
    "xconv_plan_step_count": "zero",
    "xconv_devices_count": "zero",
    "xconv_plan_region_count": "zero",
    "xconv_variant_tunings": "zero",
    "xconv_reference_forward_element": "nan",
    "xconv_reference_element": "nan",
    "xconv_outcome_name": "string",
    "xconv_find_mode_name": "string",
    "xconv_threshold_for_variant": "nan",
}

# The default judgement of a return type.
RETURNS = {
    "xconv_status": "status", "bool": "false", "int": "neg", "int64_t": "zero",
    "size_t": "zero", "double": "zero", "unsigned": "zero", "void": "none",
    "float": "none", "uint16_t": "none",
    "xconv_problem": "problem", "const char *": "null", "const char *const *": "string",
}

# What frees a handle a call returned (a bad argument that nevertheless succeeded, or a
# nullable one).
FREE = {
    "xconv_device *": "xconv_device_close", "xconv_buffer *": "xconv_buffer_destroy",
    "xconv_plan *": "xconv_plan_destroy", "xconv_gemm *": "xconv_gemm_destroy",
    "xconv_fft2d *": "xconv_fft2d_destroy", "xconv_cache *": "xconv_cache_close",
    "xconv_case *": "xconv_case_destroy",
    "xconv_devices *": "xconv_devices_free",
}

# Functions that free what they are given: called with NULL (and bad counts) only.
FREEING = re.compile(r"_(destroy|close|free)$")


# ---------------------------------------------------------------------------------------------
# Parsing the header


def read_with_includes(path, seen=None):
    """Returns the text of the header at path with each `#include <xconv/NAME.h>` replaced by
    that header's text (once: later includes of the same header are dropped), so that the
    umbrella header yields the declarations of every topic's header."""
    seen = set() if seen is None else seen
    path = os.path.realpath(path)
    if path in seen:
        return ""
    seen.add(path)
    root = os.path.dirname(os.path.dirname(path))  # the folder holding xconv/

    def expand(m):
        return read_with_includes(os.path.join(root, m.group(1)), seen)

    return re.sub(r'^\s*#\s*include\s*<(xconv/\w+\.h)>[^\n]*$', expand, open(path).read(),
                  flags=re.M)


def parse(path):
    """Returns [(return type, name, [(type, name)])] of every function the header declares,
    itself or through the xconv/ headers it includes."""
    s = read_with_includes(path)
    s = re.sub(r"#ifdef __cplusplus\s*\}\s*#endif", "", s)  # each header closes its extern "C"
    s = re.sub(r"\bXCONV_API_(BEGIN|END)\b", "", s)  # or wraps it in <xconv/visibility.h>'s
    s = re.sub(r"//[^\n]*", "", s)
    s = re.sub(r"/\*.*?\*/", "", s, flags=re.S)
    s = re.sub(r"^\s*#[^\n]*", "", s, flags=re.M)
    s = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", s)
    s = s.replace('extern "C" {', "")
    out, depth = [], 0
    for ch in s:  # drops struct, enum and extern bodies
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    funcs = []
    for st in "".join(out).split(";"):
        st = " ".join(st.split())
        if not st or st.startswith(("typedef", "enum", "struct")) or "(" not in st:
            continue
        m = re.match(r"^(.*?)\b(xconv_\w+)\s*\((.*)\)$", st)
        if not m:
            sys.exit(f"gen_contract_test: cannot read the declaration '{st}'")
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        plist = []
        if params not in ("void", ""):
            for prm in params.split(","):
                prm = prm.strip()
                if prm == "...":
                    plist.append(("...", "..."))
                    continue
                pm = re.match(r"^(.*?)(\w+)\s*(\[\d*\])?$", prm)
                if not pm:
                    sys.exit(f"gen_contract_test: {name}: cannot read the argument '{prm}'")
                t = pm.group(1).strip() + (" *" if pm.group(3) else "")
                plist.append((re.sub(r"\s*\*", " *", t).replace("* *", "**"), pm.group(2)))
        funcs.append((re.sub(r"\s*\*", " *", ret), name, plist))
    return funcs


# ---------------------------------------------------------------------------------------------
# Generating the calls


def arg_entry(func, t, n):
    for key in (f"{func}:{n}", f"{t} {n}"):
        if key in ARGS:
            return ARGS[key]
    sys.exit(f"gen_contract_test: {func}: no valid value for argument '{t} {n}': add it to "
             "ARGS (and its bad values) in scripts/gen_contract_test.py")


def judgement(ret, func):
    if func in EXPECT:
        return EXPECT[func]
    if ret in RETURNS:
        return RETURNS[ret]
    if ret.endswith("*"):
        return "null"
    sys.exit(f"gen_contract_test: {func}: no judgement for return type '{ret}': add it to "
             "RETURNS or EXPECT in scripts/gen_contract_test.py")


def c_string(text):
    """text as a C string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check_code(ret, func, how, label, arg, has_err):
    """The C statements that judge `r`, the result of a call with a bad argument."""
    call = c_string(label)
    named = f'"{arg} is NULL"' if arg else "NULL"
    if how == "status":
        return f"fx_expect_error({call}, r != XCONV_OK, r, {has_err}, {named});"
    if how == "null":
        code = f"fx_expect_error({call}, r == NULL, XCONV_OK, {has_err}, {named});"
        if ret in FREE:
            code += f" {FREE[ret]}(r);"
        return code
    checks = {
        "false": "!r", "neg": "r < 0", "zero": "r == 0", "nan": "isnan(r)",
        "string": "r != NULL && strlen(r) < 4096", "empty": "r == NULL || r[0] == '\\0'",
        "problem": "r.n == 0 && r.k == 0",
    }
    if how == "none":
        return "(void)r;"
    return f'CHECK_MSG({checks[how]}, "%s", {call});'


def call_code(ret, func, args):
    if ret == "void":
        return f"{func}({', '.join(args)});", False
    return f"{ret} r = {func}({', '.join(args)});", True


def gen_function(ret, func, params):
    """Returns the C lines of every call of func, and whether they need the device."""
    how = judgement(ret, func)
    entries = [arg_entry(func, t, n) for t, n in params]
    needs_dev = any("dev" in e[2] for e in entries)
    valid = [e[0] for e in entries if e[0] is not None]
    names = [n for (t, n), e in zip(params, entries) if e[0] is not None]
    types = [t for (t, n), e in zip(params, entries) if e[0] is not None]
    ents = [e for e in entries if e[0] is not None]
    has_err = "true" if "xconv_error * err" in [f"{t} {n}" for t, n in params] else "false"
    lines = []

    def emit(args, label, arg, judged, err_arg=None):
        stmt, has_r = call_code(ret, func, args)
        he = "false" if err_arg == "NULL" else has_err
        check = check_code(ret, func, how, label, arg, he) if judged and has_r else ""
        if not judged and has_r and ret in FREE:
            check = f"{FREE[ret]}(r);"
        elif not judged and has_r:
            check = "(void)r;"
        lines.append(f"    {{ fx_err_reset(); {stmt} {check} }}")

    if FREEING.search(func):  # frees its argument: NULL (and bad counts) only
        args = ["NULL" if t.endswith("*") else v for t, v in zip(types, valid)]
        emit(args, f"{func}(NULL)", None, False)
        for i, (t, e) in enumerate(zip(types, ents)):
            for bad in e[1]:
                emit(args[:i] + [bad] + args[i + 1:], f"{func}: {names[i]} = {bad}", None,
                     False)
        return lines, False
    if not params:  # a pointer it returns is always there
        if ret.endswith("*"):
            lines.append(f'    {{ {ret} r = {func}(); CHECK_MSG(r != NULL, "{func}()"); }}')
        else:
            emit([], f"{func}()", None, False)
        return lines, needs_dev
    for i, (t, n, e) in enumerate(zip(types, names, ents)):
        pointer = t.endswith("*") or t == "xconv_enqueue_fn"
        nullable = "nullable" in e[2]
        if pointer and n != "err":
            args = valid[:i] + ["NULL"] + valid[i + 1:]
            emit(args, f"{func}: {n} = NULL", n, not nullable)
            if has_err == "true" and not nullable:  # the same without an error to fill
                err_i = names.index("err")
                emit([a if j != err_i else "NULL" for j, a in enumerate(args)],
                     f"{func}: {n} = NULL, err = NULL", n, True, "NULL")
        for bad in e[1]:  # judged where the return type can say "refused"
            args = valid[:i] + [bad] + valid[i + 1:]
            emit(args, f"{func}: {n} = {bad}", None, how in ("status", "null", "string", "nan"))
    return lines, needs_dev


def gen_contract(funcs):
    out = ["// Generated by scripts/gen_contract_test.py from the public headers: do not edit.",
           '#include "contract_fixture.h"', ""]
    body = []
    for ret, func, params in funcs:
        lines, needs_dev = gen_function(ret, func, params)
        body.append(f"static void contract_{func[6:]}(void)\n{{")
        if needs_dev:
            body.append(f"    if (!fx.dev) {{\n        fx.skipped++;\n        return;\n    }}")
        body += lines
        body.append("}\n")
    out += body
    out.append("int main(void)\n{\n    fx_setup();")
    out += [f"    contract_{func[6:]}();" for _, func, _ in funcs]
    out.append(f'    printf("%d functions called with every bad argument (%d left out: no '
               f'device)\\n", {len(funcs)}, fx.skipped);')
    out.append('    fx_teardown();\n    return check_summary("test_contract");\n}')
    return "\n".join(out) + "\n"


def gen_exports(funcs):
    names = ",\n".join(f'    "{f}"' for _, f, _ in funcs)
    return f"""// Generated by scripts/gen_contract_test.py from the public headers: do not edit.
// Loads the shared library and looks up every function the header declares.
#include <dlfcn.h>
#include <stdio.h>

static const char *const declared[] = {{
{names},
}};

int main(int argc, char **argv)
{{
    if (argc != 2) {{
        fprintf(stderr, "usage: %s LIBXCONV_SO\\n", argv[0]);
        return 2;
    }}
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {{
        fprintf(stderr, "cannot load %s: %s\\n", argv[1], dlerror());
        return 1;
    }}
    int missing = 0, count = (int)(sizeof declared / sizeof declared[0]);
    for (int i = 0; i < count; i++)
        if (!dlsym(lib, declared[i])) {{
            fprintf(stderr, "%s is declared in a public header but not exported by %s\\n", declared[i],
                    argv[1]);
            missing++;
        }}
    printf("test_exports: %d functions declared, %d not exported\\n", count, missing);
    dlclose(lib);
    return missing ? 1 : 0;
}}
"""


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: gen_contract_test.py HEADER... CONTRACT_C EXPORTS_C")
    headers = sorted(sys.argv[1:-2])
    funcs = [f for h in headers for f in parse(h)]
    if len(funcs) < 10:
        sys.exit(f"gen_contract_test: only {len(funcs)} functions read from {' '.join(headers)}")
    names = [f[1] for f in funcs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        sys.exit(f"gen_contract_test: declared in more than one header: {', '.join(twice)}")
    for path, text in ((sys.argv[-2], gen_contract(funcs)), (sys.argv[-1], gen_exports(funcs))):
        write_whole(path, text)


def write_whole(path, text):
    """Writes text to path through a temporary file renamed over it, so that a reader never sees
    half a file and a missing folder is made."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
