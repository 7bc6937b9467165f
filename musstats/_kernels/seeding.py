"""NumPy's ``SeedSequence`` child states in a kernel (private).

:func:`spawn_states` computes, for the spawn keys ``key + (start + i,)``, exactly the words
``np.random.SeedSequence(seed, spawn_key=key + (start + i,)).generate_state(4, np.uint64)``
returns (NumPy's algorithm: O'Neill's ``seed_seq`` hash with a pool of four 32-bit words).
The host assembles the entropy words of the seed and of the fixed part of the key (the
test checks the result against NumPy itself); the kernel adds the last key word, mixes
the pool and draws the state.  It exists because building one ``SeedSequence`` object per
chunk in Python took a fifth of the betting solver's time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["spawn_states"]

_M = np.uint64(0xFFFFFFFF)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_L = np.uint64(0xCA01F9DD)
_MIX_R = np.uint64(0x4973F715)
_SHIFT = np.uint64(16)
_POOL = 4


@njit(cache=True, inline="always")
def _hashmix(value, hc):
    value = (value ^ hc[0]) & _M
    hc[0] = (hc[0] * _MULT_A) & _M
    value = (value * hc[0]) & _M
    return value ^ (value >> _SHIFT)


@njit(cache=True, inline="always")
def _mix(x, y):
    r = (_MIX_L * x - _MIX_R * y) & _M
    return r ^ (r >> _SHIFT)


@njit(cache=True)
def spawn_states(prefix, start, out):
    """``out`` uint64 [count, 4]: the states of the spawn keys ending in ``start + i``;
    ``prefix`` uint64 [m]: the 32-bit entropy words before the last key word (the seed's
    words padded with zeros to the pool size, then the fixed key's words)."""
    m = prefix.shape[0]
    ent = np.empty(m + 2, np.uint64)
    ent[:m] = prefix
    pool = np.empty(_POOL, np.uint64)
    hc = np.empty(1, np.uint64)
    for i in range(out.shape[0]):
        n = np.uint64(start + i)
        k = m
        if n == 0:
            ent[k] = np.uint64(0)
            k += 1
        while n > 0:
            ent[k] = n & _M
            n = n >> np.uint64(32)
            k += 1
        hc[0] = _INIT_A
        for j in range(_POOL):
            pool[j] = _hashmix(ent[j] if j < k else np.uint64(0), hc)
        for s in range(_POOL):
            for d in range(_POOL):
                if s != d:
                    pool[d] = _mix(pool[d], _hashmix(pool[s], hc))
        for s in range(_POOL, k):
            for d in range(_POOL):
                pool[d] = _mix(pool[d], _hashmix(ent[s], hc))
        h = _INIT_B
        for w in range(4):
            word = np.uint64(0)
            for half in range(2):
                v = pool[(2 * w + half) % _POOL] ^ h
                h = (h * _MULT_B) & _M
                v = (v * h) & _M
                v = v ^ (v >> _SHIFT)
                word |= v << np.uint64(32 * half)
            out[i, w] = word
