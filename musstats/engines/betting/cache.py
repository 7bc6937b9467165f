"""The disk cache of solved strategies and deal pools.

The folder is the sub-folder ``betting`` of the package's cache folder
(:func:`musstats.engines.cache.cache_dir`; ``MUSSTATS_CACHE=off`` disables it).  A
strategy's file name is a hash of everything it depends on (:func:`strategy_key`):
the variant's lance rules, the lance and declaration pattern, the deal model, the
information model, the abstraction, the payoff, the solver settings, the iterations,
the seed, the package version and a hash of the betting kernels' and engine's sources.
Files are written atomically (temporary file + ``os.replace``); a file that cannot be
read is recomputed.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from musstats.engines import cache as _cache

__all__ = ["cache_dir", "source_digest", "strategy_key", "load_npz", "save_npz", "load_array", "save_array",
           "prune"]


def cache_dir() -> Path | None:
    """The betting sub-folder of the package's cache folder (None: disabled)."""
    d = _cache.cache_dir()
    return None if d is None else d / "betting"


@lru_cache(maxsize=1)
def source_digest() -> str:
    """Hash of the sources the strategies depend on: this engine's modules and the stamp
    of every kernel (:data:`musstats._kernels.KERNEL_STAMP`)."""
    from musstats._kernels import KERNEL_STAMP

    h = hashlib.sha256(KERNEL_STAMP.encode())
    for p in sorted(Path(__file__).resolve().parent.glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def strategy_key(fields: dict) -> str:
    """A stable hash of a strategy's key fields (with the package version and sources)."""
    from musstats import __version__

    doc = dict(fields, version=__version__, sources=source_digest())
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:24]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _path(name: str) -> Path | None:
    d = cache_dir()
    return None if d is None else d / f"{_safe(name)}.npz"


def prune(prefix: str, keep: int) -> int:
    """Delete all but the ``keep`` most recently written cached files named ``prefix-*``;
    returns how many were deleted (0 when the cache is disabled)."""
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


def load_npz(name: str) -> dict | None:
    """The arrays of a cached file (None: absent, disabled or unreadable)."""
    return _cache.load(_path(name))


def save_npz(name: str, arrays: dict, compressed: bool = True) -> None:
    """Write arrays atomically to the cache (nothing when disabled or not writable)."""
    _cache.save(_path(name), compressed=compressed, **arrays)


def load_array(name: str) -> np.ndarray | None:
    z = load_npz(name)
    return None if z is None else z.get("a")


def save_array(name: str, a: np.ndarray) -> None:
    save_npz(name, {"a": a}, compressed=False)
