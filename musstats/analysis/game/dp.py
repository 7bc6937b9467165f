"""The dynamic programme over scores of the game model.

The state is (a, b, who is mano in the next hand), a and b in ``0..target-1``.  A hand's
outcome is drawn from the outcome table; its steps are counted in order and the first
team to reach the target wins at that moment (so the order of the count decides when
both could get there in one hand).  Otherwise the score moves on and mano passes to the
other team.  Every hand awards at least two stones (grande and chica), so a + b strictly
grows and the states are solved from the highest total down: no iteration, no cycles.
"""

from __future__ import annotations

import numpy as np

from musstats.analysis.game.outcomes import Outcomes
from musstats.rules import checks

__all__ = ["win_probabilities"]


def win_probabilities(outcomes: Outcomes, target: int = 40) -> np.ndarray:
    """P(team A wins the game): float64 [2, target, target], indexed ``[m, a, b]``.

    ``a``, ``b``: the scores of teams A and B before a hand; ``m`` = 0 when team A
    is mano's team in that hand, 1 when team B is.  Mano alternates between the
    teams from hand to hand.  Within a hand the count steps are taken in order and
    the first team to reach ``target`` wins at that moment.
    """
    target = checks.positive(target, "the target")
    ts = outcomes.team_stones()  # [K, 4, 2]: team 0 = mano's team
    prob = outcomes.prob
    need = np.arange(target + 1)
    first, total = [], []
    for m in (0, 1):
        # m = 0: A is mano's team (team 0 of the table); m = 1: A is team 1
        ga, gb = ts[:, :, m], ts[:, :, 1 - m]
        ca, cb = np.cumsum(ga, axis=1), np.cumsum(gb, axis=1)
        # first step at which the running total reaches `need` (4 = never): [K, target+1]
        fa = (ca[:, :, None] < need[None, None, :]).sum(axis=1)
        fb = (cb[:, :, None] < need[None, None, :]).sum(axis=1)
        first.append((fa, fb))
        total.append((ca[:, -1], cb[:, -1]))
    p = np.zeros((2, target, target))
    for s in range(2 * target - 2, -1, -1):
        a = np.arange(max(0, s - target + 1), min(s, target - 1) + 1)
        b = s - a
        for m in (0, 1):
            fa, fb = first[m]
            ta, tb = total[m]
            ra = fa[:, target - a].T  # [J, K] step at which A reaches the target
            rb = fb[:, target - b].T
            a_wins = (ra < 4) & (ra < rb)
            b_wins = (rb < 4) & (rb < ra)
            go_on = ~(a_wins | b_wins)
            a2 = np.minimum(a[:, None] + ta[None, :], target - 1)
            b2 = np.minimum(b[:, None] + tb[None, :], target - 1)
            nxt = p[1 - m][a2, b2]
            p[m, a, b] = (a_wins * prob).sum(axis=1) + (go_on * nxt * prob).sum(axis=1)
    return p


