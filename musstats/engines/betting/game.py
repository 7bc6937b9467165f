"""Payoffs of one lance's betting, in stones, zero-sum between the teams.

Each deal is summarised by an *outcome code* (:func:`outcome_code`): who holds the best
hand of the lance and the count values of each team's holders,

    o = 49 * S + 7 * V0 + V1,  S = 1 if team 0 (mano and third) holds the best hand else 0,
    V0, V1 = the pares (1/2/3) or juego (3 for 31, 2) values of each team's holders (0..6;
             0 in grande, chica and punto),

and a payoff is a table ``U[terminal, o]`` of team 0's utility (team 1 gets ``-U``).
Any terminal utility that depends on the deal only through (S, V0, V1) is such a
table: the stones of this module, or the P(win the game) at a score (:class:`GamePayoff`;
plug in another :class:`Payoff`).

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
           "RestOfHand", "COUNT_SLOTS", "count_slot", "hand_end_value", "DEFAULT_ORDAGO_STONES", "paso_stones"]

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
# P(win the game) at a score


import hashlib  # noqa: E402
from dataclasses import field  # noqa: E402
from typing import Any  # noqa: E402

#: the count of a hand in lance order (docs/rules.md, "Scoring at the count"): juego and
#: punto share the last place (one of them is played)
COUNT_SLOTS = ("grande", "chica", "pares", "juego/punto")


def count_slot(lance: str) -> int:
    """The place of a lance in the count (0 grande, 1 chica, 2 pares, 3 juego or punto)."""
    return {"grande": 0, "chica": 1, "pares": 2, "juego": 3, "punto": 3}[lance]


@dataclass(frozen=True, eq=False)
class RestOfHand:
    """The other lances of the hand at the count, given one lance's outcome code.

    Rows ``(o, stones, weight)``: ``o`` the outcome code of ``lance`` in a deal, ``stones``
    team 0's signed stones of each place of the count (:data:`COUNT_SLOTS`; > 0 to team 0,
    < 0 to team 1; the place of ``lance`` itself is ignored), ``weight`` how often.  Build it
    with :meth:`from_samples` from deals; ``source`` says what the rows were drawn from (it
    enters the key)."""

    lance: str
    o: np.ndarray
    stones: np.ndarray
    weight: np.ndarray
    source: str = ""

    def __post_init__(self) -> None:
        if self.lance not in ("grande", "chica", "pares", "juego", "punto"):
            raise MusError(f"unknown lance {self.lance!r}")
        o = np.asarray(self.o, np.int64).ravel()
        st = np.asarray(self.stones, np.int64).reshape(-1, len(COUNT_SLOTS))
        w = np.asarray(self.weight, np.float64).ravel()
        if not (o.shape[0] == st.shape[0] == w.shape[0]):
            raise MusError("RestOfHand: o, stones and weight must have one row each")
        if o.size and (o.min() < 0 or o.max() >= N_OUTCOMES):
            raise MusError(f"RestOfHand: outcome codes are 0..{N_OUTCOMES - 1}")
        if (w < 0).any() or not np.isfinite(w).all():
            raise MusError("RestOfHand: weights must be finite and not negative")
        object.__setattr__(self, "o", o)
        object.__setattr__(self, "stones", st)
        object.__setattr__(self, "weight", w)

    @classmethod
    def from_samples(cls, lance: str, o: np.ndarray, stones: np.ndarray, source: str = "") -> "RestOfHand":
        """The distinct rows of per-deal samples (``o`` [N], ``stones`` [N, 4]), weighted by
        their counts."""
        o = np.asarray(o, np.int64).ravel()
        st = np.asarray(stones, np.int64).reshape(-1, len(COUNT_SLOTS))
        rows = np.concatenate([o[:, None], st], axis=1)
        if rows.shape[0] == 0:
            return cls(lance, np.zeros(0, np.int64), np.zeros((0, 4), np.int64), np.zeros(0), source)
        u, n = np.unique(rows, axis=0, return_counts=True)
        return cls(lance, u[:, 0], u[:, 1:], n.astype(np.float64), source)

    @property
    def key(self) -> str:
        h = hashlib.sha1(self.lance.encode() + b"|" + self.source.encode())
        for x in (self.o, self.stones, self.weight):
            h.update(np.ascontiguousarray(x).tobytes())
        return h.hexdigest()[:12]


def hand_end_value(a: int, b: int, target: int, grid: np.ndarray, lance: str, terminal, o: np.ndarray,
                   rest: np.ndarray | None = None) -> np.ndarray:
    """P(team 0 wins the game) when ``lance``'s betting ends in ``terminal``, per deal.

    ``a``, ``b``: the score before the hand (team 0 first); ``o``: the lance's outcome code
    per deal [K]; ``rest``: team 0's signed stones of the other places of the count per deal
    [K, 4] (None: nothing); ``grid``: P(team 0 wins) at the start of the next hand.  In the
    order of docs/rules.md:

    1. an accepted órdago: the lance decides the game (1 if team 0 holds its best hand);
    2. the deje of a refused bet is taken at once: the bettors win if it reaches the target;
    3. then the count in lance order (grande, chica, pares, juego or punto), this lance's
       place holding its stones (en paso, an accepted bet, or the bettors' own values after
       a refusal): the first team to reach the target wins there, the rest is not counted;
    4. nobody reached it: the new score, valued by ``grid``."""
    o = np.asarray(o, np.int64).ravel()
    K = o.shape[0]
    s_bit = o // 49
    if terminal.kind == ORDAGO:
        return s_bit.astype(np.float64)
    v0, v1 = (o // 7) % 7, o % 7
    sign = np.where(s_bit == 1, 1, -1)
    vw: np.ndarray
    if lance in ("pares", "juego"):
        vw = np.where(s_bit == 1, v0, v1)
    elif lance == "punto":
        vw = np.ones(K, np.int64)
    else:
        vw = np.zeros(K, np.int64)
    own: np.ndarray
    vt: np.ndarray
    A = np.full(K, int(a), np.int64)
    B = np.full(K, int(b), np.int64)
    if terminal.kind == PASO:
        own = sign * (vw if lance in ("pares", "juego") else 1)
    elif terminal.kind == ACCEPTED:
        own = sign * (int(terminal.stake) + vw)
    elif terminal.kind == REFUSED:
        if lance in ("pares", "juego"):
            vt = v0 if terminal.by == 0 else v1
        else:
            vt = np.full(K, 1 if lance == "punto" else 0, np.int64)
        own = vt if terminal.by == 0 else -vt
        if terminal.by == 0:
            A += int(terminal.deje)
        else:
            B += int(terminal.deje)
    else:  # pragma: no cover - every kind is above
        raise MusError(f"unknown terminal kind {terminal.kind!r}")
    T = int(target)
    val = np.full(K, np.nan)
    val[A >= T] = 1.0
    val[B >= T] = 0.0
    me = count_slot(lance)
    x: np.ndarray
    for slot in range(len(COUNT_SLOTS)):
        if slot == me:
            x = own
        elif rest is None:
            continue
        else:
            x = np.asarray(rest, np.int64)[:, slot]
        A = A + np.maximum(x, 0)
        B = B + np.maximum(-x, 0)
        still = np.isnan(val)
        val[still & (A >= T)] = 1.0
        val[still & (B >= T)] = 0.0
    still = np.isnan(val)
    val[still] = np.asarray(grid, np.float64)[A[still], B[still]]
    return val


@dataclass(frozen=True)
class GamePayoff(Payoff):
    """Team 0's utility = P(team 0 wins the game), from the score before the hand.

    ``a``, ``b``: the stones of team 0 (mano and third) and team 1 (second and postre)
    before this hand; ``variant``: the full rules (target, every switch); ``grid``:
    P(team 0 wins the game) [T, T] at the start of the next hand, team 1 mano (the
    analysis layer passes the win-the-game model's ``p[1]``,
    :func:`musstats.analysis.ordago_eq.next_hand_grid`); ``rest``: the other lances of the
    hand at the count given this lance's outcome (a :class:`RestOfHand`, e.g. played en
    paso; None: they give nothing).

    Per terminal and outcome code, :func:`hand_end_value` averaged over the rows of ``rest``
    with that outcome code: an accepted órdago decides the game; the deje of a refused bet
    is taken at once; then the count in lance order, this lance's stones in its place;
    the first team to reach the target wins, and a score short of it is valued by
    ``grid`` at the start of the **next** hand (the other team mano).  An outcome code
    that no row of ``rest`` holds gets the other lances' stones as 0.

    Approximation: the payoff sees the deal through this lance's outcome code only, so the
    other lances enter as their average given it (not given the players' private hands).
    The solver's table is ``P(win) - 1/2`` (:attr:`CENTRE`): team 0 gets ``P - 1/2`` and
    team 1 ``-(P - 1/2) = (1 - P) - 1/2``, the constant-sum game in P(win) made exactly
    zero-sum; :meth:`p_win_table` gives P(win) itself.  The key holds the score, the rules,
    a hash of ``grid`` and the key of ``rest``."""

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
    rest: Any = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        from musstats.rules.variant import Variant

        v = self.variant if self.variant is not None else Variant()
        object.__setattr__(self, "variant", v)
        t = int(v.target)
        for what, x in (("our", self.a), ("their", self.b)):
            whole = (isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
                     and float(x).is_integer())
            if not whole or not 0 <= int(x) < t:
                raise MusError(f"the score must be whole numbers of stones from 0 to {t - 1}, got {x!r} ({what})")
        object.__setattr__(self, "a", int(self.a))
        object.__setattr__(self, "b", int(self.b))
        g = None if self.grid is None else np.asarray(self.grid, np.float64)
        if g is None or g.shape != (t, t):
            raise MusError(f"GamePayoff needs the next hand's P(win the game) grid, {t} x {t} stones")
        object.__setattr__(self, "grid", g)
        if self.rest is not None and not isinstance(self.rest, RestOfHand):
            raise MusError("GamePayoff's rest must be a RestOfHand (or None)")

    @property
    def target(self) -> int:
        return int(self.variant.target)

    @property
    def key(self) -> str:  # type: ignore[override]
        g = hashlib.sha1(np.ascontiguousarray(self.grid).tobytes()).hexdigest()[:12]
        r = "" if self.rest is None else f"-rest-{self.rest.lance}-{self.rest.key}"
        return f"game-c{self.CENTRE:g}-{self.a}-{self.b}-{self.variant.cache_key()}-grid-{g}{r}"

    def next_grid(self) -> np.ndarray:
        """P(team 0 wins) [T, T] at the start of the next hand (team 1 mano)."""
        return self.grid

    def value_after(self, stones: float) -> float:
        """P(team 0 wins) after the hand gives ``stones`` (> 0: to team 0, < 0: to team 1) and
        nothing else."""
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
        lance = tree.lance
        rest = self.rest
        if rest is not None and rest.lance != lance:
            raise MusError(f"the payoff's other lances are those of {rest.lance}, not of {lance}")
        codes = np.arange(N_OUTCOMES)
        u = np.zeros((tree.n_terminals, N_OUTCOMES))
        have = np.zeros(N_OUTCOMES, bool)
        tot = None
        if rest is not None and rest.o.size:
            tot = np.bincount(rest.o, rest.weight, N_OUTCOMES)
            have = tot > 0
        for i, t in enumerate(tree.terminals):
            row = hand_end_value(self.a, self.b, self.target, self.grid, lance, t, codes)
            if tot is not None:
                val = hand_end_value(self.a, self.b, self.target, self.grid, lance, t, rest.o, rest.stones)
                avg = np.bincount(rest.o, rest.weight * val, N_OUTCOMES)
                row = np.where(have, avg / np.where(have, tot, 1.0), row)
            u[i] = row
        return u
