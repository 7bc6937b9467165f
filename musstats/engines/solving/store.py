"""Storage of solved strategies, apart from solving: keys, quantisation, files, memory.

* **Keys.**  A strategy is keyed by a hash of everything it depends on (:func:`strategy_key`):
  the caller's fields (rules, game, chance, solver settings, seed), the package version, the
  kernels' stamp and a hash of the solving engines' sources -- the one key scheme of the
  disk cache (:func:`musstats.engines.cache.digest`).
* **Quantisation.**  A strategy is stored as the probability of every action of every
  infoset in steps of 1/255 (uint8, ``round(255 p)``), the rows renormalised when read: an
  error of at most 1/510 per probability.
* **Files.**  An *entry* is a small dict of arrays (the quantised strategy, its metadata as
  JSON, its convergence history); a *shipped file* is one ``.npz`` of several entries, each
  under its own name, written atomically; the disk cache holds one entry per file.
* **Memory.**  :data:`MEMO` keeps what was read or solved in this process.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from musstats.engines import cache as _cache
from musstats.engines.solving.game import Game

__all__ = ["strategy_key", "source_digest", "quantise", "dequantise", "pack", "meta_array", "unpack_meta", "read_shipped",
           "write_shipped", "cache_load", "cache_save", "MEMO"]

#: what was read or solved in this process, by key
MEMO: dict[str, Any] = {}


@lru_cache(maxsize=1)
def source_digest() -> str:
    """Hash of the sources a solved strategy depends on besides the kernels: the solving
    framework and the betting engine."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for folder in (here, here.parent / "betting"):
        for p in sorted(folder.glob("*.py")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def strategy_key(fields: dict) -> str:
    """The key of a strategy: a hash of its fields, the engines' sources, the package version and
    the kernels' stamp."""
    return _cache.digest(json.dumps(fields, sort_keys=True, default=str), source_digest())


def quantise(sigma: np.ndarray, levels: int = 255) -> np.ndarray:
    """A strategy's probabilities in ``levels`` steps, one byte each (read back by
    :func:`dequantise`, which renormalises each infoset's row whatever the steps)."""
    return np.rint(np.clip(sigma, 0, 1) * int(levels)).astype(np.uint8)


def dequantise(q: np.ndarray, game: Game) -> np.ndarray:
    """The behaviour strategy of a quantised one (each infoset's row renormalised; uniform
    where it is all zero); of each row of a 2-D ``q`` [profiles, slots] at once."""
    from musstats._kernels.cfr import normalise

    flat = q.reshape(-1).astype(np.float64)
    out = np.empty(flat.shape[0])
    rows = 1 if q.ndim == 1 else q.shape[0]
    base = (game.iset_base[None, :] + game.n_slots * np.arange(rows)[:, None]).reshape(-1)
    normalise(flat, out, base, np.tile(game.iset_n, rows))
    return out.reshape(q.shape)


def pack(sigma: np.ndarray, meta: dict, history=(), extra: dict | None = None) -> dict[str, np.ndarray]:
    """The arrays of an entry: the quantised strategy, the metadata (JSON) and the history rows
    (iteration, seconds, then the measures taken); ``extra`` arrays as given."""
    rows = [list(r) for r in history]
    width = max((len(r) for r in rows), default=4)
    out = {"sigma": quantise(sigma), "meta": meta_array(meta),
           "history": np.array([r + [np.nan] * (width - len(r)) for r in rows], np.float64).reshape(-1, width)}
    out.update(extra or {})
    return out


def meta_array(meta: dict) -> np.ndarray:
    """An entry's metadata as stored: its JSON, as bytes."""
    return np.frombuffer(json.dumps(meta).encode(), np.uint8)


def unpack_meta(arrays: Mapping) -> dict:
    return json.loads(bytes(arrays["meta"]).decode())


def read_shipped(path: Path, name: str, fields: dict) -> dict | None:
    """The entry ``name`` of a shipped file when its metadata carries exactly ``fields``
    (else None: another build of the same subgame)."""
    from musstats.base.files import read_npz

    z = read_npz(path)
    if z is None or f"{name}.sigma" not in z:
        return None
    entry = {k.split(".", 1)[1]: z[k] for k in z if k.startswith(f"{name}.")}
    meta = unpack_meta(entry)
    if any(meta.get(k) != v for k, v in fields.items()):
        return None
    return entry


def write_shipped(entries: dict[str, dict[str, np.ndarray]], path: Path) -> Path:
    """Write entries (name -> arrays) to a shipped file, atomically, LZMA-compressed (a pair's plans
    are many similar profiles, which deflate's window cannot see across)."""
    from musstats.base.files import write_npz

    arrays = {f"{name}.{k}": a for name, e in entries.items() for k, a in e.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_npz(path, arrays, "lzma")


def cache_load(kind: str, key: str) -> dict | None:
    """The cached entry ``kind`` of ``key`` (None: absent, disabled or unreadable)."""
    return _cache.load(_cache.entry_path(kind, key))


def cache_save(kind: str, key: str, arrays: dict) -> None:
    _cache.save(_cache.entry_path(kind, key), True, **arrays)
