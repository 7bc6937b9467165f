"""The pooled game solved and measured exactly: no sampling (kernels in
:mod:`musstats._kernels.vcfr`).

In the pooled information model each team sees both its hands, and its information is its
*pooled state* (its best hand in the lance, the seat holding it, the team's values in pares
and juego): a two-player zero-sum game between the teams.  Its chance move is the joint law
of the two teams' states, ``P[s0, s1]``, which card removal makes far from a product:

    P[s0, s1] = sum over the pairs (h1, h3) of team 1 of ways(h1) ways(h3 | h1)
                x sum over the pairs (h0, h2) of team 0 in s0 of ways(h0 | ...) ways(h2 | ...),

over the deals of four hands that fit the subgame's declarations, normalised.  The inner sum
depends only on the deck team 1 leaves, and is the row of team 0's pair table
(:func:`.vector.pair_table`), so the law takes one pass over team 1's pairs (a few seconds).
Only a few hundred states of each team carry weight (659 at grande, 747 in pares with all
four declared, 227 in juego).

With the law, a best response is exact: the terminal sums of a team -- over the other
team's states, the law times their reach times the utility -- then a backward pass that takes
the best action per state (:func:`pooled_exploitability`, under a second per subgame).  The
same sums with the team's own strategy give every action's counterfactual value, so the
solver is full-width discounted CFR with exact chance (:func:`solve_pooled`), alternating
the teams; its NashConv is exact at every step.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.tree import LANCE_INDEX
from musstats.engines.betting.vector import (VectorGame, _value_col, deck_codes, deck_tables, pair_table,
                                             regrets_in_game_layout, vector_game)
from musstats.engines.solving.game import SolverGame
from musstats.rules.variant import Variant

__all__ = ["team_pairs", "pooled_law", "PooledGame", "pooled_game", "pooled_regrets"]


def team_pairs(vg: VectorGame, t: int) -> np.ndarray:
    """Every pair (hand at seat ``t``, hand at seat ``t + 2``) that fits the declarations:
    int64 [n, 2] (card removal between the two is left to the weights)."""
    a, b = vg.lists[t], vg.lists[t + 2]
    return np.ascontiguousarray(np.stack(np.meshgrid(a, b, indexing="ij"), axis=-1).reshape(-1, 2), np.int64)


def pooled_law(vg: VectorGame, pairs1: np.ndarray | None = None) -> np.ndarray:
    """The joint law of the two teams' pooled states in the subgame: float64 [states of team
    0, states of team 1], summing to 1 (card removal exact: every deal of four hands that fit
    the declarations, weighted by its card combinations).  ``pairs1``: only these pairs of
    team 1 (the tests; default every pair, :func:`team_pairs`)."""
    from musstats._kernels.vcfr import pooled_joint

    if vg.game.info != "pooled":
        raise MusError("the exact law of the teams' states is for the pooled information model")
    lay = vg.layout
    if pairs1 is None:
        return _pooled_law(vg.variant, vg.lance, vg.pattern, int(lay.m[0]), int(lay.m[1]))
    dt = deck_tables(vg.variant)
    W0 = pair_table(dt, vg.lance, 0, vg.req, int(lay.m[0]))
    if not W0.shape[0]:
        raise MusError("the exact law of the teams' states is too large for these rules")
    rmap, radix = deck_codes(dt.cls_cnt)
    P = pooled_joint(W0, rmap, radix, np.ascontiguousarray(pairs1, np.int64), LANCE_INDEX[vg.lance],
                     _value_col(vg.lance), dt.tab, dt.cls_cnt, dt.nzc, dt.nzn, dt.nnz, dt.binom, int(lay.m[1]))
    total = P.sum()
    if total <= 0:
        raise MusError("no deal fits the declarations of this subgame")
    return P / total


@lru_cache(maxsize=2)
def _pooled_law(variant: Variant, lance: str, pattern: int, m0: int, m1: int) -> np.ndarray:
    from musstats.engines.betting.info import make_game
    from musstats.engines.betting.tree import betting_tree
    from musstats.engines.betting.game import StonePayoff
    from musstats.tables.hands import hand_tables

    t = betting_tree(lance, pattern)
    game = make_game(t, "pooled", StonePayoff().table(t), hand_tables(variant).n_hands)
    vg = vector_game(game, variant, pattern, pair_tables=False)
    P = pooled_law(vg, team_pairs(vg, 1))
    P.flags.writeable = False
    return P


class PooledGame(SolverGame):
    """The pooled game with exact chance: the law of the two teams' states (and its
    transpose), the terminal rows of the payoff table, the tree (module doc)."""

    exact = True
    samples_text = "exact: the law of the two teams' pooled states, card removal exact (no sampling)"

    def __init__(self, vg: VectorGame, pairs1: np.ndarray | None = None) -> None:
        self.vg = vg
        self.layout = vg.layout
        P = pooled_law(vg, pairs1)
        self.Q = (P, np.ascontiguousarray(P.T))  # each team's states first
        self.trow = self.layout.u_rows
        self.U = vg.U_work(np.float64)

    def sums(self, SIG: np.ndarray, k: int) -> np.ndarray:
        """Team ``k``'s terminal sums against the other team's strategy in ``SIG``."""
        from musstats._kernels.vcfr import pooled_terminal_sums

        vg = self.vg
        return pooled_terminal_sums(self.Q[k], self.layout.own_reach(SIG, 1 - k), self.U, self.trow,
                                    LANCE_INDEX[vg.lance], vg.col, vg.deck.tab, k)

    def action_values(self, owners, SIG, t):
        from musstats._kernels.cfr import own_action_values

        lay = self.layout
        return [own_action_values(lay.tr, SIG, int(lay.tb[k]), int(lay.m[k]), k, self.sums(SIG, k), lay.rows(k))
                for k in owners]

    def terminal_sums(self, k, SIG, sample):
        return self.sums(SIG, k)

    def sample_values(self, k, SIG, sample):
        x = float((self.layout.own_reach(SIG, k) * self.sums(SIG, k)).sum())
        return np.array([x]), np.ones(1)


def pooled_game(vg: VectorGame, pairs1: np.ndarray | None = None) -> PooledGame:
    """The exact pooled game of a pooled subgame's vector form."""
    return PooledGame(vg, pairs1)


def pooled_regrets(vg: VectorGame, k: int, sigma: np.ndarray, pairs1: np.ndarray | None = None) -> np.ndarray:
    """Team ``k``'s instantaneous counterfactual regrets under ``sigma`` (stored layout),
    exact: what one iteration adds (checked against the deal solver's)."""
    pg = PooledGame(vg, pairs1)
    SIG = vg.layout.from_game(sigma)
    Q = pg.action_values([k], SIG, 1)[0][0]
    return regrets_in_game_layout(vg.layout, k, SIG, Q)
