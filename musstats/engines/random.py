"""Seeding of the kernels' generators: one place that turns a user seed into states.

Chunk ``i`` of a run gets the state ``SeedSequence(seed, spawn_key=key + (i,))`` -- the
``i``-th child of ``SeedSequence(seed)`` when ``key`` is empty -- so the stream of every
chunk depends only on the seed, the key and the chunk number, never on the threads.
"""

from __future__ import annotations

import numpy as np

__all__ = ["seed_states"]


def seed_states(seed: int, count: int, start: int = 0, key: tuple[int, ...] = ()) -> np.ndarray:
    """xoshiro256** states uint64 [count, 4] of chunks ``start .. start + count - 1``.

    The all-zero state, the one xoshiro256** cannot leave, is replaced by (1, 0, 0, 0).
    """
    out = np.empty((count, 4), np.uint64)
    for i in range(count):
        st = np.random.SeedSequence(int(seed), spawn_key=tuple(key) + (start + i,)).generate_state(4, np.uint64)
        if not st.any():
            st[0] = 1
        out[i] = st
    return out
