# SPDX-License-Identifier: MIT
"""xconv from Python: 2-D convolutions on NumPy arrays through the installed libxconv (ctypes),
its devices and variants, what a plan does, and bench and find records as Python objects."""

from ._api import (Error, InvalidError, NotApplicableError, NotFoundError, DeviceInfo,
                   VariantInfo, Plan, Step, conv2d, devices, variants, explain, spec,
                   library_path)
from ._records import Record, Results, bench, find, read_results

__version__ = "0.1.0"
__all__ = ["Error", "InvalidError", "NotApplicableError", "NotFoundError", "DeviceInfo",
           "VariantInfo", "Plan", "Step", "Record", "Results", "conv2d", "devices", "variants",
           "explain", "spec", "bench", "find", "read_results", "library_path"]
