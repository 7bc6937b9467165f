"""Seeding of the kernels' generators: one place that turns a user seed into states.

Chunk ``i`` of a run gets the state ``SeedSequence(seed, spawn_key=key + (i,))`` -- the
``i``-th child of ``SeedSequence(seed)`` when ``key`` is empty -- so the stream of every
chunk depends only on the seed, the key and the chunk number, never on the threads.
The states are NumPy's, computed by a kernel (:mod:`musstats._kernels.seeding`).
"""

from __future__ import annotations

import numpy as np

from musstats.base.errors import MusError

__all__ = ["seed_states", "chunk_trials"]

#: NumPy's SeedSequence pool: 32-bit words
_POOL = 4


def _words(n: int) -> list[int]:
    """The 32-bit words of a non-negative integer, least significant first ([0] for 0)."""
    if n < 0:
        raise MusError(f"a seed and its spawn key must be non-negative integers, got {n}")
    out = [n & 0xFFFFFFFF]
    n >>= 32
    while n > 0:
        out.append(n & 0xFFFFFFFF)
        n >>= 32
    return out


def entropy_prefix(seed: int, key: tuple[int, ...] = ()) -> np.ndarray:
    """The entropy words NumPy assembles for ``SeedSequence(seed, spawn_key=key + (j,))``
    before the words of ``j``: the seed's, padded with zeros to the pool, then the key's."""
    run = _words(int(seed))
    run += [0] * max(0, _POOL - len(run))
    for x in key:
        run += _words(int(x))
    return np.array(run, np.uint64)


def seed_states(seed: int, count: int, start: int = 0, key: tuple[int, ...] = ()) -> np.ndarray:
    """xoshiro256** states uint64 [count, 4] of chunks ``start .. start + count - 1``.

    The all-zero state, the one xoshiro256** cannot leave, is replaced by (1, 0, 0, 0).
    """
    from musstats._kernels.seeding import spawn_states

    out = np.empty((int(count), 4), np.uint64)
    if count > 0:
        if start < 0:
            raise MusError(f"the first chunk must be >= 0, got {start}")
        spawn_states(entropy_prefix(seed, tuple(key)), int(start), out)
        out[~out.any(axis=1), 0] = 1
    return out


def chunk_trials(n: int, n_chunks: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` trials cut into ``n_chunks`` chunks as even as can be (the first ``n % n_chunks`` one
    larger): the trials of each chunk and where each starts, int64 [n_chunks] both."""
    per = np.full(n_chunks, n // n_chunks, np.int64)
    per[: n % n_chunks] += 1
    offsets = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int64)
    return per, offsets
