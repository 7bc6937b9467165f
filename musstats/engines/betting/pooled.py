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

import time
from functools import lru_cache
from typing import Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting.solver import SolveConfig, Strategy
from musstats.engines.betting.tree import LANCE_INDEX
from musstats.engines.betting.vector import (VectorGame, _best_response_t, _normalise_t, _value_col, deck_codes,
                                             deck_tables, pair_table, regrets_in_game_layout, vector_game)
from musstats.engines.run import Interrupt
from musstats.rules.variant import Variant

__all__ = ["team_pairs", "pooled_law", "pooled_exploitability", "pooled_regrets", "solve_pooled"]


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
    if pairs1 is None:
        return _pooled_law(vg.variant, vg.lance, vg.pattern, int(vg.m[0]), int(vg.m[1]))
    dt = deck_tables(vg.variant)
    W0 = pair_table(dt, vg.lance, 0, vg.req, int(vg.m[0]))
    if not W0.shape[0]:
        raise MusError("the exact law of the teams' states is too large for these rules")
    rmap, radix = deck_codes(dt.cls_cnt)
    P = pooled_joint(W0, rmap, radix, np.ascontiguousarray(pairs1, np.int64), LANCE_INDEX[vg.lance],
                     _value_col(vg.lance), dt.tab, dt.cls_cnt, dt.nzc, dt.nzn, dt.nnz, dt.binom, int(vg.m[1]))
    total = P.sum()
    if total <= 0:
        raise MusError("no deal fits the declarations of this subgame")
    return P / total


@lru_cache(maxsize=2)
def _pooled_law(variant: Variant, lance: str, pattern: int, m0: int, m1: int) -> np.ndarray:
    from musstats.engines.betting.store import Spec

    vg = vector_game(Spec(lance=lance, pattern=pattern, info="pooled", variant=variant).game(), variant, pattern,
                     pair_tables=False)
    P = pooled_law(vg, team_pairs(vg, 1))
    P.flags.writeable = False
    return P


class _Exact:
    """What the exact computations of one pooled subgame share: the law (and its transpose),
    the terminal rows of the payoff table, the tree."""

    def __init__(self, vg: VectorGame, pairs1: np.ndarray | None = None) -> None:
        self.vg = vg
        P = pooled_law(vg, pairs1)
        self.Q = (P, np.ascontiguousarray(P.T))  # each team's states first
        tr = vg.tr
        tnodes = np.nonzero(tr[0] == 1)[0]
        self.trow = np.zeros(vg.n_tz, np.int64)
        self.trow[tr[7, tnodes]] = tr[4, tnodes]
        self.U = vg.U_work(np.float64)

    def reach(self, sigT: np.ndarray, k: int) -> np.ndarray:
        """Team ``k``'s own reach at the terminals, per state: [n_tz, m[k]]."""
        from musstats._kernels.vcfr import own_reach_terminal

        vg = self.vg
        return own_reach_terminal(sigT, vg.tr, int(vg.tb[k]), int(vg.m[k]), k, vg.n_tz)

    def sums(self, sigT: np.ndarray, k: int) -> np.ndarray:
        """Team ``k``'s terminal sums against the other team's strategy in ``sigT``."""
        from musstats._kernels.vcfr import pooled_terminal_sums

        vg = self.vg
        return pooled_terminal_sums(self.Q[k], self.reach(sigT, 1 - k), self.U, self.trow, LANCE_INDEX[vg.lance],
                                    vg.col, vg.tab, k)


def pooled_exploitability(vg: VectorGame, sigma: np.ndarray, pairs1: np.ndarray | None = None):
    """The exact NashConv of ``sigma`` (game layout) in the pooled game: each team's best
    response over the exact law of the two teams' states (:func:`pooled_law`), no sampling:
    an :class:`.exploit.Exploitability` with ``exact`` true (lower bound = in-sample = the
    NashConv, standard errors 0; ``deals`` 0)."""
    return _exploitability(_Exact(vg, pairs1), vg.from_game(sigma))


def _exploitability(ex: _Exact, sigT: np.ndarray):
    from musstats.engines.betting.exploit import Exploitability

    vg = ex.vg
    gains, value0 = [], 0.0
    for k in (0, 1):
        T = ex.sums(sigT, k)
        now = float((ex.reach(sigT, k) * T).sum())
        if k == 0:
            value0 = now
        if not vg.own_nodes[k].shape[0]:
            gains.append(0.0)
            continue
        resp = _best_response_t(vg, k, T)
        sig_r = sigT.copy()
        sig_r[int(vg.tb[k]): int(vg.tb[k]) + resp.shape[0], : int(vg.m[k])] = resp
        gains.append(float((ex.reach(sig_r, k) * T).sum()) - now)
    nc = float(sum(gains))
    return Exploitability(nc, 0.0, nc, 0.0, gains, list(gains), value0, 0.0, 0, True)


def pooled_regrets(vg: VectorGame, k: int, sigma: np.ndarray, pairs1: np.ndarray | None = None) -> np.ndarray:
    """Team ``k``'s instantaneous counterfactual regrets under ``sigma`` (game layout), exact:
    what one iteration of :func:`solve_pooled` adds (checked against the deal solver's)."""
    from musstats._kernels.vcfr import own_action_values

    ex = _Exact(vg, pairs1)
    sigT = vg.from_game(sigma)
    Q = own_action_values(vg.tr, sigT, int(vg.tb[k]), int(vg.m[k]), k, ex.sums(sigT, k), vg.rows(k))[0]
    return regrets_in_game_layout(vg, k, sigT, Q)


def solve_pooled(vg: VectorGame, config: SolveConfig, *,
                 progress: Callable[[int, float, float | None], None] | None = None,
                 evaluate_every: int = 0, stop: Callable[[], bool] | None = None) -> Strategy:
    """Full-width DCFR (or CFR+) with exact chance on the pooled game: ``config.iterations``
    iterations, the teams updated in turn (each against the other's latest strategy), the
    average strategy weighting iteration ``t`` by t^gamma.  Deterministic (no sampling).
    ``evaluate_every``: the exact NashConv of the average every so many iterations goes into
    the history (its time is not counted).  Returns the average strategy in the game layout."""
    from musstats._kernels.vcfr import average_owner, dcfr_update_owner, own_action_values

    if config.method not in ("dcfr", "cfr+"):
        raise MusError(f"unknown CFR method {config.method!r}; accepted: dcfr, cfr+")
    plus = config.method == "cfr+"
    gamma = 1.0 if plus else config.gamma
    ex = _Exact(vg)
    R, S, sig = vg.zeros(), vg.zeros(), vg.uniform()
    history: list[tuple[int, float, float]] = []
    t0 = time.perf_counter()
    spent = 0.0
    done = 0
    partial = False
    with Interrupt() as ctrl_c:
        for t in range(1, config.iterations + 1):
            if ctrl_c.hit or (stop is not None and stop()):
                partial = True
                break
            for k in (0, 1):
                if not vg.own_nodes[k].shape[0]:
                    continue
                rb, m = int(vg.tb[k]), int(vg.m[k])
                acc = own_action_values(vg.tr, sig, rb, m, k, ex.sums(sig, k), vg.rows(k))
                average_owner(S, R, sig, float(t) ** gamma, vg.tr, rb, m, k)
                dcfr_update_owner(R, acc, sig, rb, m, vg.own_nodes[k], vg.tr, float(t), config.alpha, config.beta,
                                  plus)
            done = t
            nc = None
            if evaluate_every and (t % evaluate_every == 0 or t == config.iterations):
                e0 = time.perf_counter()
                nc = _exploitability(ex, _normalise_t(vg, S)).nashconv
                spent += time.perf_counter() - e0
                history.append((t, time.perf_counter() - t0 - spent, nc))
            if progress is not None:
                progress(t, time.perf_counter() - t0 - spent, nc)
    meta = {"solver": config.describe(), "sampling": "none (full width, exact chance)"}
    return Strategy(vg.game, vg.to_game(_normalise_t(vg, S)), done, partial, time.perf_counter() - t0 - spent,
                    history, meta)
