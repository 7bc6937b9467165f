"""The random generator of every kernel: xoshiro256** with unbiased bounded draws (private).

Each chunk of a simulation owns a state (uint64[4]) seeded on the host by
:func:`musstats.engines.random.seed_states`, so results do not depend on the number of
threads.  Two bounded draws: :func:`bounded` takes 32 random bits (two draws per word),
:func:`bounded16` 16 bits (four draws per word, for bounds below 2**16).  Both use
Lemire's multiply-and-reject method and are exactly uniform.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["M16", "M32", "rotl", "next64", "bounded", "bounded16", "seed_state"]

M32 = np.uint64(0xFFFFFFFF)
M16 = np.uint64(0xFFFF)


@njit(cache=True, inline="always")
def rotl(x, k):
    """64-bit rotation left by ``k``."""
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def next64(st):
    """xoshiro256** step on the state ``st`` (uint64[4]); returns 64 random bits."""
    s0 = st[0]
    s1 = st[1]
    s2 = st[2]
    s3 = st[3]
    result = rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl(s3, 45)
    st[0] = s0
    st[1] = s1
    st[2] = s2
    st[3] = s3
    return result


@njit(cache=True, inline="always")
def bounded(x32, n, st):
    """Uniform integer in [0, n) from 32 random bits ``x32`` (Lemire's method, unbiased)."""
    m = x32 * np.uint64(n)
    low = m & M32
    if low < np.uint64(n):
        thresh = (np.uint64(0x100000000) - np.uint64(n)) % np.uint64(n)
        while low < thresh:
            x32 = next64(st) >> np.uint64(32)
            m = x32 * np.uint64(n)
            low = m & M32
    return np.int64(m >> np.uint64(32))


@njit(cache=True)
def _lemire16_slow(m, n, st):
    """Rare branch of :func:`bounded16` (low bits < n, probability < n / 65536): reject the
    draws whose low 16 bits fall below 2**16 mod n and draw again."""
    thresh = (np.uint64(0x10000) - n) % n
    while (m & M16) < thresh:
        m = (next64(st) >> np.uint64(48)) * n
    return m >> np.uint64(16)


@njit(cache=True, inline="always")
def bounded16(x16, n, st):
    """Uniform integer in [0, n) (n < 2**16, uint64) from 16 random bits ``x16``."""
    m = x16 * n
    if (m & M16) < n:
        return _lemire16_slow(m, n, st)
    return m >> np.uint64(16)


@njit(cache=True, inline="always")
def seed_state(x, out):
    """Fill a xoshiro256** state from one 64-bit value with splitmix64 (in-kernel reseeding)."""
    for i in range(4):
        x += np.uint64(0x9E3779B97F4A7C15)
        z = x
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))
