"""Kernel of the dynamic programme over scores of the game model (private; see
musstats.analysis.game.dp)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["win_grid"]


@njit(cache=True)
def win_grid(fa, fb, ta, tb, prob, target, n_steps):
    """P(team A wins) float64 [2, target, target] indexed [m, a, b].

    ``fa[m, need, k]`` (``fb``): the first step of outcome ``k`` at which A's (B's) running
    total in the hand reaches ``need`` stones (``n_steps``: never), when A is mano's team
    (m = 0) or B is (m = 1); ``ta[m, k]``, ``tb[m, k]``: the hand's totals; ``prob[k]``."""
    n_out = prob.shape[0]
    p = np.zeros((2, target, target))
    for s in range(2 * target - 2, -1, -1):
        for a in range(max(0, s - target + 1), min(s, target - 1) + 1):
            b = s - a
            for m in range(2):
                acc = 0.0
                for k in range(n_out):
                    ra = fa[m, target - a, k]
                    rb = fb[m, target - b, k]
                    if ra < n_steps and ra < rb:
                        acc += prob[k]
                    elif rb < n_steps and rb < ra:
                        continue
                    else:
                        a2 = min(a + ta[m, k], target - 1)
                        b2 = min(b + tb[m, k], target - 1)
                        acc += prob[k] * p[1 - m, a2, b2]
                p[m, a, b] = acc
    return p
