# SPDX-License-Identifier: MIT
"""The package's ctypes structures against <xconv/xconv.h>: a C program built from the header
prints each structure's size and each field's offset, and every one must match, so a field added
to the header without its mirror here fails this test instead of shifting what the package reads."""

import ctypes
import os
import shutil
import subprocess

import pytest

from xconv import _lib

# ctypes class -> the C type it mirrors.
MIRRORS = {
    _lib.CError: "xconv_error",
    _lib.CEpilogue: "xconv_epilogue",
    _lib.CProblem: "xconv_problem",
    _lib.CDeviceInfo: "xconv_device_info",
    _lib.CVariantInfo: "xconv_variant_info",
    _lib.CTuning: "xconv_tuning",
    _lib.CAutoInfo: "xconv_auto_info",
    _lib.CStepInfo: "xconv_plan_step_info",
}


def _c_field(name):
    return "global" if name == "global_" else name


def _c_layout(tmp_path, include):
    """Builds and runs the C program; returns {C type: (size, {field: offset})}."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to read the header's layout")
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <xconv/xconv.h>",
             "int main(void) {"]
    for cls, ctype in MIRRORS.items():
        lines.append(f'    printf("{ctype} size %zu\\n", sizeof({ctype}));')
        for field, _ in cls._fields_:
            f = _c_field(field)
            lines.append(f'    printf("{ctype} {field} %zu\\n", offsetof({ctype}, {f}));')
    lines += ["    return 0;", "}"]
    src, exe = tmp_path / "layout.c", tmp_path / "layout"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c11", "-I", include, str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    layout = {}
    for line in out.splitlines():
        ctype, what, value = line.split()
        size, fields = layout.setdefault(ctype, [0, {}])
        if what == "size":
            layout[ctype][0] = int(value)
        else:
            fields[what] = int(value)
    return layout


def test_structures_match_the_header(tmp_path):
    include = os.environ.get("XCONV_INCLUDE")
    if not include:
        pytest.skip("XCONV_INCLUDE (the folder holding xconv/xconv.h) is not set")
    layout = _c_layout(tmp_path, include)
    for cls, ctype in MIRRORS.items():
        size, offsets = layout[ctype]
        for field, _ in cls._fields_:
            assert getattr(cls, field).offset == offsets[field], f"{ctype}.{field}"
        assert ctypes.sizeof(cls) == size, f"sizeof({ctype})"
