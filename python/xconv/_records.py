# SPDX-License-Identifier: MIT
"""Records as Python objects: reading results files (bench, validate, find and matrix JSON) and
running the installed `xconv bench` and `xconv find` to get theirs."""

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _lib

# ---------------------------------------------------------------------------------------------
# Records and files (docs/matrix_schema.md)


@dataclass
class Record:
    """One variant run on one shape on one device: its outcome, error and times. Keys the
    package does not name are kept in `extra`. Times are None where the record has none."""
    device: str
    variant: str
    shape: str
    outcome: str
    backend: str = ""
    driver: str = ""
    family: str = ""
    shape_name: str = ""
    reference: str = ""
    seed: Optional[int] = None
    repeat: Optional[int] = None
    median_ms: Optional[float] = None
    min_ms: Optional[float] = None
    max_ms: Optional[float] = None
    compile_ms: Optional[float] = None
    gflops: Optional[float] = None
    gbps: Optional[float] = None
    max_norm_err: Optional[float] = None
    threshold: Optional[float] = None
    worst_index: Optional[int] = None
    passed: bool = False
    note: str = ""
    floor_ms: Optional[float] = None
    floor_share: Optional[float] = None
    auto_pick: Optional[bool] = None
    extra: Dict[str, Any] = field(default_factory=dict)


_REQUIRED = ("device", "variant", "shape", "outcome")
_OUTCOMES = ("pass", "fail", "not_applicable", "error")
_NAMES = {f.name for f in fields(Record)} - {"passed", "extra"}


def _record(d: Any, where: str) -> Record:
    """Returns the Record of one JSON object; ValueError naming `where` and the key when a
    required key is missing or has the wrong type."""
    if not isinstance(d, dict):
        raise ValueError(f"{where}: wants an object, not {type(d).__name__}")
    for key in _REQUIRED:
        if not isinstance(d.get(key), str):
            raise ValueError(f"{where}.{key}: wants a string, "
                             f"{'missing' if key not in d else 'got ' + repr(d[key])}")
    if d["outcome"] not in _OUTCOMES:
        raise ValueError(f"{where}.outcome: wants one of {', '.join(_OUTCOMES)}, "
                         f"not {d['outcome']!r}")
    known = {k: v for k, v in d.items() if k in _NAMES}
    extra = {k: v for k, v in d.items() if k not in _NAMES and k != "pass"}
    return Record(**known, passed=d["outcome"] == "pass", extra=extra)


@dataclass
class Results:
    """The records of one results file or run, with the run's description."""
    records: List[Record]
    tool: str = "xconv"
    kind: str = ""
    version: str = ""
    commit: str = ""
    date: str = ""
    command: str = ""
    host: str = ""
    devices: List[Dict[str, Any]] = field(default_factory=list)
    shapes: List[Dict[str, Any]] = field(default_factory=list)
    complete: Optional[bool] = None
    path: Optional[str] = None
    returncode: Optional[int] = None  # the command's exit status when bench or find made it


def _no_constants(name: str):
    """Refuses NaN and Infinity, which strict JSON does not have."""
    raise ValueError(f"{name} is not JSON")


def read_results(path: Union[str, os.PathLike]) -> Results:
    """Reads a results file that `xconv bench`, `validate`, `find` or `matrix` wrote with
    --json. Raises OSError when it cannot be read and ValueError naming the file and what is
    wrong when it is not one."""
    path = os.fspath(path)
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f, parse_constant=_no_constants)
        except ValueError as e:
            raise ValueError(f"{path}: not a results file: {e}") from None
    if not isinstance(doc, dict) or doc.get("tool") != "xconv":
        raise ValueError(f'{path}: not a results file: no "tool": "xconv"')
    if doc.get("kind") == "parity":
        raise ValueError(f"{path}: a parity file, not records (xconv report reads it)")
    if not isinstance(doc.get("records"), list):
        raise ValueError(f'{path}: not a results file: no "records" array')
    records = [_record(r, f"{path}: records[{i}]") for i, r in enumerate(doc["records"])]
    def text(key):
        return doc.get(key) if isinstance(doc.get(key), str) else ""
    return Results(records=records, kind=text("kind"), version=text("version"),
                   commit=text("commit"), date=text("date"), command=text("command"),
                   host=text("host"), devices=list(doc.get("devices") or []),
                   shapes=list(doc.get("shapes") or []), complete=doc.get("complete"),
                   path=path)


# ---------------------------------------------------------------------------------------------
# Running the command line

CLI_ENV = "XCONV_CLI"


def cli_path() -> str:
    """Returns the xconv command to run: $XCONV_CLI, else the installed bin/xconv beside the
    loaded library's lib/ (or xconv in the same folder, a build tree), else xconv on PATH;
    FileNotFoundError saying so when there is none."""
    env = os.environ.get(CLI_ENV)
    if env:
        return env
    libdir = os.path.dirname(os.path.realpath(_lib.path()))
    for beside in (os.path.join(libdir, "..", "bin", "xconv"), os.path.join(libdir, "xconv")):
        if os.path.isfile(beside) and os.access(beside, os.X_OK):
            return os.path.normpath(beside)
    found = shutil.which("xconv")
    if found:
        return found
    raise FileNotFoundError(f"no xconv command: not beside {_lib.path()} (../bin/xconv), not "
                            f"on PATH; set ${CLI_ENV}")


def _shape_args(shape, suite, shapes_file) -> List[str]:
    """Returns the command line's shape options; ValueError when none is given."""
    args = []
    for s in [shape] if isinstance(shape, str) else list(shape or []):
        args += ["--shape", s]
    for s in [suite] if isinstance(suite, str) else list(suite or []):
        args += ["--suite", s]
    for s in [shapes_file] if isinstance(shapes_file, (str, os.PathLike)) \
            else list(shapes_file or []):
        args += ["--shapes", os.fspath(s)]
    if not args:
        raise ValueError("wants a shape (a SPEC or a list of them), a suite or a shapes file")
    return args


def _run(command: str, args: List[str], device) -> Results:
    """Runs `xconv command args --json FILE` and returns the file's records. Raises
    RuntimeError with the command's messages when it wrote no records (bad usage exits 2);
    a run where a check failed (exit 1) returns its records with returncode 1."""
    from ._api import _selector  # the same device selectors as conv2d
    sel = _selector(device)
    if sel:
        args = args + ["--device", sel]
    with tempfile.TemporaryDirectory(prefix="xconv-") as tmp:
        out = os.path.join(tmp, "records.json")
        argv = [cli_path(), command] + args + ["--json", out]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode not in (0, 1) or not os.path.exists(out):
            raise RuntimeError(f"{' '.join(argv[:2])} exited {proc.returncode}: "
                               f"{proc.stderr.strip() or proc.stdout.strip()}")
        results = read_results(out)
    results.path = None
    results.returncode = proc.returncode
    return results


def _number_args(**options) -> List[str]:
    """Returns --name VALUE for each option given (not None)."""
    args = []
    for name, value in options.items():
        if value is not None:
            args += [f"--{name.replace('_', '-')}", str(value)]
    return args


def bench(shape: Union[str, Sequence[str], None] = None, *, suite=None, shapes_file=None,
          variant: Union[str, Sequence[str], None] = None, device=None,
          repeat: Optional[int] = None, warmup: Optional[int] = None,
          seed: Optional[int] = None, args: Sequence[str] = ()) -> Results:
    """Runs `xconv bench` (checks each variant against the float64 reference, then times it on
    the device) on SPEC strings, suites or shape files, and returns its records: every variant
    that applies, with auto's row, or those of `variant` (a name or a list). `args` passes more
    options through. Needs the xconv command (see cli_path)."""
    extra = _shape_args(shape, suite, shapes_file)
    if variant is not None:
        extra += ["--variant", variant if isinstance(variant, str) else ",".join(variant)]
    extra += _number_args(repeat=repeat, warmup=warmup, seed=seed) + list(args)
    return _run("bench", extra, device)


def find(shape: Union[str, Sequence[str], None] = None, *, suite=None, shapes_file=None,
         device=None, mode: Optional[str] = None, repeat: Optional[int] = None,
         warmup: Optional[int] = None, confirm: Optional[int] = None, force: bool = False,
         args: Sequence[str] = ()) -> Results:
    """Runs `xconv find` (times the variants for each shape and keeps the fastest in the
    default cache's find-db, where conv2d's "auto" reads it) and returns the records of its
    runs. mode: "fast", "normal" (the default) or "exhaustive"."""
    extra = _shape_args(shape, suite, shapes_file)
    extra += _number_args(mode=mode, repeat=repeat, warmup=warmup, confirm=confirm)
    extra += (["--force"] if force else []) + list(args)
    return _run("find", extra, device)
