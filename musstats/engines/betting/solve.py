"""Solve one subgame from its :class:`.specs.Spec`, and measure what was solved.

The spec's chance becomes a solver game (:func:`solver_game`: a :class:`.vector.VectorGame`,
a :class:`musstats.engines.solving.dealt.DealGame` of sampled deals, or a
:class:`.pooled.PooledGame`), the one CFR driver solves it (:func:`musstats.engines.solving.cfr.solve`)
and the one exploitability module measures the strategy as it is stored (quantised):
NashConv per player, and by default each team's deviation
(:mod:`musstats.engines.solving.exploit`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.betting.info import prepare
from musstats.engines.betting.specs import EVAL_DEALS, EVAL_PAIR_SAMPLES, EVAL_SAMPLES, HISTORY_SAMPLES, Spec
from musstats.engines.solving.cfr import SolveConfig, SolverState, solve
from musstats.engines.solving.game import Game, SolverGame
from musstats.engines.solving.store import dequantise, quantise

__all__ = ["Solved", "solve_subgame", "solver_game", "config_of", "measure_solved", "mirrored", "mirror_sigma"]

#: deals of each sample set of the deal solver's convergence history
HISTORY_DEALS = 50_000
#: samples per owner (vector) or deals (deal solver) on which the team scheme searches a pair's joint
#: deviation during training
TEAM_SEARCH = {"vector": 20_000, "deals": 200_000}


@dataclass(eq=False)
class Solved:
    """A solved subgame: the spec, its game, the average strategy (stored layout), and how it
    was measured (``exploit``: :meth:`musstats.engines.solving.exploit.Exploitability.to_dict`)."""

    spec: Spec
    game: Game
    sigma: np.ndarray
    iterations: int
    partial: bool = False
    seconds: float = 0.0
    exploit: dict | None = None
    history: list = field(default_factory=list)  # (iteration, seconds, nashconv lower, upper)
    source: str = "solved"
    train_seconds: float | None = None
    state: Any = None  # the driver's final state (SolverState) when asked for
    moves: list = field(default_factory=list)  # the team scheme's coordination moves

    def describe(self) -> dict:
        return {**self.spec.fields(), "name": self.spec.name, "iterations_done": self.iterations,
                "partial": self.partial, "seconds": round(self.seconds, 2), "train_seconds": self.train_seconds,
                "exploitability": self.exploit, "source": self.source,
                "decision_nodes": self.game.tree.n_decisions, **({"team_moves": self.moves} if self.moves else {})}


def config_of(spec: Spec) -> SolveConfig:
    """The driver's scheme of a spec: its ``method`` preset (the deal solver updates every
    owner on the same deals)."""
    it, _, _ = spec._sizes()
    name = spec.method
    if spec.solver == "deals" and name == "dcfr":
        name = "dcfr-simultaneous"
    cfg = SolveConfig.preset(name, it)
    return replace(cfg, alternate=False) if spec.solver == "deals" else cfg


def _samples(spec: Spec, game: Game, n: int, index: int = 0):
    v = spec.variant
    sg = (spec.lance, spec.pattern)
    keys = (D.CHOOSE_KEY, D.EVAL_KEY) if index == 0 else (D.CHOOSE_KEY + 100 * index, D.EVAL_KEY + 100 * index)
    a = D.kept_subgame_deals(spec.deal, v, *sg, n, spec.seed, keys[0])
    b = D.kept_subgame_deals(spec.deal, v, *sg, n, spec.seed, keys[1])
    return prepare(game, a, v, spec.lance), prepare(game, b, v, spec.lance)


def _prepared(game: Game, pool, n: int, spec: Spec):
    """The first ``n`` deals of a pool (hand indices [m, 4], or with the ``mus-read`` model
    (deals, the seat that cut each one)) prepared for ``game``."""
    deals, cutter = pool if isinstance(pool, tuple) else (pool, None)
    return prepare(game, deals[:n], spec.variant, spec.lance, None if cutter is None else cutter[:n])


def solver_game(spec: Spec, *, purpose: str = "train", samples: int | None = None, pools: dict | None = None,
                index: int = 0) -> SolverGame:
    """The solver game of ``spec``: ``purpose`` ``"train"`` (its training chance) or
    ``"measure"`` (its measurement samples, ``samples`` units per owner or deals); ``index``
    picks further independent measurement samples.  The vector and exact games serve both.
    ``pools`` (deal solver): ``{"train": deals, "choose": deals, "eval": deals}`` instead of the
    kept streams (the measurement pools of the ``mus-read`` model may be (deals, cutter))."""
    game = spec.game()
    v = spec.variant
    if spec.solver in ("vector", "exact"):
        from musstats.engines.betting.vector import vector_game

        vg = vector_game(game, v, spec.pattern, pair_tables=spec.solver == "vector")
        if spec.solver == "exact":
            from musstats.engines.betting.pooled import PooledGame

            return PooledGame(vg)
        n = (TEAM_SEARCH["vector"] if purpose == "train" else EVAL_SAMPLES) if samples is None else int(samples)
        vg.configure(seed=spec.seed + 7919 * index if index else spec.seed, batch=spec._sizes()[1],
                     batch_single=spec.batch_single if spec.pairs else None, n_eval=n,
                     n_pairs=min(n, EVAL_PAIR_SAMPLES))
        return vg
    from musstats.engines.solving.dealt import DealGame

    it, batch, pool = spec._sizes()
    if purpose == "train":
        sg = (spec.lance, spec.pattern)
        train = pools["train"] if pools else D.kept_subgame_deals(spec.deal, v, *sg, pool, spec.seed, D.TRAIN_KEY)
        st, o, w = prepare(game, train[:pool], v, spec.lance)
        m = min(TEAM_SEARCH["deals"], st.shape[0] // 2)  # the team scheme's searches: two slices of the pool
        part = [(st[a:b], o[a:b], np.full(b - a, 1.0 / max(b - a, 1))) for a, b in ((0, m), (m, 2 * m))]
        return DealGame(game, (st, o, w), batch=min(batch, st.shape[0]), choose=part[0], evaluate=part[1], exact=False)
    n = EVAL_DEALS if samples is None else int(samples)
    if pools and "choose" in pools:
        choose = (_prepared(game, pools["choose"], n, spec), _prepared(game, pools["eval"], n, spec))
    else:
        choose = _samples(spec, game, n, index)
    return DealGame(game, choose[0], choose=choose[0], evaluate=choose[1])


def measure_solved(spec: Spec, game: Game, sigma: np.ndarray, *, samples: int | None = None,
                   pools: dict | None = None, team: bool = True, pooled: bool = False, index: int = 0,
                   team_samples: int | None = None) -> dict:
    """The measures of a strategy of ``spec`` as stored (quantised), with what they are: per
    player on ``samples`` units per owner (or deals), and with private information, with
    ``team`` each team's deviation (on ``team_samples``) and with ``pooled`` its pooled
    deviation."""
    from musstats.engines.solving.exploit import nashconv, pooled_deviation, team_deviation

    e0 = time.perf_counter()
    sg = solver_game(spec, purpose="measure", samples=samples, pools=pools, index=index)
    stored = dequantise(quantise(sigma), game)
    SIG = sg.layout.from_game(stored)
    e = nashconv(sg, SIG, sg.sample_size)
    private = spec.info in ("private", "mus-read")  # every seat decides alone
    if private and team:
        # the pair's deviation is searched on team_samples (choose) and valued on the full sample
        if spec.solver == "vector":
            tg = sg.configure(n_choose=team_samples)  # type: ignore[attr-defined]
        else:
            from musstats.engines.solving.dealt import DealGame

            c = sg.choose  # type: ignore[attr-defined]
            small = c if team_samples is None else tuple(x[: int(team_samples)] for x in c)
            tg = DealGame(game, small, choose=small, evaluate=sg.evaluate)  # type: ignore[attr-defined]
        TSIG = tg.layout.from_game(stored)
        for t in (0, 1):
            e.set_team(t, team_deviation(tg, TSIG, t))
        e.extra["team_samples"] = int(team_samples or tg.sample_size)
        if spec.solver == "vector":
            sg.configure(n_choose=None)  # type: ignore[attr-defined]
    if private and pooled:
        for t in (0, 1):
            e.set_pooled(t, pooled_deviation(sg, SIG, t))
    ex = e.to_dict()
    if spec.solver == "exact":
        ex["nashconv_unquantised"] = round(nashconv(sg, sg.layout.from_game(sigma)).nashconv, 6)
    ex["eval_seconds"] = round(time.perf_counter() - e0, 2)
    ex["method"] = (f"{sg.samples_text}; the strategy as stored (steps of 1/255); per player: each owner's best "
                    f"response" + ("" if sg.exact else " chosen on one sample and valued on an independent one "
                                   "(nashconv, a lower bound) and in sample (nashconv_in, biased up)")
                    + ("; team deviation: the partners' alternating best responses from several starts (a lower "
                       "bound of what a pair gains)" if "team_gain" in ex else "")
                    + ("; pooled deviation: the pair's best response seeing both its hands" if "pooled_gain" in ex
                       else ""))
    return ex


def mirror_sigma(spec: Spec, game: Game, source: Game, sigma: np.ndarray) -> np.ndarray:
    """A profile of ``spec``'s mirror (:attr:`.specs.Spec.mirror`, on its game ``source``) read as
    one of ``spec``'s (on ``game``, stored layout): each seat plays the strategy of the mirror's
    seat it stands for (:meth:`.specs.Spec.mirror_map`), each hand that of the hand it stands
    for, on the same public tree.  ``sigma``: one profile [slots] or a stack of them [P, slots]."""
    seats, hands = spec.mirror_map()
    t, u = game.tree, source.tree
    same = all(np.array_equal(np.asarray(getattr(t, a)), np.asarray(getattr(u, a))) for a in ("is_term", "first", "n_act"))
    dec = np.asarray(game.owner) >= 0
    owners = np.asarray(source.owner)[dec]
    if not same or not np.array_equal(np.asarray(game.owner)[dec], np.array([seats.index(int(k)) for k in owners])):
        raise MusError(f"internal: {spec.name} is not the mirror of {spec.mirror.name if spec.mirror else '?'}")
    out = np.zeros(sigma.shape[:-1] + (game.n_slots,))
    for k in range(game.n_owners):  # private information: owner k is seat k
        lo, n, st = int(game.obase[k]), int(game.n_states[k]), int(game.stride[k])
        slo = int(source.obase[seats[k]])
        blk = sigma[..., slo: slo + n * st].reshape(sigma.shape[:-1] + (n, st))
        out[..., lo: lo + n * st] = (blk if hands is None else blk[..., hands, :]).reshape(sigma.shape[:-1] + (-1,))
    return out


def mirrored(spec: Spec, source: Solved) -> Solved:
    """``spec``'s solution as its mirror's renamed (:func:`mirror_sigma`; ``source``: the mirror
    solved)."""
    game = spec.game()
    return Solved(spec, game, mirror_sigma(spec, game, source.game, source.sigma), source.iterations, source.partial,
                  0.0, None, [], source=f"{source.source}: {spec.mirror_text}", train_seconds=0.0)


def solve_subgame(spec: Spec, *, progress: Callable[[int, float, float | None], None] | None = None,
                  stop: Callable[[], bool] | None = None, eval_deals: int | None = None,
                  history_every: int = 0, history_deals: int | None = None, pools: dict | None = None,
                  start: SolverState | None = None, keep_state: bool = False, team: bool = False,
                  history_team: bool = False) -> Solved:
    """Solve one subgame with its spec's chance and scheme, then measure it (unless
    ``eval_deals`` is 0: the measurement's samples per owner, or deals; default the
    solver's).  ``team``: measure each team's deviation too (private information; the build
    of the shipped strategies does).

    With ``history_every`` the per-player NashConv is also estimated every so many iterations
    on smaller, independent samples (``history_deals``; exactly with the exact solver) for the
    convergence plot: rows (iteration, training seconds, lower bound, in-sample value); with
    ``history_team`` (private information) each row adds the teams' deviations (in sample) and,
    with the hands as dealt, their pooled deviations (exact).

    ``start`` (a :class:`musstats.engines.solving.cfr.SolverState` of the same game, described
    by ``spec.warm``) warm-starts the solve; ``keep_state`` keeps its final state in
    ``Solved.state``.  A subgame with a mirror (:attr:`.specs.Spec.mirror`: grande as dealt, some
    declaration patterns) is its mirror's solution renamed (:func:`mirrored`), then measured on
    its own game; with ``history_every`` or ``keep_state`` it is solved itself."""
    from musstats.engines.solving.exploit import nashconv, pooled_deviation, team_search

    t0 = time.perf_counter()
    if (start is not None) != bool(spec.warm):
        raise MusError("a warm start must be described in the spec (Spec.warm), and only a warm start may be")
    if spec.mirror is not None and not history_every and not keep_state:
        from musstats.engines.betting.store import get_solved  # the mirror: shipped, cached or solved

        source = get_solved(spec.mirror, progress=progress, stop=stop)
        assert source is not None  # get_solved solves what it does not find
        m = mirrored(spec, source)
        if not m.partial and (eval_deals is None or eval_deals > 0):
            m.exploit = measure_solved(spec, m.game, m.sigma, samples=eval_deals, pools=pools, team=team)
        m.seconds = time.perf_counter() - t0
        return m
    sg = solver_game(spec, pools=pools, purpose="train")
    marks: list[tuple[float, ...]] = []
    evaluate = None
    if history_every:
        n_hist = history_deals or (HISTORY_DEALS if spec.solver == "deals" else HISTORY_SAMPLES)
        hg = sg if spec.solver == "exact" else solver_game(spec, purpose="measure", samples=n_hist, pools=pools,
                                                            index=1)

        def evaluate(sig):
            SIG = hg.layout.from_game(sig)
            e = nashconv(hg, SIG)
            row = [e.nashconv, e.nashconv_in]
            if history_team and spec.info == "private":
                row += [team_search(hg, SIG, t)[0] for t in (0, 1)]
                if spec.solver == "vector":
                    row += [pooled_deviation(hg, SIG, t).gain for t in (0, 1)]
            marks.append(tuple(row))
            return e.nashconv_in

    strat = solve(sg, config_of(spec), progress=progress, evaluate=evaluate, eval_every=history_every, stop=stop,
                  start=start, keep_state=keep_state)
    history = [(it, round(sec, 3), *(round(x, 6) for x in m)) for (it, sec, _), m in zip(strat.history, marks)]
    ex = None
    if eval_deals is None or eval_deals > 0:
        ex = measure_solved(spec, sg.layout.game, strat.sigma, samples=eval_deals, pools=pools, team=team)
        if spec.solver == "vector":
            ex["train_samples"] = int(strat.iterations * spec._sizes()[1])
        elif spec.solver == "deals":
            ex["train_deals"] = int(spec._sizes()[2])
    return Solved(spec, strat.game, strat.sigma, strat.iterations, strat.partial, time.perf_counter() - t0, ex,
                  history, train_seconds=round(strat.seconds, 2), state=strat.meta.get("state"),
                  moves=list(strat.meta.get("team_moves") or []))
