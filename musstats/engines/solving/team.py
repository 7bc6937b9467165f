"""A pair's correlated plans: the team-maxmin equilibrium with correlation (TMECor).

Partners agree on a plan before the hand (who envides with what, who answers a bet), then
each acts on his own cards.  A team's strategy is then a *mixture of joint plans*, and its
value is the most it can guarantee against the other side's best response.  Against a lone
opponent (the other team has one owner who decides) it is found by **column generation**
(Farina, Celli, Gatti and Sandholm 2018, "Ex ante coordination and collusion in zero-sum
multi-player extensive-form games"):

* the **restricted game** (:class:`PlanGame`): the team picks one of the plans found so far,
  the opponent plays the tree knowing only his own cards.  It is a two-player zero-sum game,
  solved by the framework's CFR driver: the opponent's regrets are updated by the driver as in
  any game; the plans' weights are one more regret matcher (RM+) that the game updates each
  iteration on the plans' values against the opponent's current strategy, averaged with the
  driver's weights;
* the **oracle**: the team's best joint plan against the opponent's average strategy
  (:func:`.exploit.team_search`, alternating best responses from several starts) becomes a new
  plan when it beats the restricted game's value.

The opponent's best response to the mixture bounds the team's correlated value from below;
the oracle's best plan against the opponent bounds it from above (up to the oracle being a
search).  :func:`correlated_plans` runs rounds until the two meet within ``tol``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.solving.game import Sample, SolverGame
from musstats.engines.solving.pairs import column_sums, pair_reach

__all__ = ["PlanGame", "CorrelatedPlans", "PlanMixture", "correlated_plans", "mixed_behaviour", "shippable",
           "measure_mixture", "matrix_game", "TeamPlans", "team_plans", "seeing_both", "measure_both_plans",
           "both_as_shipped"]


def _with_plan(lay, SIG: np.ndarray, plan: dict) -> np.ndarray:
    """``SIG`` with each owner's block of ``plan``."""
    for k, blk in plan.items():
        SIG = lay.with_rows(SIG, k, blk)
    return SIG


class PlanGame(SolverGame):
    """The restricted game of column generation on ``base``: team ``t`` picks one of
    ``plans`` (each a dict owner -> its block, working layout), the lone opponent ``k1`` plays
    the tree; chance is ``base``'s ``sample``.  The team's weights are learned by regret
    matching+ inside :meth:`action_values` (averaged with weight ``t^gamma``, as the driver
    averages the opponent's strategy); the other owners are not trained (zero values)."""

    def __init__(self, base: SolverGame, t: int, k1: int, SIG: np.ndarray, sample: Sample, gamma: float = 1.0):
        if base.layout.game.ties:
            raise MusError("correlated plans are not computed where information grows during the game")
        self.base, self.t, self.k1, self.SIG, self.sample, self.gamma = base, int(t), int(k1), SIG, sample, gamma
        self.layout = base.layout
        self.exact = base.exact
        self.plans: list[dict] = []
        self._T: list[np.ndarray] = []
        self.W = float(base.sample_values(k1, SIG, sample)[1].sum())
        self.reset()

    def reset(self) -> None:
        """Forget the weights learned (a new restricted game is solved from the start)."""
        K = len(self.plans)
        self.Rw, self.Sw = np.zeros(K), np.zeros(K)

    def sums(self, plan: dict) -> np.ndarray:
        """The opponent's terminal sums against ``plan``."""
        return self.base.terminal_sums(self.k1, self.profile(plan), self.sample)

    def add(self, plan: dict, T: np.ndarray | None = None) -> None:
        """Add a joint plan (``T``: its :meth:`sums`, computed when not given)."""
        self.plans.append(plan)
        self._T.append(self.sums(plan) if T is None else T)
        self._stack = np.stack(self._T)
        self.reset()

    def known(self, T: np.ndarray) -> bool:
        """Whether a plan with terminal sums ``T`` plays as one already found."""
        return any(_same(T, X) for X in self._T)

    def profile(self, plan: dict, Q: np.ndarray | None = None) -> np.ndarray:
        """``SIG`` with the team's blocks from ``plan`` and (given) the opponent's ``Q``."""
        S = _with_plan(self.layout, self.SIG, plan)
        return S if Q is None else self.layout.with_rows(S, self.k1, Q)

    def current_weights(self) -> np.ndarray:
        K = len(self.plans)
        p = np.maximum(self.Rw, 0.0)
        return p / p.sum() if p.sum() > 0 else np.full(K, 1.0 / K)

    def weights(self) -> np.ndarray:
        """The average weights of the plans."""
        return self.Sw / self.Sw.sum() if self.Sw.sum() > 0 else self.current_weights()

    def plan_values(self, Q: np.ndarray, T: np.ndarray | None = None) -> np.ndarray:
        """Each plan's value for team ``t`` against the opponent's block ``Q`` (stones); with
        ``T``, the value of the plan whose :meth:`sums` it is."""
        lay = self.layout
        reach = lay.own_reach(lay.with_rows(self.SIG, self.k1, Q), self.k1)
        sign = 1.0 if int(lay.team[self.k1]) == self.t else -1.0
        return sign * np.tensordot(self._stack if T is None else T, reach, axes=reach.ndim) / self.W

    def mixed_sums(self, w: np.ndarray) -> np.ndarray:
        """The opponent's terminal sums against the plans mixed by ``w``."""
        return np.tensordot(w, self._stack, axes=1)

    def action_values(self, owners, SIG, t):
        from musstats._kernels.cfr import own_action_values

        lay = self.layout
        out = []
        for k in owners:
            rows = lay.rows(k)
            if k != self.k1:
                out.append(np.zeros((1, rows, lay.MS)))
                continue
            w = self.current_weights()
            u = self.plan_values(lay.owner_rows(SIG, k))
            self.Rw = np.maximum(self.Rw + u - w @ u, 0.0)
            self.Sw += float(t) ** self.gamma * w
            acc = own_action_values(lay.tr, SIG, int(lay.tb[k]), int(lay.m[k]), k, self.mixed_sums(w), rows)
            full = np.zeros((1, rows, lay.MS))
            full[..., : int(lay.m[k])] = acc
            out.append(full)
        return out


@dataclass
class CorrelatedPlans:
    """What :func:`correlated_plans` found: the team's ``plans`` (dicts owner -> block, working
    layout) and their ``weights``, the opponent's strategy ``Q`` (his block, from the round with the
    lowest upper bound), and per round the
    restricted game's value, the opponent's best response to the mixture (``lower``) and the
    oracle's best plan against ``Q`` (``upper``), in stones for the team, on the sample that
    chose them; ``response``: that best response of the opponent to the plans and weights
    returned.  ``partial``: stopped before the bounds met."""

    team: int
    opponent: int
    plans: list
    weights: np.ndarray
    Q: np.ndarray
    response: np.ndarray
    rounds: list = field(default_factory=list)
    partial: bool = True

    def profile(self, SIG: np.ndarray, layout, j: int) -> np.ndarray:
        """``SIG`` with plan ``j`` and the opponent's ``Q``."""
        return _with_plan(layout, layout.with_rows(SIG, self.opponent, self.Q), self.plans[j])


@dataclass
class PlanMixture:
    """A team's correlated plans as kept: ``sigmas`` [P, slots] (stored layout), each a whole
    profile -- one joint plan of the team and the opponent's strategy, the same in every one --
    mixed by ``weights``; the team ``team`` and the lone opponent's owner ``opponent``; ``meta``:
    how they were built and measured.  Where both teams play plans (``opponent`` -1), each team
    has its mixture, whose profiles are read for its owners only, and draws from its own stream
    of a seed."""

    team: int
    opponent: int
    sigmas: np.ndarray
    weights: np.ndarray
    meta: dict = field(default_factory=dict)
    _tables: dict = field(default_factory=dict, repr=False)

    def draw(self, seed: int) -> int:
        """The plan that partners who give the same ``seed`` play (drawn by the weights; where
        both teams play plans, each team's draw from its own stream of the seed: (seed, team))."""
        rng = np.random.default_rng(int(seed) if self.opponent >= 0 else [int(seed), int(self.team)])
        return int(rng.choice(self.weights.shape[0], p=self.weights))

    def reach_tables(self, game, k: int) -> tuple:
        """What :func:`~musstats._kernels.cfr.mixture_node_sums` needs for owner ``k`` (the lone
        opponent) against the mixture: the pair's owners ``va``, ``vb``, their own reach of ``k``'s
        decision nodes and of the terminals under each plan (``va``'s times the plans' weights;
        float32) and each node's row among those (-1: not read).  Kept once computed."""
        if k not in self._tables:
            is_term = np.asarray(game.tree.is_term)
            nodes = np.nonzero((is_term == 1) | (game.owner == k))[0]
            rel = np.full(is_term.shape[0], -1, np.int64)
            rel[nodes] = np.arange(nodes.shape[0])
            pair = [j for j in range(game.n_owners) if int(game.team[j]) == self.team and (game.owner == j).any()]
            va, vb = pair[0], (pair[1] if len(pair) > 1 else -1)
            Aw = (game.own_reach_of(self.sigmas, va, nodes) * self.weights).astype(np.float32)
            B = (game.own_reach_of(self.sigmas, vb, nodes) if vb >= 0 else
                 np.ones((1, nodes.shape[0], self.weights.shape[0]))).astype(np.float32)
            self._tables[k] = (va, vb, Aw, B, rel)
        return self._tables[k]


def shippable(lay, profiles, weights, floor: float) -> tuple[np.ndarray, np.ndarray, float, list]:
    """A mixture of profiles (working layout; a list, or a function of the index that makes
    each when asked) as it ships: ordered by weight, those below
    ``floor`` dropped and the rest renormalised, each quantised as strategies are (steps of
    1/255): (quantised profiles [P, slots] in the stored layout, their weights, the weight
    dropped, the shipped profiles dequantised in the working layout: what is measured)."""
    from musstats.engines.solving import store as S

    w = np.asarray(weights, float)
    order = [j for j in np.argsort(-w, kind="stable") if w[j] >= floor]
    kept = w[order].sum()
    get = profiles if callable(profiles) else profiles.__getitem__
    q = np.stack([S.quantise(lay.to_game(get(j))) for j in order])
    return q, w[order] / kept, float(1 - kept), [lay.from_game(r) for r in S.dequantise(q, lay.game)]


def mixed_behaviour(lay, SIG: np.ndarray, k: int, blocks: list, weights) -> np.ndarray:
    """Owner ``k``'s strategies ``blocks`` mixed by ``weights`` as one behaviour strategy (his
    block): at each state the actions weighed by each strategy's weight times ``k``'s own reach
    under it, as the CFR driver averages (:func:`~musstats._kernels.cfr.average_owner`); where
    no strategy reaches a state, the first block's row."""
    from musstats._kernels.cfr import average_owner

    rb, m = int(lay.tb[k]), int(lay.m[k])
    S = lay.zeros()
    seen = np.ones_like(S)  # every state counted
    for blk, w in zip(blocks, weights):
        if w > 0:
            average_owner(S, seen, lay.with_rows(SIG, k, blk), float(w), lay.tr, rb, m, k)
    reached = lay.owner_rows(lay._node_sum(S), k) > 0
    return np.where(reached, lay.owner_rows(lay.normalise(S), k), blocks[0])


def correlated_plans(game: SolverGame, SIG: np.ndarray, t: int, *, rounds: int = 30, iterations: int = 2000,
                     tol: float = 0.005, per_round: int = 1, sample: Sample = Sample("choose"),
                     quick: tuple | None = None, full_every: int = 1, seconds: float | None = None,
                     plans: list | None = None, progress: Callable[[dict], None] | None = None) -> CorrelatedPlans:
    """Team ``t``'s correlated plans against its lone opponent by column generation (module
    doc), starting from the team's strategies in ``SIG`` (working layout) as the first plan.
    Each round solves the restricted game (``iterations`` of CFR+), then asks the oracle for
    better plans (each start of the team search gives one; up to ``per_round`` of those that beat
    the restricted game's value are added, the best first); it stops when the upper and lower
    bounds meet within ``tol`` stones, after ``rounds`` rounds, or on Ctrl-C (``partial``); or
    when the oracle returns a plan already found (the gap left is then the restricted game's
    solution error).  The plans and weights returned are the last round's; the opponent's
    strategy the round's whose upper bound was lowest (the least the oracle's plans took from
    him: his restricted strategies are not all alike good).  ``progress(row)`` after each round.

    The oracle's full search (every start of :func:`~.exploit.team_search`) is most of a round's
    time.  With ``quick`` (a tuple of starts, e.g. ``(("strategy", 0), ("strategy", 1))``) the
    search runs from those starts only, and from all of them every ``full_every``-th round and
    whenever the quick one finds no better plan; only the full rounds' upper bounds choose the
    opponent's strategy returned and stop the rounds (a narrower search finds less, so its
    bound is lower than it should be).  ``seconds``: stop after the round that passes that time
    (``partial``).  ``plans``: joint plans found before (dicts owner -> block, e.g. a stopped run's
    ``plans``), added after the first so that a run goes on where another stopped."""
    import time

    from musstats.engines.run import Interrupt
    from musstats.engines.solving.cfr import SolveConfig, solve
    from musstats.engines.solving.exploit import TEAM_STARTS, team_owners, team_search

    lay = game.layout
    pair, other = team_owners(game, t), team_owners(game, 1 - t)
    if len(other) != 1:
        raise MusError("correlated plans are computed against a lone opponent (one owner of the other team decides)")
    if not pair:
        raise MusError(f"team {t} never decides")
    k1 = other[0]
    pg = PlanGame(game, t, k1, SIG, sample)
    pg.add({k: lay.owner_rows(SIG, k) for k in pair})
    for plan in plans or ():
        T = pg.sums(plan)
        if not pg.known(T):
            pg.add(plan, T)
    config = SolveConfig.preset("cfr+", iterations)
    out = CorrelatedPlans(t, k1, pg.plans, np.ones(1), lay.owner_rows(SIG, k1), lay.owner_rows(SIG, k1))
    best_Q, best_upper = out.Q, np.inf
    quick_starts = TEAM_STARTS if quick is None else quick
    t0 = time.perf_counter()
    with Interrupt() as ctrl_c:
        for r in range(rounds):
            pg.reset()
            st = solve(pg, config)
            if st.partial:
                break
            w = pg.weights()
            Q = lay.owner_rows(lay.from_game(st.sigma), k1)
            value = float(w @ pg.plan_values(Q))
            br = lay.best_response(k1, pg.mixed_sums(w))
            lower = float(w @ pg.plan_values(br))
            start = pg.profile(pg.plans[int(np.argmax(w))], Q)
            full = quick is None or (r + 1) % max(full_every, 1) == 0
            new, how = _oracle(game, pg, start, t, Q, value, tol, TEAM_STARTS if full else quick_starts, sample)
            if not full and (new[0][2] <= value + tol or pg.known(new[0][1])):  # nothing better: search fully
                full = True
                new, how = _oracle(game, pg, start, t, Q, value, tol, TEAM_STARTS, sample)
            upper = max(new[0][2], float(pg.plan_values(Q).max()))
            if full and upper < best_upper:
                best_Q, best_upper = Q, upper
            out = CorrelatedPlans(t, k1, list(pg.plans), w, best_Q, br, out.rounds, partial=True)
            row = {"round": r, "plans": len(pg.plans), "support": int((w > 1e-3).sum()), "value": value,
                   "lower": lower, "upper": upper, "search": "full" if full else "quick", "found_from": how}
            out.rounds.append(row)
            if progress is not None:
                progress(row)
            if full and (upper - lower <= tol or pg.known(new[0][1])):  # a known plan: the restricted game's error
                out.partial = False
                break
            if ctrl_c.hit or (seconds is not None and time.perf_counter() - t0 > seconds):
                break
            for plan, T, _ in new[: per_round]:
                pg.add(plan, T)
    return out



def _oracle(game: SolverGame, pg: PlanGame, start: np.ndarray, t: int, Q: np.ndarray, value: float, tol: float,
            starts: tuple, sample: Sample) -> tuple[list, str]:
    """The team search from ``starts`` (from the profile ``start``): every start's plan that beats
    the restricted game's ``value`` by ``tol`` and is new, the best first (the best found always
    first), as (plan, its sums, its value against ``Q``); and the start that found the best."""
    from musstats.engines.solving.exploit import team_owners, team_search

    lay = game.layout
    pair = team_owners(game, t)
    found: list = []
    _, _, _, how = team_search(game, start, t, starts=starts, sample=sample, found=found)
    new: list = []
    for _, S in sorted(found, key=lambda x: -x[0]):
        plan = {k: lay.owner_rows(S, k) for k in pair}
        T = pg.sums(plan)
        v = float(pg.plan_values(Q, T))
        if not new or (v > value + tol and not pg.known(T) and not any(_same(T, X) for _, X, _ in new)):
            new.append((plan, T, v))
    return new, how


def _same(T: np.ndarray, X: np.ndarray) -> bool:
    return bool(np.allclose(T, X, rtol=0.0, atol=1e-12))


def measure_mixture(game: SolverGame, profiles: list, weights: np.ndarray, t: int, *,
                    response: np.ndarray | None = None) -> dict:
    """The figures of team ``t``'s plans against its lone opponent: ``profiles`` (working layout,
    each a joint plan with the opponent's strategy) mixed by ``weights``.  In stones per lance for
    the team, ± standard errors, valued on the ``eval`` sample: the mixture's ``value``; what the
    opponent's best response to the mixture (``response`` if given, else chosen on the ``choose``
    sample) gains (``opponent_gain``, and in sample); what the pair's best joint plan against the
    opponent's strategy (the team search from the heaviest plan, on ``choose``) gains
    (``pair_gain``, and in sample); the same two for the mixture played as one behaviour
    strategy per partner (``marginal_*``: partners who agree on no plan); and what the pair gains
    seeing both its hands against the opponent's strategy (``pooled_gain``, where the game
    computes that response; its error is that of the mixture's value)."""
    from musstats.engines.solving.exploit import best_response, ratio, team_owners, team_search

    lay = game.layout
    pair, other = team_owners(game, t), team_owners(game, 1 - t)
    k1 = other[0]
    C, E = Sample("choose"), Sample("eval")
    use = [(float(w), P) for w, P in zip(weights, profiles) if w > 1e-9]

    def units(S: np.ndarray, sample: Sample) -> tuple[np.ndarray, np.ndarray]:
        # valued from the pair's side: where measures are exact from pair sums (ExactPairs), the
        # pair's sums read only the opponent's strategy, the same in every plan (computed once)
        return game.sample_values(pair[0], S, sample)  # the pair's team's utility

    def mixture(Q: np.ndarray | None, sample: Sample) -> tuple[np.ndarray, np.ndarray]:
        xs = [(w, units(P if Q is None else lay.with_rows(P, k1, Q), sample)) for w, P in use]
        return np.sum([w * x for w, (x, _) in xs], axis=0), xs[0][1][1]

    if response is None:
        response = lay.best_response(k1, np.sum([w * game.terminal_sums(k1, P, C) for w, P in use], axis=0))
    x0, W = mixture(None, E)
    x0c, Wc = mixture(None, C)
    xb, _ = mixture(response, E)
    xbc, _ = mixture(response, C)
    heavy = max(use, key=lambda x: x[0])[1]
    _, _, dev, how = team_search(game, heavy, t, sample=C)
    xd, _ = units(dev, E)
    xdc, _ = units(dev, C)
    M = heavy
    for k in pair:
        M = lay.with_rows(M, k, mixed_behaviour(lay, heavy, k, [lay.owner_rows(P, k) for _, P in use],
                                                [w for w, _ in use]))
    xm, _ = units(M, E)
    xmb, _ = units(lay.with_rows(M, k1, best_response(game, k1, M, C)), E)
    _, _, devm, _ = team_search(game, M, t, sample=C)
    xmd, _ = units(devm, E)
    out: dict[str, Any] = {}
    ex = game.exact
    for name, (g, se) in {"value": ratio(x0, W, ex), "opponent_gain": ratio(x0 - xb, W, ex),
                          "opponent_gain_in": ratio(x0c - xbc, Wc, ex), "pair_gain": ratio(xd - x0, W, ex),
                          "pair_gain_in": ratio(xdc - x0c, Wc, ex), "marginal_value": ratio(xm, W, ex),
                          "marginal_opponent_gain": ratio(xm - xmb, W, ex),
                          "marginal_pair_gain": ratio(xmd - xm, W, ex)}.items():
        out[name], out[f"{name}_se"] = round(g, 4), round(se, 4)
    out["pair_found_from"] = how
    try:  # the pair seeing both its hands against the opponent's strategy (exact where the game has it)
        resp = game.pair_response(t, heavy, C)
    except MusError:
        return out
    exact = bool(resp.get("exact", game.exact)) if isinstance(resp, dict) else game.exact
    xp, _, Wp = game.pair_values(t, heavy, resp, C)
    out["pooled_gain"], out["pooled_gain_se"] = round(ratio(xp, Wp, exact)[0] - out["value"], 4), out["value_se"]
    return out


# ---------------------------------------------------------------------------
# both teams' plans at once, exact over the deals: a double oracle over joint plans


def matrix_game(M: np.ndarray, *, gap: float = 1e-6, iterations: int = 200_000
                ) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Both sides' mixtures of the zero-sum matrix game ``M`` (the rows maximise), by regret
    matching+ with alternating updates and linear averaging, until the averages' guarantees meet
    within ``gap`` (or ``iterations`` are spent): ``(x, y, lo, hi)``, ``lo`` what the rows'
    mixture ``x`` guarantees, ``hi`` what the columns' mixture ``y`` concedes; the game's value
    lies between them."""
    K, J = M.shape
    rx, ry, sx, sy = np.zeros(K), np.zeros(J), np.zeros(K), np.zeros(J)

    def norm(r: np.ndarray) -> np.ndarray:
        s = r.sum()
        return r / s if s > 0 else np.full(r.shape[0], 1.0 / r.shape[0])

    x, y = norm(rx), norm(ry)
    lo, hi = -np.inf, np.inf
    for i in range(1, iterations + 1):
        ux = M @ y
        rx = np.maximum(rx + ux - x @ ux, 0.0)
        sx += i * x
        x = norm(rx)
        uy = -(x @ M)
        ry = np.maximum(ry + uy - y @ uy, 0.0)
        sy += i * y
        y = norm(ry)
        if i % 250 == 0 or i == iterations:
            xa, ya = sx / sx.sum(), sy / sy.sum()
            lo, hi = float((xa @ M).min()), float((M @ ya).max())
            if hi - lo <= gap:
                break
    return sx / sx.sum(), sy / sy.sum(), lo, hi


@dataclass
class TeamPlans:
    """What :func:`team_plans` found: per team its ``plans`` (dicts owner -> block, working
    layout; a team with one owner who decides has plans of one block) and their ``weights``;
    per round the figures (stones per lance, mano's team; exact over the deals); ``figures``:
    those of the plans returned (:func:`team_plans`); ``partial``: stopped before the bounds met."""

    plans: tuple
    weights: tuple
    rounds: list = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    partial: bool = True

    def profile(self, SIG: np.ndarray, layout, i: int, j: int) -> np.ndarray:
        """``SIG`` with team 0's plan ``i`` and team 1's plan ``j``."""
        return _with_plan(layout, _with_plan(layout, SIG, self.plans[0][i]), self.plans[1][j])


def _plan_search(game: SolverGame, S0: np.ndarray, t: int, ps, T: np.ndarray, starts: tuple) -> list:
    """Team ``t``'s best joint plans against the pair sums ``T`` [n_tz, pairs] (the other side
    fixed in them): alternating best responses of the partners, each reading his sums off the
    pairs with his partner's reach, from each start (:func:`.exploit.team_search`'s) from the
    profile ``S0``.  Returns every start's (value: the sum over the pairs, profile, start), the
    best first."""
    from musstats.engines.solving.exploit import MAX_ROUNDS, _name, _start, team_owners

    lay = game.layout
    own = team_owners(game, t)
    col = {ps.a: ps.sa, ps.b: ps.sb}
    other = {ps.a: ps.b, ps.b: ps.a}
    found = []
    for start in (starts if len(own) == 2 else (("strategy", 0),)):
        cur, order = _start(game, S0, own, start)
        prev = v = -np.inf
        for _ in range(MAX_ROUNDS):
            for k in order:
                j = other[k]
                Tk = column_sums(T if j < 0 else T * lay.own_reach(cur, j)[:, col[j]], col[k], int(lay.m[k]))
                cur = lay.with_rows(cur, k, lay.best_response(k, Tk))
            order = own
            v = float((pair_reach(lay, cur, ps) * T).sum())  # the value of cur, kept when the rounds end
            if len(own) == 1 or v <= prev + 1e-12:
                break
            prev = v
        found.append((v, cur, _name(start) if len(own) == 2 else "best response"))
    return sorted(found, key=lambda f: -f[0])


def seeing_both(lay, T: np.ndarray, owners) -> float:
    """What a team that sees both its hands takes from the pair sums ``T`` [n_tz, pairs]: each
    pair's best plan of the team (its ``owners``' nodes), bottom-up, summed over the pairs."""
    tr = lay.tr
    Q = np.zeros((tr.shape[1], T.shape[1]))
    tnodes = np.nonzero(tr[0] == 1)[0]
    Q[tnodes] = T[tr[7, tnodes]]
    mine = set(int(k) for k in owners)
    for n in range(tr.shape[1] - 1, -1, -1):
        if tr[0, n]:
            continue
        f, na = int(tr[1, n]), int(tr[2, n])
        Q[n] = Q[f: f + na].max(axis=0) if int(tr[3, n]) in mine else Q[f: f + na].sum(axis=0)
    return float(Q[0].sum())


def measure_both_plans(game: SolverGame, SIG: np.ndarray, plans: tuple, weights: tuple,
                       starts: tuple | None = None) -> dict:
    """Both teams' plans (per team a list of dicts owner -> block, working layout; the other
    owners from ``SIG``) mixed by ``weights`` (per team), measured from the game's pair sums
    (exact where the game is, :class:`~.pairs.ExactPairs` or a game enumerated whole), in stones
    per lance: ``value`` for team 0; per team the ``gain`` of its best joint plan against the
    other team's mixture (the alternating search from ``starts``, from its heaviest plan: a lower
    bound of the best plan's gain, exact for the plan found) and what it would take seeing both
    its hands (``seeing_both``)."""
    from musstats.engines.solving.exploit import TEAM_STARTS, team_owners

    lay = game.layout
    starts = TEAM_STARTS if starts is None else starts
    ps = [game.pair_sums(t, SIG) for t in (0, 1)]
    # team t's sums against the other team's mixture
    T = [game.mixture_pair_sums(t, [_with_plan(lay, SIG, p) for p in plans[1 - t]], weights[1 - t]).T
         for t in (0, 1)]
    value = [sum(float(w) * float((pair_reach(lay, _with_plan(lay, SIG, plan), ps[t]) * T[t]).sum())
                 for w, plan in zip(weights[t], plans[t]) if w > 0) / ps[t].n for t in (0, 1)]
    out: dict = {"value": value[0], "gain": [], "seeing_both": [], "found_from": []}
    for t in (0, 1):
        heaviest = plans[t][int(np.argmax(weights[t]))]
        best, _, how = _plan_search(game, _with_plan(lay, SIG, heaviest), t, ps[t], T[t], starts)[0]
        out["gain"].append(best / ps[t].n - value[t])
        out["seeing_both"].append(seeing_both(lay, T[t], team_owners(game, t)) / ps[t].n - value[t])
        out["found_from"].append(how)
    return out


def both_as_shipped(game: SolverGame, SIG: np.ndarray, plans: tuple, weights: tuple, floor: float) -> tuple:
    """Both teams' plans (per team a list of dicts owner -> block, working layout; the other
    owners from ``SIG``) as they ship, each team's mixture through :func:`shippable`, measured
    as shipped (:func:`measure_both_plans`): (per team the quantised profiles, their weights and
    the weight dropped; the figures)."""
    lay = game.layout
    qs, ws, dropped, kept = [], [], [], []
    for t in (0, 1):
        q, w, gone, profiles = shippable(lay, lambda j, t=t: _with_plan(lay, SIG, plans[t][j]), weights[t], floor)
        qs.append(q)
        ws.append(w)
        dropped.append(gone)
        kept.append([{k: lay.owner_rows(Q, k) for k in plans[t][0]} for Q in profiles])
    return qs, ws, dropped, measure_both_plans(game, SIG, tuple(kept), tuple(ws))


def team_plans(game: SolverGame, SIG: np.ndarray, *, rounds: int = 1000, tol: float = 0.001,
               seconds: float | None = None, starts: tuple | None = None, plans: tuple | None = None,
               per_round: int = 1, bank_bytes: float = 8 * 2 ** 30,
               progress: Callable[[dict], None] | None = None) -> TeamPlans:
    """Both teams' correlated plans, each team a mixture of joint plans of its partners (a team
    whose other member never decides: of its one player's plans), by a double oracle exact over
    the deals (the game's :meth:`~.game.SolverGame.pair_sums`): the matrix game between the plans
    found so far is solved (:func:`matrix_game`); each team's best joint plan against the other's
    mixture (alternating best responses from several starts, :func:`_plan_search`) joins when it
    beats the matrix game's value (up to ``per_round`` of the starts' plans that do, the best
    first).  The plans start from ``SIG`` (working layout; and ``plans``,
    per team the plans of an earlier run).  Per round, stones per lance for team 0: ``value``,
    ``upper`` (team 0's best plan against team 1's mixture), ``lower`` (team 1's best plan against
    team 0's), each team's ``gain`` from its best plan (``upper - value``, ``value - lower``)
    and, every round, what each team seeing both its hands would take (``seeing_both``).  Stops
    when ``upper - lower <= tol``, after ``rounds`` rounds or ``seconds``, on Ctrl-C
    (``partial``), or when neither oracle finds a new plan.

    Memory: each plan is kept as its partners' own reaches (a table over each partner's states
    and the terminals); a new plan's row or column of the matrix is its sums against the other
    team (one :meth:`~.game.SolverGame.pair_sums`) against each kept plan's pair reach
    (:func:`musstats._kernels.vcfr.pair_reach_dots`).  The other team's sums against each plan
    are kept too, up to ``bank_bytes`` (half a team, float32; the plans the mixtures used least
    recently leave first), so that a team's sums against the other's mixture are a weighted
    sum; the plans of the mixture whose sums are gone are summed in one pass over the deals
    (:meth:`~.game.SolverGame.mixture_pair_sums`)."""
    import time
    from collections import OrderedDict

    from musstats._kernels.vcfr import pair_reach_dots
    from musstats.engines.run import Interrupt
    from musstats.engines.solving.exploit import TEAM_STARTS, team_owners

    lay = game.layout
    starts = TEAM_STARTS if starts is None else starts
    ps = [game.pair_sums(t, SIG) for t in (0, 1)]
    own = [team_owners(game, t) for t in (0, 1)]
    if not own[0] or not own[1]:
        raise MusError("both teams must decide somewhere")
    found: tuple[list, list] = ([], [])
    # per team: its plans' partners' own reaches [plans, n_tz, states] (rows grown by a quarter
    # when full; a team of one owner has a partner of one state reached everywhere)
    reach: list = [[None, None], [None, None]]
    cols = [(ps[t].sa, ps[t].sb if ps[t].b >= 0 else np.zeros_like(ps[t].sa)) for t in (0, 1)]
    # per team: plan -> the other team's pair sums against it (float32, flattened)
    bank: list = [OrderedDict(), OrderedDict()]
    M = np.zeros((0, 0))

    def keep_reach(t: int, S: np.ndarray) -> None:
        n = len(found[t])
        tabs = (lay.own_reach(S, ps[t].a), lay.own_reach(S, ps[t].b) if ps[t].b >= 0 else np.ones((lay.n_tz, 1)))
        for i, R in enumerate(tabs):
            if reach[t][i] is None or reach[t][i].shape[0] < n:
                grown = np.empty((n + max(16, n // 4),) + R.shape)
                if reach[t][i] is not None:
                    grown[: n - 1] = reach[t][i][: n - 1]
                reach[t][i] = grown
            reach[t][i][n - 1] = R

    def keep_sums(t: int, i: int, X: np.ndarray) -> None:
        bank[t][i] = X.astype(np.float32).ravel()
        while sum(x.nbytes for x in bank[t].values()) > bank_bytes / 2 and len(bank[t]) > 1:
            bank[t].popitem(last=False)

    def add(t: int, plan: dict) -> bool:
        nonlocal M
        if any(all(np.array_equal(plan[k], p[k]) for k in plan) for p in found[t]):
            return False
        S = _with_plan(lay, SIG, plan)
        found[t].append(plan)
        keep_reach(t, S)
        X = game.pair_sums(1 - t, S).T  # the other team's sums against the new plan
        keep_sums(t, len(found[t]) - 1, X)
        K, J = len(found[0]), len(found[1])
        M2 = np.zeros((K, J))
        M2[: M.shape[0], : M.shape[1]] = M
        # team 0's value of (plan i, plan j): the other team's kept plans' reach against the new
        # plan's sums, for the other team
        n = len(found[1 - t])
        if n:
            v = pair_reach_dots(reach[1 - t][0][:n], reach[1 - t][1][:n], cols[1 - t][0], cols[1 - t][1],
                                np.ascontiguousarray(X))
            if t == 0:
                M2[K - 1] = -v / ps[1].n
            else:
                M2[:, J - 1] = v / ps[0].n
        M = M2
        return True

    def mixed(t: int, x: np.ndarray) -> np.ndarray:
        """The other team's pair sums against team ``t``'s plans mixed by ``x``."""
        shape = ps[1 - t].T.shape
        out = np.zeros(shape)
        gone = []
        for i in np.nonzero(x > 1e-9)[0]:
            if int(i) in bank[t]:
                bank[t].move_to_end(int(i))
                out += x[i] * bank[t][int(i)].reshape(shape)
            else:
                gone.append(int(i))
        if gone:
            out += game.mixture_pair_sums(1 - t, [_with_plan(lay, SIG, found[t][i]) for i in gone], x[gone]).T
        return out

    first = [{k: lay.owner_rows(SIG, k) for k in own[t]} for t in (0, 1)]
    add(0, first[0])
    add(1, first[1])
    for t in (0, 1):
        for p in (plans[t] if plans else ()):
            add(t, p)
    out = TeamPlans(found, (np.ones(1), np.ones(1)))
    t0 = time.perf_counter()
    with Interrupt() as ctrl_c:
        for r in range(rounds):
            x, y, lo, hi = matrix_game(M, gap=tol / 10)
            value = (lo + hi) / 2
            T0, T1 = mixed(1, y), mixed(0, x)
            f0 = _plan_search(game, _with_plan(lay, SIG, found[0][int(np.argmax(x))]), 0, ps[0], T0, starts)
            f1 = _plan_search(game, _with_plan(lay, SIG, found[1][int(np.argmax(y))]), 1, ps[1], T1, starts)
            (u0, _, how0), (u1, _, how1) = f0[0], f1[0]
            upper, lower = u0 / ps[0].n, -u1 / ps[1].n
            row = {"round": r, "plans": [len(found[0]), len(found[1])],
                   "support": [int((x > 1e-3).sum()), int((y > 1e-3).sum())], "value": value,
                   "matrix_gap": hi - lo, "upper": upper, "lower": lower,
                   "gain": [upper - value, value - lower],
                   "seeing_both": [seeing_both(lay, T0, own[0]) / ps[0].n - value,
                                   value + seeing_both(lay, T1, own[1]) / ps[1].n],
                   "found_from": [how0, how1], "seconds": round(time.perf_counter() - t0, 1)}
            out = TeamPlans((list(found[0]), list(found[1])), (x, y), out.rounds + [row], row, True)
            if progress is not None:
                progress(row)
            if upper - lower <= tol:
                out.partial = False
                break
            if ctrl_c.hit or (seconds is not None and time.perf_counter() - t0 > seconds):
                break
            added = 0
            for t, f, n, sign in ((0, f0, ps[0].n, 1.0), (1, f1, ps[1].n, -1.0)):
                k = 0
                for u, S, _ in f:  # the starts' plans that beat the value (team t's own), the best first
                    if k < per_round and u / n > sign * value + tol / 4 and \
                            add(t, {q: lay.owner_rows(S, q) for q in own[t]}):
                        k += 1
                added += k
            if not added:  # neither oracle finds a new plan: the search's answer
                out.partial = False
                break
    return out
