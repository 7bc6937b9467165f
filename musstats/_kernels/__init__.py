"""Every numba kernel of musstats, and nothing else (private).

The modules here are compiled with ``cache=True``.  numba keys a cached kernel on the
source of its own file only, so a kernel that inlines a jitted helper from another file
of this folder (the generator of :mod:`.rng`, the lance resolution of :mod:`.lances`)
could otherwise keep running stale machine code after that helper changed.  Importing
this package therefore computes a *stamp* per kernel module -- a hash of its source, of
the sources of the kernel modules it imports (transitively), of the numba version and of
the Python version -- compares each with the stamp recorded in the kernels' cache folder,
and clears the cached kernels of every module whose stamp changed.  :data:`KERNEL_STAMP`
combines them all (for the keys of caches of results).  Public code never imports this
package directly: engines call its kernels, validated arguments in.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

__all__ = ["KERNEL_STAMP", "module_stamps", "cache_dir", "clear_cache"]

_HERE = Path(__file__).resolve().parent
_STAMP_FILE = "musstats-kernels.stamp"
_IMPORT = re.compile(r"^\s*from\s+musstats\._kernels\.(\w+)\s+import", re.M)


def module_stamps() -> dict[str, str]:
    """The stamp of every kernel module: its source and its kernel imports', numba, Python."""
    import numba

    sources = {p.stem: p.read_bytes() for p in sorted(_HERE.glob("*.py")) if p.stem != "__init__"}
    deps = {m: set(_IMPORT.findall(src.decode("utf-8"))) & set(sources) for m, src in sources.items()}
    env = f"numba {numba.__version__} python {sys.version_info[:3]}".encode()
    out: dict[str, str] = {}
    for m in sources:
        seen, todo = set(), [m]
        while todo:  # the module and every kernel module it reaches
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(deps[x])
        h = hashlib.sha256(env)
        for x in sorted(seen):
            h.update(x.encode() + b"\0" + sources[x])
        out[m] = h.hexdigest()[:20]
    return out


_STAMPS = module_stamps()
#: one hash of every kernel module's stamp
KERNEL_STAMP = hashlib.sha256(json.dumps(_STAMPS, sort_keys=True).encode()).hexdigest()[:20]


def _probe() -> None:  # a function of this folder, to ask numba where its caches go
    pass


def cache_dir() -> Path | None:
    """The folder where numba caches the kernels of this package (None: no cache possible)."""
    from numba.core.caching import CacheImpl

    for cls in CacheImpl._locator_classes:
        loc = cls.from_function(_probe, str(_HERE / "__init__.py"))  # type: ignore[attr-defined]
        if loc is not None:
            return Path(loc.get_cache_path())
    return None


def clear_cache(modules: set[str] | None = None) -> int:
    """Delete the cached kernels of ``modules`` (default: every kernel module); they recompile on
    next use.  Returns how many files were deleted."""
    d = cache_dir()
    if d is None or not d.is_dir():
        return 0
    names = set(_STAMPS) if modules is None else modules
    n = 0
    for p in d.glob("*.nb[ic]"):
        if p.name.split(".")[0] in names:
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
        old = json.loads(stamp.read_text())
        if not isinstance(old, dict):
            old = {}
    except (OSError, ValueError):
        old = {}
    stale = {m for m, s in _STAMPS.items() if old.get(m) != s}
    if not stale:
        return
    clear_cache(stale)
    tmp = d / f".{_STAMP_FILE}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(_STAMPS, sort_keys=True) + "\n")
        os.replace(tmp, stamp)
    except OSError:
        pass


_check_stamp()
