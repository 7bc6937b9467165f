"""Payoffs of one lance's betting, in stones, zero-sum between the teams.

Each deal is summarised by an *outcome code* (:func:`outcome_code`): who holds the best
hand of the lance and the count values of each team's holders,

    o = 49 * S + 7 * V0 + V1,  S = 1 if team 0 (mano and third) holds the best hand else 0,
    V0, V1 = the pares (1/2/3) or juego (3 for 31, 2) values of each team's holders (0..6;
             0 in grande, chica and punto),

and a payoff is a table ``U[terminal, o]`` of team 0's utility (team 1 gets ``-U``).
Any terminal utility that depends on the deal only through (S, V0, V1) is such a
table: the stones of this module, or the P(win the game) at a score of the decisions
issue (plug in another :class:`Payoff`).

The stones (docs/rules.md "Betting" and "Scoring at the count"; the same numbers as
:func:`musstats.engines.scoring.score_hand` for that lance), with ``s = +1`` when team 0
holds the best hand and ``-1`` otherwise, and ``Vw`` the winning team's values:

=================  =======================  =========================  ==================
terminal           grande, chica            pares, juego               punto
=================  =======================  =========================  ==================
en paso            s                        s * Vw                     s
``n`` accepted     s * n                    s * (n + Vw)               s * (n + 1)
refused, deje d    ±d (bettors' sign)       ±(d + V of the bettors)    ±(d + 1)
órdago accepted    s * K                    s * K                      s * K
=================  =======================  =========================  ==================

In feature form: ``U = a*s + b*s*Vw + c*V0 + e*V1 + f`` with per-terminal coefficients.

An accepted órdago wins or loses the game.  In this score-free game it is worth
``K`` stones, the stones-equivalent of a game win at 0-0 (:func:`musstats.analysis.game.model.ordago_stones`):
``K = (1 - W) / dW`` with ``W = W(0, 0) = 0.5`` the probability of winning the game
from 0-0 (average over who is mano) and ``dW = (W(1, 0) - W(0, 1)) / 2`` what one
stone is worth there, from the en-paso game model (:func:`musstats.analysis.game.game_model`,
hands after one mus round, 4,000,000 deals, seed 1): **K = 19.8 stones** with 8
reyes to 40 (``DEFAULT_ORDAGO_STONES``).  Override it with ``StonePayoff(K)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.tree import ACCEPTED, ALL_SEATS, ORDAGO, PASO, REFUSED, BettingTree, betting_tree

__all__ = ["N_OUTCOMES", "outcome_code", "decode_outcome", "Payoff", "StonePayoff", "GamePayoff",
           "DEFAULT_ORDAGO_STONES", "paso_stones"]

#: number of outcome codes: S in {0, 1} x V0 in 0..6 x V1 in 0..6
N_OUTCOMES = 98
#: the stones-equivalent of winning the game at 0-0 (8 reyes, game to 40; see the module doc)
DEFAULT_ORDAGO_STONES = 19.8


def outcome_code(team0_best: int, v0: int, v1: int) -> int:
    """The outcome code of (S, V0, V1)."""
    return 49 * int(bool(team0_best)) + 7 * int(v0) + int(v1)


def decode_outcome(o: int) -> tuple[int, int, int]:
    """(S, V0, V1) of an outcome code."""
    return o // 49, (o // 7) % 7, o % 7


class Payoff:
    """A terminal utility: ``table(tree)`` → float64 [n_terminals, N_OUTCOMES], team 0's
    utility (team 1's is its negative).  ``key`` enters the cache key of a solve."""

    key: str = "payoff"

    def table(self, tree: BettingTree) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class StonePayoff(Payoff):
    """Stones, with an accepted órdago worth ``ordago`` stones (module doc)."""

    ordago: float = DEFAULT_ORDAGO_STONES

    def __post_init__(self) -> None:
        if not (0 < float(self.ordago) < 1000):
            raise MusError(f"the órdago's worth in stones must be a number from 0 to 1000, got {self.ordago!r}")

    @property
    def key(self) -> str:  # type: ignore[override]
        return f"stones-K{float(self.ordago):g}"

    def table(self, tree: BettingTree) -> np.ndarray:
        lance = tree.lance
        u = np.zeros((tree.n_terminals, N_OUTCOMES))
        for o in range(N_OUTCOMES):
            s_bit, v0, v1 = decode_outcome(o)
            s = 1.0 if s_bit else -1.0
            if lance in ("pares", "juego"):
                vw, vt = (v0 if s_bit else v1), (v0, v1)
            elif lance == "punto":
                vw, vt = 1, (1, 1)
            else:
                vw, vt = 0, (0, 0)
            for i, t in enumerate(tree.terminals):
                if t.kind == PASO:
                    u[i, o] = s * (vw if lance in ("pares", "juego") else 1)
                elif t.kind == ACCEPTED:
                    u[i, o] = s * (t.stake + vw)
                elif t.kind == REFUSED:
                    gain = t.deje + vt[t.by]
                    u[i, o] = gain if t.by == 0 else -gain
                elif t.kind == ORDAGO:
                    u[i, o] = s * float(self.ordago)
        return u


def paso_stones(lance: str, o: np.ndarray) -> np.ndarray:
    """Team 0's stones when ``lance`` is played en paso, per outcome code (float)."""
    tree = betting_tree(lance, ALL_SEATS)
    row = next(i for i, t in enumerate(tree.terminals) if t.kind == PASO)
    return StonePayoff().table(tree)[row, o]


# ---------------------------------------------------------------------------
# P(win the game) at a score (issue 14, "Órdago at a given score")


import hashlib  # noqa: E402
from dataclasses import field  # noqa: E402
from typing import Any  # noqa: E402


@dataclass(frozen=True)
class GamePayoff(Payoff):
    """Team 0's utility = P(team 0 wins the game), from the score before the hand.

    ``a``, ``b``: the stones of team 0 (mano and third) and team 1 (second and postre)
    before this hand; ``variant``: the full rules (target, every switch); ``grid``:
    P(team 0 wins the game) [T, T] at the start of the next hand, team 1 mano (the
    analysis layer passes the win-the-game model's ``p[1]``,
    :func:`musstats.analysis.ordago_eq.next_hand_grid`).  Per terminal and outcome code:

    * an accepted órdago: 1 if team 0 holds the best hand of the lance, else 0 (the lance
      decides the game; earlier stones do not matter);
    * anything else: the lance's stones (those of :class:`StonePayoff`: en paso, an
      accepted bet, a refused one with its deje and the bettors' count values) go to the
      team that gets them; a team that reaches the target wins (1 or 0); otherwise the new
      score is valued by the win-the-game model at the start of the **next** hand, whose
      mano is the other team (second becomes mano): ``W_next(a', b') = model.p[1, a', b']``.

    Approximation: the other lances of this hand are not played in this subgame (their
    stones, and the order of taking stones at the count, are left out), and later hands
    are valued by the game model the analysis layer passes (with betting where it
    ships).  The solver's table is ``P(win) - 1/2``
    (:attr:`CENTRE`): team 0 gets ``P - 1/2`` and team 1 ``-(P - 1/2) = (1 - P) - 1/2``, the
    constant-sum game in P(win) made exactly zero-sum; :meth:`p_win_table` gives P(win)
    itself.  The key holds the score, the rules and a hash of ``grid``."""

    #: the solver's table is P(win) - 1/2: team 0 gets P - 1/2 and team 1 (1 - P) - 1/2 = -(P - 1/2),
    #: exactly zero-sum.  A constant changes no equilibrium in theory, but the sampled vector solver
    #: (float32 work arrays) is not shift-invariant in practice: at grande 0-0, 300 iterations, NashConv
    #: 0.0087 with P(win) itself against 0.0003 centred.  Values read from the solved game are
    #: ``+ CENTRE``.
    CENTRE = 0.5

    a: int = 0
    b: int = 0
    variant: Any = None  # a musstats.rules.variant.Variant (None: the default rules)
    grid: Any = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        from musstats.rules.variant import Variant

        v = self.variant if self.variant is not None else Variant()
        object.__setattr__(self, "variant", v)
        t = int(v.target)
        for what, x in (("our", self.a), ("their", self.b)):
            if isinstance(x, bool) or int(x) != x or not 0 <= int(x) < t:
                raise MusError(f"the score must be whole numbers of stones from 0 to {t - 1}, got {x!r} ({what})")
        object.__setattr__(self, "a", int(self.a))
        object.__setattr__(self, "b", int(self.b))
        g = None if self.grid is None else np.asarray(self.grid, np.float64)
        if g is None or g.shape != (t, t):
            raise MusError(f"GamePayoff needs the next hand's P(win the game) grid, {t} x {t} stones")
        object.__setattr__(self, "grid", g)

    @property
    def target(self) -> int:
        return int(self.variant.target)

    @property
    def key(self) -> str:  # type: ignore[override]
        g = hashlib.sha1(np.ascontiguousarray(self.grid).tobytes()).hexdigest()[:12]
        return f"game-c{self.CENTRE:g}-{self.a}-{self.b}-{self.variant.cache_key()}-grid-{g}"

    def next_grid(self) -> np.ndarray:
        """P(team 0 wins) [T, T] at the start of the next hand (team 1 mano)."""
        return self.grid

    def value_after(self, stones: float) -> float:
        """P(team 0 wins) after the lance gives ``stones`` (> 0: to team 0, < 0: to team 1)."""
        return self._value(self.next_grid(), stones)

    def _value(self, g: np.ndarray, stones: float) -> float:
        T = self.target
        s = int(round(stones))
        a2 = self.a + max(s, 0)
        b2 = self.b + max(-s, 0)
        if a2 >= T:
            return 1.0
        if b2 >= T:
            return 0.0
        return float(g[a2, b2])

    def table(self, tree: BettingTree) -> np.ndarray:
        """The solver's table: ``p_win_table(tree) - CENTRE`` (see :data:`CENTRE`)."""
        return self.p_win_table(tree) - self.CENTRE

    def p_win_table(self, tree: BettingTree) -> np.ndarray:
        """P(team 0 wins the game) per terminal and outcome code."""
        stones = StonePayoff().table(tree)
        g = self.next_grid()
        u = np.zeros_like(stones)
        for i, t in enumerate(tree.terminals):
            for o in range(N_OUTCOMES):
                if t.kind == ORDAGO:
                    u[i, o] = float(o // 49)
                else:
                    u[i, o] = self._value(g, stones[i, o])
        return u
