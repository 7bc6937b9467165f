"""Kernels of the en-paso count of whole deals (private; see musstats.engines.scoring and
musstats.analysis.game).

A deal's *count steps* are the four counted lances in count order -- grande, chica,
pares, juego or (when nobody holds juego) punto -- and each awards stones to one team
(or none: pares when nobody holds it).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from musstats._kernels.lances import CHICA, GRANDE, PARES, PUNTO, paso_stones, resolve

__all__ = ["count_steps", "count_steps_batch", "outcome_codes"]


@njit(cache=True)
def count_steps(hs, team, tab, out):
    """Stones of each team per count step, en paso: ``out`` int64 [4, teams]."""
    bg, bc, bp, bj, bu, _, _, vp, vj = resolve(hs, team, tab)
    out[:, :] = 0
    for c in range(4):
        lance = c
        best = bg if c == GRANDE else bc if c == CHICA else bp if c == PARES else bj
        if c == 3 and bj < 8:
            lance = PUNTO
            best = bu
        wt, v = paso_stones(lance, best, bp, bj, vp, vj, team)
        if wt >= 0:
            out[c, wt] += v


@njit(cache=True, parallel=True)
def count_steps_batch(deals, team, tab, n_teams):
    """:func:`count_steps` of every deal (hand indices [N, seats]): int64 [N, 4, teams]."""
    n = deals.shape[0]
    out = np.zeros((n, 4, n_teams), np.int64)
    for i in prange(n):
        count_steps(deals[i], team, tab, out[i])
    return out


@njit(cache=True, parallel=True)
def outcome_codes(deals, team, tab, max_step, base):
    """The packed en-paso outcome of every 4-seat deal: per step ``s`` (0..3) the signed
    stones ``d = team 0 - team 1`` as the digit ``d + max_step`` of base ``base``, the first
    step lowest."""
    n = deals.shape[0]
    out = np.empty(n, np.int64)
    for i in prange(n):
        st = np.empty((4, 2), np.int64)
        count_steps(deals[i], team, tab, st)
        c = 0
        for j in range(3, -1, -1):
            c = c * base + (st[j, 0] - st[j, 1] + max_step)
        out[i] = c
    return out
