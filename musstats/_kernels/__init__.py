"""Every numba kernel of musstats, and nothing else (private).

The modules here are compiled with ``cache=True``.  numba keys a cached kernel on the
source of its own file only, so a kernel that inlines a jitted helper from another file
of this folder (the generator of :mod:`.rng`, the lance resolution of :mod:`.lances`)
could otherwise keep running stale machine code after that helper changed.  Importing
this package therefore compares a *stamp* -- a hash of every source file in this folder,
the numba version and the Python version -- with the one recorded in the kernels' cache
folder, and clears the folder's cached kernels when they differ.  Public code never
imports this package directly: engines call its kernels, validated arguments in.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__all__ = ["KERNEL_STAMP", "cache_dir", "clear_cache"]

_HERE = Path(__file__).resolve().parent
_STAMP_FILE = "musstats-kernels.stamp"


def _sources_digest() -> str:
    h = hashlib.sha256()
    for p in sorted(_HERE.glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    import numba

    h.update(f"numba {numba.__version__} python {sys.version_info[:3]}".encode())
    return h.hexdigest()[:20]


#: hash of the kernel sources and the numba and Python versions
KERNEL_STAMP = _sources_digest()


def _probe() -> None:  # a function of this folder, to ask numba where its caches go
    pass


def cache_dir() -> Path | None:
    """The folder where numba caches the kernels of this package (None: no cache possible)."""
    from numba.core.caching import CacheImpl

    for cls in CacheImpl._locator_classes:
        loc = cls.from_function(_probe, str(_HERE / "__init__.py"))
        if loc is not None:
            return Path(loc.get_cache_path())
    return None


def _kernel_cache_files(d: Path) -> list[Path]:
    modules = {p.stem for p in _HERE.glob("*.py")}
    return [p for p in d.glob("*.nb[ic]") if p.name.split(".")[0] in modules]


def clear_cache() -> int:
    """Delete the cached kernels of this package (they recompile on next use); how many files."""
    d = cache_dir()
    if d is None or not d.is_dir():
        return 0
    n = 0
    for p in _kernel_cache_files(d):
        try:
            p.unlink()
            n += 1
        except OSError:
            pass
    return n


def _check_stamp() -> None:
    d = cache_dir()
    if d is None:
        return
    stamp = d / _STAMP_FILE
    try:
        if stamp.read_text().strip() == KERNEL_STAMP:
            return
    except OSError:
        pass
    clear_cache()
    tmp = d / f".{_STAMP_FILE}.{os.getpid()}"
    try:
        tmp.write_text(KERNEL_STAMP + "\n")
        os.replace(tmp, stamp)
    except OSError:
        pass


_check_stamp()
