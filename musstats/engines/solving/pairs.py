"""Exact measures of a game that sums over its teams' pairs of hands exactly.

:class:`ExactPairs` wraps a :class:`~.game.SolverGame` that has
:meth:`~.game.SolverGame.pair_sums` (a team's terminal sums over every pair of its two
owners' states, every deal counted with its probability) and answers the measurement calls of
the exploitability module and of column generation from them, exactly: an owner's terminal
sums are his team's pair sums with his partner's reach summed over the pairs of each of his
states; a profile's value is the team's reach of each terminal times its pair sums.  The
pair sums depend only on the other team's strategies, so they are kept for the last few of
those (a team's search for its best joint plan, with the other side fixed, computes them once).
The sample a measure asks for is ignored: there is no sampling error (``exact``).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from musstats.engines.solving.game import PairSums, Sample, SolverGame

__all__ = ["ExactPairs", "pair_reach", "column_sums"]

#: pair sums kept (per team and the other team's strategies)
KEEP = 4


def pair_reach(lay, S: np.ndarray, ps: PairSums) -> np.ndarray:
    """A team's reach of every terminal for every pair of its states under ``S``: [n_tz, pairs]."""
    ra = lay.own_reach(S, ps.a)[:, ps.sa]
    return ra if ps.b < 0 else ra * lay.own_reach(S, ps.b)[:, ps.sb]


def column_sums(X: np.ndarray, col: np.ndarray, m: int) -> np.ndarray:
    """``X`` [n_tz, pairs] summed over the pairs of each column ``col`` gives: [n_tz, m]."""
    order = np.argsort(col, kind="stable")
    present, starts = np.unique(col[order], return_index=True)
    out = np.zeros((X.shape[0], m))
    out[:, present] = np.add.reduceat(X[:, order], starts, axis=1)
    return out


class ExactPairs(SolverGame):
    """``base``'s measures, exact from its pair sums (module doc)."""

    def __init__(self, base: SolverGame):
        self.base = base
        self.layout = base.layout
        self.exact = True
        self.samples_text = "exact: every deal, from the teams' sums over their pairs of hands"
        self.sample_size = 0
        self._kept: OrderedDict = OrderedDict()

    def pairs(self, team: int, SIG: np.ndarray) -> PairSums:
        """Team ``team``'s pair sums against the other team's strategies in ``SIG``."""
        lay = self.layout
        other = [k for k in range(lay.n_owners) if int(lay.team[k]) != team]
        key = (team, b"".join(np.ascontiguousarray(lay.owner_rows(SIG, k)).tobytes() for k in other))
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        ps = self.base.pair_sums(team, SIG)
        self._kept[key] = ps
        if len(self._kept) > KEEP:
            self._kept.popitem(last=False)
        return ps

    def pair_sums(self, team, SIG):
        return self.pairs(team, SIG)

    def mixture_pair_sums(self, team, profiles, weights):
        return self.base.mixture_pair_sums(team, profiles, weights)

    def terminal_sums(self, k, SIG, sample=Sample()):
        lay = self.layout
        ps = self.pairs(int(lay.team[k]), SIG)
        mine, col = (ps.sa, ps.sb) if k == ps.a else (ps.sb, ps.sa)
        partner = ps.b if k == ps.a else ps.a
        X = ps.T if partner < 0 else ps.T * lay.own_reach(SIG, partner)[:, col]
        return column_sums(X, mine, int(lay.m[k]))

    def sample_values(self, k, SIG, sample=Sample()):
        ps = self.pairs(int(self.layout.team[k]), SIG)
        return np.array([float((pair_reach(self.layout, SIG, ps) * ps.T).sum())]), np.array([ps.n])

    def action_values(self, owners, SIG, t):  # pragma: no cover - measures only
        return self.base.action_values(owners, SIG, t)

    def strength(self, k):
        return self.base.strength(k)

    def pair_response(self, team, SIG, sample):
        return self.base.pair_response(team, SIG, sample)

    def pair_values(self, team, SIG, response, sample):
        return self.base.pair_values(team, SIG, response, sample)
