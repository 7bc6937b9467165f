"""The dynamic programme over scores of the game model.

The state is (a, b, who is mano in the next hand), a and b in ``0..target-1``.  A hand's
outcome is drawn from the outcome table; its steps are counted in order and the first
team to reach the target wins at that moment (so the order of the count decides when
both could get there in one hand).  Otherwise the score moves on and mano passes to the
other team.  Every hand awards at least two stones (grande and chica), so a + b strictly
grows and the states are solved from the highest total down: no iteration, no cycles.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from musstats.rules import checks

__all__ = ["win_probabilities", "StepTable"]


class StepTable(Protocol):
    """An outcome table of one hand: the en-paso :class:`~musstats.analysis.game.outcomes.Outcomes`
    or the :class:`~musstats.analysis.game.betting.BettingOutcomes` with betting."""

    @property
    def prob(self) -> np.ndarray: ...

    def team_stones(self) -> np.ndarray: ...


def win_probabilities(outcomes: StepTable, target: int = 40) -> np.ndarray:
    """P(team A wins the game): float64 [2, target, target], indexed ``[m, a, b]``.

    ``a``, ``b``: the scores of teams A and B before a hand; ``m`` = 0 when team A
    is mano's team in that hand, 1 when team B is.  Mano alternates between the
    teams from hand to hand.  Within a hand the count steps are taken in order and
    the first team to reach ``target`` wins at that moment.
    """
    from musstats._kernels.gamedp import win_grid

    target = checks.positive(target, "the target")
    ts = outcomes.team_stones()  # [K, steps, 2]: team 0 = mano's team
    prob = np.ascontiguousarray(outcomes.prob, np.float64)
    n_steps = ts.shape[1]
    need = np.arange(target + 1)
    k = ts.shape[0]
    fa = np.empty((2, target + 1, k), np.int8)
    fb = np.empty((2, target + 1, k), np.int8)
    ta = np.empty((2, k), np.int64)
    tb = np.empty((2, k), np.int64)
    for m in (0, 1):
        # m = 0: A is mano's team (team 0 of the table); m = 1: A is team 1
        ca, cb = np.cumsum(ts[:, :, m], axis=1), np.cumsum(ts[:, :, 1 - m], axis=1)
        # first step at which the running total reaches `need` (n_steps = never)
        fa[m] = (ca[:, :, None] < need[None, None, :]).sum(axis=1).T
        fb[m] = (cb[:, :, None] < need[None, None, :]).sum(axis=1).T
        ta[m], tb[m] = ca[:, -1], cb[:, -1]
    return win_grid(fa, fb, ta, tb, prob, int(target), int(n_steps))
