"""Chance as explicit deals: a :class:`~.game.SolverGame` whose deals are listed.

A deal gives every owner its state (``st[d, k]``), an outcome code (``o[d]``) and a
weight (``w[d]``).  The deals are either **the whole chance** (a small game enumerated with
its probabilities: Kuhn poker, the toy games of the tests; ``exact``) or **samples** of it
(Mus after the mus round, whose law has no closed form): a training pool replayed in
minibatches (or a callable giving iteration ``t``'s batch), and two independent sample
sets to choose a best response on and to value it on.  Every iteration traverses the
tree once per deal of its batch for every owner at once (kernels of
:mod:`musstats._kernels.cfr`, in the stored layout); the driver's owners are then best
updated together (the ``dcfr-simultaneous`` preset).
"""

from __future__ import annotations

import copy
from typing import Callable, cast

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.solving.game import CHUNKS, Game, Sample, SolverGame, chunk_bounds, make_layout

__all__ = ["DealGame", "Deals", "deal_values", "MixedValues"]

#: a set of deals: states int32 [n, owners], outcome codes int64 [n], weights float64 [n]
Deals = tuple[np.ndarray, np.ndarray, np.ndarray]


class DealGame(SolverGame):
    """A :class:`~.game.Game` with its deals.

    ``train``: the deals CFR iterates on (all of them each iteration, or minibatches of
    ``batch`` taken in turn), or a callable ``train(t)`` giving iteration ``t``'s deals;
    ``choose`` and ``evaluate``: the two measurement samples (default: ``train``, which is
    then taken as the whole chance: ``exact``, unless ``exact`` says otherwise)."""

    def __init__(self, game: Game, train: Deals | Callable[[int], Deals], *, batch: int = 0,
                 choose: Deals | None = None, evaluate: Deals | None = None, chunks: int = CHUNKS,
                 exact: bool | None = None) -> None:
        self.game = game
        self.layout = make_layout(game)
        self.train = train
        self.batch = int(batch)
        self.chunks = int(chunks)
        if choose is None and callable(train):
            raise MusError("a game trained on a stream of deals needs samples to be measured on")
        self.exact = choose is None if exact is None else bool(exact)
        self.choose: Deals = choose if choose is not None else cast(Deals, train)
        self.evaluate = evaluate if evaluate is not None else self.choose
        self._tz = np.asarray(self.layout.tr[7])

    @property
    def sample_size(self) -> int:  # type: ignore[override]
        return 0 if self.exact else int(self.evaluate[0].shape[0])

    @property
    def samples_text(self) -> str:  # type: ignore[override]
        if self.exact:
            return "exact: every deal with its probability"
        return (f"deal sampling: {self.choose[0].shape[0]:,} deals to choose a response on, "
                f"{self.evaluate[0].shape[0]:,} independent ones to value it on")

    def on_samples(self, choose: Deals, evaluate: Deals) -> DealGame:
        """The same game, its layout shared, measured on the samples ``choose`` and
        ``evaluate`` (and trained on ``choose``)."""
        other = copy.copy(self)
        other.train, other.choose, other.evaluate, other.exact = choose, choose, evaluate, False
        return other

    def batch_at(self, t: int) -> Deals:
        """Iteration ``t``'s deals."""
        if callable(self.train):
            return self.train(t)
        st, o, w = cast(Deals, self.train)
        n = st.shape[0]
        B = self.batch
        if not B or B >= n:
            return st, o, w
        i = ((t - 1) * B) % n
        j = i + B
        if j <= n:
            return st[i:j], o[i:j], np.full(B, 1.0 / B)
        return (np.concatenate([st[i:], st[: j - n]]), np.concatenate([o[i:], o[: j - n]]), np.full(B, 1.0 / B))

    def _sample(self, sample: Sample) -> Deals:
        return self.choose if sample.kind == "choose" else self.evaluate

    def action_values(self, owners, SIG, t):
        from musstats._kernels.cfr import cfr_regrets

        lay = self.layout
        g = self.game
        st, o, w = self.batch_at(t)
        acc = cfr_regrets(chunk_bounds(st.shape[0], self.chunks), st, o, w, lay.to_game(SIG), g.kernel_args(), g.U,
                          g.n_slots)
        X = lay.from_game(acc.sum(axis=0))
        return [X[int(lay.tb[k]): int(lay.tb[k]) + lay.rows(k)][None] for k in owners]

    def terminal_sums(self, k, SIG, sample):
        from musstats._kernels.cfr import br_sums

        lay = self.layout
        g = self.game
        st, o, w = self._sample(sample)
        T = br_sums(chunk_bounds(st.shape[0], self.chunks), st, o, w, lay.to_game(SIG), g.kernel_args(), g.U, k,
                    int(g.n_states[k]), self._tz, lay.n_tz).sum(axis=0)
        return T[:, lay.cols[k]]

    # -- a team that sees both its hands ----------------------------------------

    def _pair_game(self, team: int):
        """The game in which team ``team``'s two owners are one owner whose state is the pair of
        their states (the other owners unchanged), and how to map deals and strategies to it."""
        from musstats.engines.solving.game import make_custom_game

        g = self.game
        if g.ties:
            raise MusError("a team that sees both its hands is not measured where information grows during the game")
        own = [k for k in range(g.n_owners) if int(g.team[k]) == team]
        if len(own) != 2:
            raise MusError("a team that sees both its hands needs two owners in the team")
        a, b = own
        keep = [k for k in range(g.n_owners) if k not in own]
        new = {k: i for i, k in enumerate(keep)}
        kp = len(keep)
        new[a] = new[b] = kp
        owner = np.array([new[int(k)] if k >= 0 else -1 for k in g.owner], np.int64)
        t = g.tree
        ns = [int(g.n_states[k]) for k in keep] + [int(g.n_states[a]) * int(g.n_states[b])]
        pg = make_custom_game({"is_term": t.is_term, "first": t.first, "n_act": t.n_act, "term": t.term,
                               "owner": owner}, g.U, [int(g.team[k]) for k in keep] + [team], ns)
        return pg, keep, a, b, kp

    def _pair_deals(self, sample: Sample, keep, a, b):
        st, o, w = self._sample(sample)
        nb = int(self.game.n_states[b])
        pair = st[:, a].astype(np.int64) * nb + st[:, b]
        return np.ascontiguousarray(np.column_stack([st[:, keep], pair]).astype(np.int32)), o, w

    def _pair_sigma(self, pg, keep, SIG: np.ndarray) -> np.ndarray:
        """The others' strategies of ``SIG`` in the pair game's stored layout (the pair owner's
        left uniform)."""
        g = self.game
        sigma = self.layout.to_game(SIG)
        out = pg.uniform()
        for i, k in enumerate(keep):
            n = int(g.n_states[k]) * int(g.stride[k])
            out[int(pg.obase[i]): int(pg.obase[i]) + n] = sigma[int(g.obase[k]): int(g.obase[k]) + n]
        return out

    def pair_response(self, team, SIG, sample):
        """Team ``team``'s best response when it sees both its hands (the pair of its owners'
        states), chosen on ``sample``: (the pair game, its strategy with the response, the
        mapping)."""
        from musstats._kernels.cfr import br_sums
        from musstats.engines.solving.game import make_layout

        pg, keep, a, b, kp = self._pair_game(team)
        st, o, w = self._pair_deals(sample, keep, a, b)
        sig = self._pair_sigma(pg, keep, SIG)
        lay = make_layout(pg)
        tz = np.asarray(lay.tr[7])
        T = br_sums(chunk_bounds(st.shape[0], 2), st, o, w, sig, pg.kernel_args(), pg.U, kp, int(pg.n_states[kp]),
                    tz, lay.n_tz).sum(axis=0)
        SIGp = lay.with_rows(lay.from_game(sig), kp, lay.best_response(kp, T))
        return pg, lay.to_game(SIGp), keep, a, b

    def pair_values(self, team, SIG, response, sample):
        from musstats._kernels.cfr import root_values

        pg, sig, keep, a, b = response
        st, o, w = self._pair_deals(sample, keep, a, b)
        sign = 1.0 if team == 0 else -1.0
        xd = sign * root_values(st, o, sig, pg.kernel_args(), pg.U) * w
        k0 = next(k for k in range(self.game.n_owners) if int(self.game.team[k]) == team)
        x0, W = self.sample_values(k0, SIG, sample)
        return xd, x0, W

    def pair_sums(self, team, SIG):
        """Over the pairs of the team's two owners' states, from every deal of the ``choose``
        sample (exact where the game is)."""
        from musstats.engines.solving.game import PairSums

        g, lay = self.game, self.layout
        own = [k for k in range(g.n_owners) if int(g.team[k]) == team]
        if len(own) > 2 or g.ties:
            raise MusError("exact sums over a team's pairs need a team of at most two owners and no information "
                           "that grows")
        a, b = own[0], (own[1] if len(own) == 2 else -1)
        st, o, w = self.choose
        X = (1.0 if team == 0 else -1.0) * g.U[lay.u_rows][:, o] * w  # [n_tz, deals]
        for k in range(g.n_owners):
            if k not in own:
                X = X * lay.own_reach(SIG, k)[:, st[:, k]]
        nb = int(lay.m[b]) if b >= 0 else 1
        pair = st[:, a].astype(np.int64) * nb + (st[:, b] if b >= 0 else 0)
        n_pairs = int(lay.m[a]) * nb
        T = np.zeros((lay.n_tz, n_pairs))
        for z in range(lay.n_tz):
            T[z] = np.bincount(pair, X[z], n_pairs)
        p = np.arange(n_pairs)
        return PairSums(T, np.bincount(pair, w, n_pairs), a, b, p // nb, p % nb)

    def sample_values(self, k, SIG, sample):
        return self._values(k, self.layout.to_game(SIG), sample)

    def _values(self, k: int, sigma: np.ndarray, sample: Sample) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`sample_values` of the profile ``sigma`` in the stored layout."""
        from musstats._kernels.cfr import root_values

        g = self.game
        st, o, w = self._sample(sample)
        v = root_values(st, o, sigma, g.kernel_args(), g.U)
        sign = 1.0 if int(g.team[k]) == 0 else -1.0
        return sign * v * w, w

    def block_values(self, k, SIG, blocks, samples):
        """As :meth:`SolverGame.block_values`, the profile in the stored layout made once and
        only owner ``k``'s slots written for each block (a reader's profile can take
        gigabytes)."""
        sigma = self.layout.to_game(SIG)
        slots, flat = self.layout.owner_slots(k)
        for B in blocks:
            sigma[slots] = np.asarray(B).ravel()[flat]
            yield [self._values(k, sigma, s)[0] for s in samples]


def deal_values(game: Game, sigma: np.ndarray, st: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Team 0's expected utility of each deal (states ``st``, outcome codes ``o``) under
    ``sigma`` (stored layout)."""
    from musstats._kernels.cfr import root_values

    return root_values(st, o, sigma, game.kernel_args(), game.U)


class MixedValues:
    """Team 0's expected utility of deals when team ``t`` of ``mixtures`` plays a mixture of
    profiles ``mixtures[t] = (sigmas [P, slots], weights [P])`` (stored layout; its partners draw
    one profile together, each team independently of the other: a pair's correlated plans), read
    for its owners, and the owners of a team not in ``mixtures`` play ``sigma``.  Calling it with
    deals (states ``st``, outcome codes ``o``) gives the sum over every pair of the two teams'
    profiles, by the product of their weights, of :func:`deal_values` (float64 [D]), without
    forming the pairs or walking the tree once per profile: at a terminal a deal's value is the
    payoff times each team's reach, and a team's mixed reach is the weighted sum over its
    profiles of the product of its owners' own reaches (tabled once, per owner and state).  With
    no mixture, :func:`deal_values` of ``sigma``."""

    def __init__(self, game: Game, sigma: np.ndarray, mixtures: dict) -> None:
        self.game, self.sigma, self.mixed, self.mixtures = game, sigma, bool(mixtures), mixtures
        if not mixtures:
            return
        tr = game.tree
        self.Z = np.nonzero(np.asarray(tr.is_term) == 1)[0]
        self.U = np.asarray(game.U)[np.asarray(tr.term)[self.Z]]  # [Z, outcomes]
        self.teams: list[list] = [[], []]
        for t in (0, 1):
            self.teams[t] = self._team(t, sigma)

    def _team(self, t: int, sigma: np.ndarray) -> list:
        """(owner, own reach [states, Z, P], the first owner's times the weights) of team ``t``'s
        deciding owners: its mixture's profiles, or ``sigma``."""
        game = self.game
        owner = np.asarray(game.owner)
        profiles, w = self.mixtures[t] if t in self.mixtures else (sigma[None, :], np.ones(1))
        out: list = []
        for k in range(game.n_owners):
            if int(game.team[k]) != t or not (owner == k).any():
                continue  # another team's, or never decides: reach 1
            A = game.own_reach_of(np.asarray(profiles, np.float64), k, self.Z)  # [states, Z, P]
            out.append((k, A if out else A * np.asarray(w, np.float64)))
        return out

    def playing(self, sigma: np.ndarray) -> "MixedValues":
        """The same values with the owners of each team not in the mixtures playing ``sigma``
        (the mixed teams' reaches are kept)."""
        out = copy.copy(self)
        out.sigma = sigma
        if self.mixed:
            out.teams = [self.teams[t] if t in self.mixtures else self._team(t, sigma) for t in (0, 1)]
        return out

    def __call__(self, st: np.ndarray, o: np.ndarray, chunk: int = 1024) -> np.ndarray:
        if not self.mixed:
            return deal_values(self.game, self.sigma, st, o)
        n = st.shape[0]
        out = np.empty(n)
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            val = self.U[:, o[lo:hi]].T.copy()  # [d, Z]
            for owners in self.teams:
                if owners:
                    R = owners[0][1][st[lo:hi, owners[0][0]]]
                    for k, A in owners[1:]:
                        R = R * A[st[lo:hi, k]]
                    val *= R.sum(axis=2)
            out[lo:hi] = val.sum(axis=1)
        return out
