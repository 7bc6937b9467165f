"""Dealing helpers shared by the kernels: shuffles of physical card ids and hand indices
(private)."""

from __future__ import annotations

import numpy as np
from numba import njit

from musstats._kernels.rng import M32, bounded, next64

__all__ = ["shuffle", "sorted_hand", "hand_index"]


@njit(cache=True, inline="always")
def shuffle(a, n, st, m=-1):
    """Uniform Fisher–Yates shuffle of a[0:n] in place; with ``m`` only the last ``m``
    positions (a[n-m:n]) are drawn, which is all a partial deal needs."""
    lo = 0 if m < 0 else max(n - m - 1, 0)
    i = n - 1
    while i > lo:
        r = next64(st)
        j = bounded(r & M32, i + 1, st)
        t = a[i]
        a[i] = a[j]
        a[j] = t
        i -= 1
        if i > lo:
            j = bounded(r >> np.uint64(32), i + 1, st)
            t = a[i]
            a[i] = a[j]
            a[j] = t
            i -= 1


@njit(cache=True, inline="always")
def sorted_hand(cards4, card_class, out):
    """Copy the 4 card ids into ``out`` sorted by class id, highest first."""
    for i in range(4):
        out[i] = cards4[i]
    for i in range(1, 4):
        c = out[i]
        j = i - 1
        while j >= 0 and card_class[out[j]] < card_class[c]:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = c


@njit(cache=True, inline="always")
def hand_index(cards4, card_class, k_cls, idx4):
    return idx4[((card_class[cards4[0]] * k_cls + card_class[cards4[1]]) * k_cls
                 + card_class[cards4[2]]) * k_cls + card_class[cards4[3]]]
