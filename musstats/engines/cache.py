"""The disk cache of computed tables (game models, solved betting strategies).

Where: ``$MUSSTATS_CACHE``, else ``$XDG_CACHE_HOME/musstats``, else ``~/.cache/musstats``;
``MUSSTATS_CACHE=off`` disables it.  Every entry is keyed by everything its content
depends on -- the caller's parts (e.g. :meth:`Variant.cache_key`, the deal source, the
number of deals, the seed) plus the package version and the stamp of the kernel sources
-- so an upgrade or an edited kernel never reads a stale entry.  Entries are ``.npz``
files written atomically; an unreadable entry is treated as missing, an unwritable cache
folder is not an error (the result is just recomputed next time).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Callable, TypeVar

import numpy as np

__all__ = ["cache_dir", "digest", "entry_path", "named_path", "load", "save", "load_named", "save_named", "prune",
           "fetch"]

T = TypeVar("T")


def cache_dir() -> Path | None:
    """The cache folder, or None when caching is off."""
    env = os.environ.get("MUSSTATS_CACHE")
    if env is not None:
        if env.strip().lower() in ("", "off", "0", "none", "no"):
            return None
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "musstats"


def _version_parts() -> list[str]:
    from musstats import __version__
    from musstats._kernels import KERNEL_STAMP

    return [f"musstats-{__version__}", f"kernels-{KERNEL_STAMP}"]


def digest(*parts: Any) -> str:
    """The one key scheme of the cache: a hash of ``parts``, the package version and the
    kernels' stamp."""
    key = "|".join(str(p) for p in [*parts, *_version_parts()])
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def entry_path(kind: str, *parts: Any) -> Path | None:
    """The file of the entry ``kind`` keyed by ``parts`` (None when caching is off)."""
    d = cache_dir()
    if d is None:
        return None
    return d / f"{_safe(kind)}-{digest(kind, *parts)}.npz"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def named_path(name: str) -> Path | None:
    """The file of an entry whose ``name`` already holds its key (None when caching is off)."""
    d = cache_dir()
    return None if d is None else d / f"{_safe(name)}.npz"


def load_named(name: str) -> dict[str, np.ndarray] | None:
    return load(named_path(name))


def save_named(name: str, arrays: dict[str, Any], compressed: bool = True) -> None:
    save(named_path(name), compressed, **arrays)


def prune(prefix: str, keep: int) -> int:
    """Delete all but the ``keep`` most recently written entries named ``prefix-*``; returns how
    many were deleted (0 when the cache is off)."""
    d = cache_dir()
    if d is None or not d.is_dir():
        return 0
    files = []
    for p in d.glob(f"{_safe(prefix)}-*.npz"):
        try:
            files.append((p.stat().st_mtime_ns, p))
        except OSError:  # deleted meanwhile
            pass
    gone = 0
    for _, p in sorted(files, reverse=True)[max(int(keep), 0):]:
        try:
            p.unlink()
            gone += 1
        except OSError:
            pass
    return gone


def load(path: Path | None) -> dict[str, np.ndarray] | None:
    """The arrays of an entry, or None when it is missing or unreadable."""
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except Exception:  # a partial or corrupt file: recompute
        return None


def save(path: Path | None, compressed: bool = True, **arrays: np.ndarray) -> None:
    """Write an entry atomically; silently does nothing when the cache cannot be written."""
    if path is None:
        return
    from musstats.base.files import write_npz

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_npz(path, arrays, "zlib" if compressed else "none")
    except OSError:
        pass


def fetch(memo: dict, key: tuple, kind: str, read: Callable[[dict[str, np.ndarray]], T | None],
          make: Callable[[], T], arrays: Callable[[T], dict[str, np.ndarray]], *, use_disk: bool = True
          ) -> tuple[T, str]:
    """A computed table from ``memo[key]``, else the disk entry ``kind`` keyed by ``key``
    (``read(arrays)``: the table, or None when the entry does not fit), else ``make()``, then
    saved (``arrays(table)``) and put in ``memo``.  Returns (table, "memory" | "disk" | "made")."""
    if key in memo:
        return memo[key], "memory"
    path = entry_path(kind, *key) if use_disk else None
    z = load(path)
    got = read(z) if z is not None else None
    how = "disk"
    if got is None:
        got = make()
        if path is not None:  # the arrays (a copy, e.g. narrowed) only when they are written
            save(path, True, **arrays(got))
        how = "made"
    memo[key] = got
    return got, how
