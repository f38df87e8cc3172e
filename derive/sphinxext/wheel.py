"""derive's own pure-Python wheel, written by the docs build for the runnable cells.

A cell with ``:packages: derive`` installs this file with micropip inside
Pyodide. It is written straight from the imported ``derive`` package (every
``.py`` file and the extension's static files) with :mod:`zipfile`, so the
docs build needs neither a source checkout nor a build backend, and the same
sources give the same bytes (entries sorted, fixed timestamps). The layout is
the wheel format of PEP 427 / PEP 491: the package tree, then
``derive-<version>.dist-info/{METADATA,WHEEL,RECORD}``.

The metadata keeps derive's run-time requirements (sympy, numpy) as
``Requires-Dist``; the cells install the wheel with ``deps=False`` and load
sympy or numpy only when a cell names them, since :mod:`derive.params`
imports neither.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

import derive

PACKAGE = Path(derive.__file__).parent
#: the files of the package that go into the wheel (sources and the extension's static files)
SUFFIXES = (".py", ".css", ".js")
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold: same sources, same bytes


def wheel_name() -> str:
    """``derive-<version>-py3-none-any.whl``."""
    return f"derive-{derive.__version__}-py3-none-any.whl"


def _requirements() -> list[str]:
    from importlib import metadata

    try:
        found = metadata.requires("derive") or []
    except metadata.PackageNotFoundError:
        return []
    return [r for r in found if "extra ==" not in r]


def _metadata() -> str:
    lines = ["Metadata-Version: 2.1", "Name: derive", f"Version: {derive.__version__}",
             "Summary: " + (derive.__doc__ or "").strip().splitlines()[0], "Requires-Python: >=3.11"]
    lines += [f"Requires-Dist: {r}" for r in _requirements()]
    return "\n".join(lines) + "\n"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def package_files(root: Path = PACKAGE) -> list[tuple[str, bytes]]:
    """(name in the wheel, bytes) of every source and static file of the package, sorted by name."""
    files = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
            files.append(("derive/" + path.relative_to(root).as_posix(), path.read_bytes()))
    return files


def build_wheel(folder: Path) -> Path:
    """Write derive's wheel into ``folder`` (created if needed) and return its path.

    Raises:
        OSError: the folder cannot be written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    info = f"derive-{derive.__version__}.dist-info"
    entries = package_files()
    entries.append((f"{info}/METADATA", _metadata().encode()))
    entries.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: derive.sphinxext.wheel\n"
                                     b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = [_record_line(name, data) for name, data in entries] + [f"{info}/RECORD,,"]
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    target = folder / wheel_name()
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            entry = zipfile.ZipInfo(name, date_time=_EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)
    return target
