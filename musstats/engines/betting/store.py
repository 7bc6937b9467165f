"""Solve one subgame from a :class:`Spec`, and keep the result: memory, the shipped
strategies of ``musstats/data/betting_*.npz``, the disk cache, or a fresh solve.

A *subgame* is one lance under one declaration pattern (pares, juego) for one deal
model and one information model.  Its strategy is stored as the average behaviour
strategy of every infoset, quantised to uint8 (``round(255 p)``, rows renormalised when
loaded: an error of at most 1/510 per probability).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.betting.abstraction import DEFAULT_ABSTRACTION, Abstraction
from musstats.engines.betting.cache import load_npz, save_npz, strategy_key
from musstats.engines.betting.exploit import Exploitability, exploitability
from musstats.engines.betting.game import Payoff, StonePayoff
from musstats.engines.betting.solver import INFO_MODELS, Game, SolveConfig, make_game, solve_game
from musstats.engines.betting.tree import BettingTree, betting_tree, pattern_text
from musstats.rules.variant import Variant

__all__ = ["Spec", "Solved", "solve_subgame", "get_solved", "prepare", "DEFAULT_ITERATIONS", "DEFAULT_BATCH",
           "DEFAULT_POOL", "DEFAULT_SEED", "EVAL_DEALS", "EVAL_SAMPLES", "SOLVERS", "SOLVER_DEFAULTS", "VECTOR_BATCH",
           "VECTOR_ITERATIONS", "DEALS_ITERATIONS",
           "VECTOR_POOLED", "VECTOR_POOLED_BATCH", "default_solver",
           "shipped_path", "quantise", "dequantise"]

#: the solvers: ``"vector"`` -- public chance sampling with a vector over one seat's hands
#: (:mod:`.vector`; the hands as dealt, whose conditional distribution is exact), ``"deals"`` --
#: chance sampling of whole deals (:mod:`.solver`; any deal model, the one for after-mus),
#: ``"exact"`` -- full-width CFR over the exact law of the two teams' states (:mod:`.pooled`;
#: pooled information, the hands as dealt: a two-player game whose chance fits in memory)
SOLVERS = ("vector", "deals", "exact")
#: defaults of each solver (the shipped strategies, scripts/build_betting.py): iterations,
#: batch (vector: samples of the other three hands per owner and iteration; deals: deals
#: per iteration) and pool (deals: the training deals a batch is taken from; vector: unused).
#: The deal solver fits its pool: grande after the mus measured NashConv 0.041 +- 0.001 with 400
#: iterations of 10,000 deals from 2,000,000 (17 s), 0.0075 +- 0.0012 with 800 of 20,000 from
#: 8,000,000 (49 s), each on 400,000 evaluation deals; then iterations, not the batch, were the
#: limit: juego mano+second 0.039 +- 0.005 with 800 of 20,000, 0.045 +- 0.004 with 800 of 80,000,
#: 0.010 +- 0.006 with 3,200 of 20,000 (pares mano+second+third 0.044 -> 0.000)
SOLVER_DEFAULTS = {"vector": {"iterations": 6000, "batch": 256, "pool": 0},
                   "deals": {"iterations": 3200, "batch": 20_000, "pool": 8_000_000},
                   "exact": {"iterations": 1000, "batch": 0, "pool": 0}}
#: the vector solver's batch where a lance needs more samples per iteration than the default:
#: juego (measured: juego mano+second+third, 6,000 iterations, NashConv 0.029 +- 0.007 with
#: 256 samples, 0.001 +- 0.008 with 1,024; 18,000 iterations of 256 still 0.021)
VECTOR_BATCH = {"juego": 1024}
#: the vector solver's iterations with private information where a subgame needs more than the
#: default ("LANCE PATTERN" or "LANCE"): measured again on 1,000,000 samples per owner, pares with
#: all four declared stood at [0.019, 0.021] after 6,000 iterations and punto at [0.017, 0.018];
#: after 120 s of training (about 21,000 iterations) [0.009, 0.015] and [0.011, 0.016] on 500,000
#: (scripts/bench_cfr.py --snapshots)
VECTOR_ITERATIONS = {"pares 15": 20_000, "punto": 20_000}
#: the deal solver's iterations (after the mus) where a subgame needs more than the default:
#: the shipped strategies measured on 2,000,000 fresh deals per sample set [lower bound,
#: in-sample] went from 3,200 iterations to 12,800: juego mano+second+third [0.027, 0.041] ->
#: [0.016, 0.036], second+third+postre [0.022, 0.032] -> [0.009, 0.023], mano+second+postre
#: [0.015, 0.027] -> [0.007, 0.026], pares with all four [0.016, 0.047] -> [0.005, 0.045];
#: punto on 8,000,000 fresh deals [0.022, 0.035] -> [0.014, 0.029]
DEALS_ITERATIONS = {"juego 7": 12_800, "juego 11": 12_800, "juego 14": 12_800, "pares 15": 12_800,
                    "punto": 12_800}
#: the vector solver's defaults for the pooled information models where a team enumerates
#: every pair of its hands on each sample of the opponents (:mod:`.vector`, ``pair_teams``;
#: the other owners keep the batch of the private solve, ``Spec.batch_single``): fewer, dearer
#: samples (about 1,800 a second on 2 cores at grande against 58,600 private ones); grande
#: measured NashConv [0.017, 0.020] +- 0.001 with 1,600 iterations of 64 (112 s), [0.025,
#: 0.027] +- 0.003 with 1,000 of 64 (75 s), against [0.069, 0.121] with 6,000 of 256 when
#: the partner was dealt and only the first speaker's hands enumerated (238 s)
VECTOR_POOLED = {"iterations": 1600, "batch": 64}
#: the pooled batch where a lance needs more samples of the opponents than grande: punto and
#: juego, whose pooled states also carry the team's values, and pares (measured with 1,600
#: iterations, NashConv [lower bound, in-sample]: punto [0.043, 0.046] with 64 samples,
#: [0.013, 0.025] with 256; juego mano+second+postre [0.040, 0.064] with 64, [0.018, 0.035]
#: with 256, and [0.020, 0.032] with 6,400 iterations of 64; pares mano+second+third [0.022,
#: 0.027] with 64, [0.016, 0.020] with 128, second+third+postre [0.021, 0.024] and [0.015,
#: 0.019], all four [0.049, 0.058] and [0.037, 0.046], for 1.4-1.6 times the seconds).  A key
#: "LANCE PATTERN" overrides its lance for one declaration pattern: pares with all four
#: holding, the largest pooled tree, takes 512 ([0.028, 0.038] with 256, [0.021, 0.034] with
#: 512; juego with all four measured no gain from 512 and keeps 256)
VECTOR_POOLED_BATCH = {"punto": 256, "juego": 256, "pares": 128, "pares 15": 512}
#: samples of the opponents per pooled team and sample set in its exploitability
EVAL_PAIR_SAMPLES = 20_000
DEFAULT_ITERATIONS = SOLVER_DEFAULTS["vector"]["iterations"]
DEFAULT_BATCH = SOLVER_DEFAULTS["vector"]["batch"]
DEFAULT_POOL = SOLVER_DEFAULTS["deals"]["pool"]
DEFAULT_SEED = 2026
#: deals of each of the two exploitability samples of the deal solver (choose the response,
#: value it): the shipped after-mus strategies measured [lower bound, in-sample] from
#: [-0.045, 0.184] (punto) and [-0.016, 0.038] (grande) on 400,000 deals (fewer for the rare
#: subgames) to [0.032, 0.071] and [0.009, 0.019] on 2,000,000 (scripts/remeasure.py)
EVAL_DEALS = 2_000_000
#: the vector solver's samples of the other hands per owner and sample set
EVAL_SAMPLES = 100_000
#: format of the shipped / cached files
FORMAT = 2


def default_solver(deal: str, info: str = "private") -> str:
    """The solver of a deal and information model: for the hands as dealt the exact solver
    in the pooled model and the vector solver otherwise; deal sampling after the mus (the
    conditional distribution of one hand given the others is not known in closed form there)."""
    if deal != "as-dealt":
        return "deals"
    return "exact" if info == "pooled" else "vector"


@dataclass(frozen=True)
class Spec:
    """Everything a solved subgame depends on."""

    lance: str
    pattern: int = 15
    deal: str = "as-dealt"
    info: str = "private"
    variant: Variant = Variant()
    abstraction: Abstraction = DEFAULT_ABSTRACTION
    payoff: Payoff = StonePayoff()
    iterations: int | None = None
    batch: int | None = None
    pool: int | None = None
    seed: int = DEFAULT_SEED
    method: str = "dcfr"
    solver: str = "auto"
    #: a warm start (vector solver): what the solve went on from, e.g. "score 12-21 after 200
    #: iterations"; ``iterations`` are then the ones added to it ("" for a cold solve)
    warm: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", self.variant.lance_rules)
        if self.lance in ("grande", "chica", "punto"):
            object.__setattr__(self, "pattern", 15)
        if self.info not in INFO_MODELS:
            raise MusError(f"unknown information model {self.info!r}; accepted: {', '.join(INFO_MODELS)}")
        object.__setattr__(self, "deal", D.check_deal(self.deal))
        solver = default_solver(self.deal, self.info) if self.solver in (None, "auto") else str(self.solver)
        if solver not in SOLVERS:
            raise MusError(f"unknown solver {self.solver!r}; accepted: auto, {', '.join(SOLVERS)}")
        if solver in ("vector", "exact") and self.deal != "as-dealt":
            raise MusError(f"the {solver} solver needs the hands as dealt (deal=as-dealt); use solver=deals")
        if solver == "exact" and self.info != "pooled":
            raise MusError("the exact solver is for the pooled information model (info=pooled)")
        if solver == "exact" and (self.batch or self.pool):
            raise MusError("the exact solver samples nothing: it takes no batch or pool (only iterations)")
        object.__setattr__(self, "solver", solver)
        defaults = dict(SOLVER_DEFAULTS[solver])
        if solver == "vector" and self.lance in VECTOR_BATCH:
            defaults["batch"] = VECTOR_BATCH[self.lance]
        more = {"vector": VECTOR_ITERATIONS if self.info == "private" else {}, "deals": DEALS_ITERATIONS}.get(solver, {})
        defaults["iterations"] = more.get(f"{self.lance} {self.pattern}", more.get(self.lance, defaults["iterations"]))
        if self.pairs:
            defaults.update(VECTOR_POOLED)
            defaults["batch"] = VECTOR_POOLED_BATCH.get(f"{self.lance} {self.pattern}",
                                                        VECTOR_POOLED_BATCH.get(self.lance, defaults["batch"]))
        for k, x in defaults.items():
            if getattr(self, k) is None:
                object.__setattr__(self, k, x)
            else:
                object.__setattr__(self, k, int(getattr(self, k)))
        if solver in ("vector", "exact"):
            object.__setattr__(self, "pool", 0)
        if solver == "exact":
            object.__setattr__(self, "batch", 0)

    def fields(self) -> dict:
        return {"format": FORMAT, "lance": self.lance, "pattern": self.pattern, "deal": self.deal,
                "info": self.info, "deck": self.variant.deck, "juego_real": self.variant.juego_real,
                "abstraction": self.abstraction.tag, "payoff": self.payoff.key, "iterations": self.iterations,
                "batch": self.batch, "pool": self.pool, "seed": self.seed, "method": self.method,
                "solver": self.solver, **({"warm": self.warm} if self.warm else {}),
                **({"teams": "pairs"} if self.pairs else {}),
                **({"batch_single": self.batch_single} if self.pairs and self._has_single() else {}),
                **({"mus": mus} if (mus := D.deal_digest(self.deal, self.variant)) else {})}

    @property
    def pairs(self) -> bool:
        """Whether a pooled team of this subgame enumerates every pair of its hands (the vector
        solver, a team with both seats in the lance): the solve then takes the defaults of
        ``VECTOR_POOLED`` (the batch of ``VECTOR_POOLED_BATCH`` in its lances), and the other
        owners the batch of the private solve."""
        from musstats.engines.betting.vector import pair_teams

        if self.solver != "vector" or self.info == "private":
            return False
        both = pair_teams(self.lance, self.pattern)
        return {"pooled": any(both), "pooled-0": both[0], "pooled-1": both[1]}[self.info]

    def _has_single(self) -> bool:
        """Whether an owner that speaks enumerates one seat's hands (a seat, or a team with one
        holder) beside a pooled team that enumerates pairs."""
        from musstats.engines.betting.vector import pair_teams

        return self.info != "pooled" or not all(pair_teams(self.lance, self.pattern))

    @property
    def batch_single(self) -> int:
        """The batch of the owners that enumerate one seat's hands (see :attr:`pairs`)."""
        return int(VECTOR_BATCH.get(self.lance, SOLVER_DEFAULTS["vector"]["batch"]))

    @property
    def key(self) -> str:
        return strategy_key(self.fields())

    @property
    def name(self) -> str:
        """``"pares mano+second"``, ``"grande"``."""
        return self.lance if self.lance in ("grande", "chica", "punto") else f"{self.lance} {pattern_text(self.pattern)}"

    def _sizes(self) -> tuple[int, int, int]:
        """``(iterations, batch, pool)``: never None once :meth:`__post_init__` has filled in
        the solver's defaults."""
        it, batch, pool = self.iterations, self.batch, self.pool
        assert it is not None and batch is not None and pool is not None
        return it, batch, pool

    def tree(self) -> BettingTree:
        return betting_tree(self.lance, self.pattern, self.abstraction)

    def game(self) -> Game:
        from musstats.tables.hands import hand_tables

        t = self.tree()
        return make_game(t, self.info, self.payoff.table(t), hand_tables(self.variant).n_hands)


@dataclass(eq=False)
class Solved:
    """A solved subgame: the spec, its game, the average strategy, and how it was measured."""

    spec: Spec
    game: Game
    sigma: np.ndarray
    iterations: int
    partial: bool = False
    seconds: float = 0.0
    exploit: dict | None = None  # Exploitability.to_dict() on independent deals
    history: list = field(default_factory=list)  # (iteration, seconds, nashconv lower, upper)
    source: str = "solved"
    train_seconds: float | None = None
    state: Any = None  # the solver's final state (vector.SolverState) when asked for

    def describe(self) -> dict:
        return {**self.spec.fields(), "name": self.spec.name, "iterations_done": self.iterations,
                "partial": self.partial, "seconds": round(self.seconds, 2), "train_seconds": self.train_seconds,
                "exploitability": self.exploit,
                "source": self.source, "decision_nodes": self.game.tree.n_decisions}


def prepare(game: Game, deals: np.ndarray, variant: Variant, lance: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(states, outcome codes, equal weights) of deals for a game."""
    o, stp = D.lance_states(deals, lance, variant, False)
    stq = None
    if any(kind == "team" for kind, _ in game.columns):
        _, stq = D.lance_states(deals, lance, variant, True)
    n = deals.shape[0]
    return game.states(stp, stq), o, np.full(n, 1.0 / max(n, 1))


def solve_subgame(spec: Spec, *, progress: Callable[[int, float, float | None], None] | None = None,
                  stop: Callable[[], bool] | None = None, eval_deals: int | None = None,
                  history_every: int = 0, history_deals: int | None = None, pools: dict | None = None,
                  start=None, keep_state: bool = False) -> Solved:
    """Solve one subgame with its spec's solver, then measure its NashConv.

    * ``vector`` (hands as dealt): ``spec.iterations`` iterations of DCFR by public chance
      sampling, ``spec.batch`` fresh samples of the other three hands per owner and
      iteration (:mod:`.vector`); NashConv on ``eval_deals`` samples per owner and sample set
      (default ``EVAL_SAMPLES``).
    * ``deals``: DCFR on minibatches of ``spec.batch`` deals taken in turn from a pool of
      ``spec.pool`` training deals (:mod:`.solver`); NashConv on two independent samples of
      ``eval_deals`` deals (default ``EVAL_DEALS``).
    * ``exact`` (pooled information, hands as dealt): ``spec.iterations`` iterations of
      full-width DCFR over the exact law of the two teams' states (:mod:`.pooled`); its
      NashConv is exact, measured on the strategy as it is stored (``nashconv``) and as solved
      (``nashconv_unquantised``), unless ``eval_deals`` is 0.

    With ``history_every`` the exploitability is also estimated every so many iterations
    on smaller samples (``history_deals``; exactly with the exact solver) for the convergence
    plot: rows (iteration, training seconds, NashConv lower bound, in-sample value).

    Vector solver only: ``start`` (a :class:`.vector.SolverState` of the same tree, described
    by ``spec.warm``) warm-starts the solve; ``keep_state`` keeps its final state in
    ``Solved.state``."""
    if spec.solver == "vector":
        return _solve_vector(spec, progress=progress, stop=stop, eval_deals=eval_deals, history_every=history_every,
                             history_deals=history_deals, start=start, keep_state=keep_state)
    if start is not None or spec.warm:
        raise MusError("a warm start needs the vector solver")
    if spec.solver == "exact":
        return _solve_exact(spec, progress=progress, stop=stop, history_every=history_every,
                            measure=eval_deals is None or eval_deals > 0)
    t0 = time.perf_counter()
    iterations, batch, pool = spec._sizes()
    eval_deals = EVAL_DEALS if eval_deals is None else int(eval_deals)
    history_deals = 50_000 if history_deals is None else int(history_deals)
    game = spec.game()
    v = spec.variant
    sg = (spec.lance, spec.pattern)
    train = pools["train"] if pools else D.kept_subgame_deals(spec.deal, v, *sg, pool, spec.seed, D.TRAIN_KEY)
    st, o, _ = prepare(game, train[: pool], v, spec.lance)
    n = st.shape[0]
    B = min(batch, n)

    def data(t: int):
        i = ((t - 1) * B) % n
        j = i + B
        if j <= n:
            s_, o_ = st[i:j], o[i:j]
        else:
            s_ = np.concatenate([st[i:], st[: j - n]])
            o_ = np.concatenate([o[i:], o[: j - n]])
        return s_, o_, np.full(B, 1.0 / B)

    evaluate = None
    hist_samples = None
    marks: list[tuple[float, float]] = []
    if history_every:
        hist_samples = _samples(spec, game, history_deals)

        def evaluate(sig):
            e = exploitability(game, sig, *hist_samples)
            marks.append((e.nashconv, e.nashconv_in))
            return e.nashconv_in

    strat = solve_game(game, data if B < n else (st, o, np.full(n, 1.0 / n)),
                       SolveConfig(iterations=iterations, method=spec.method),
                       progress=progress, evaluate=evaluate, eval_every=history_every, stop=stop)
    history = [(it, round(sec, 3), round(lo, 6), round(hi, 6)) for (it, sec, _), (lo, hi) in zip(strat.history, marks)]
    ex = None
    if eval_deals:
        if pools and "choose" in pools:
            smp = (prepare(game, pools["choose"][:eval_deals], v, spec.lance),
                   prepare(game, pools["eval"][:eval_deals], v, spec.lance))
        else:
            smp = _samples(spec, game, eval_deals)
        ex = exploitability(game, strat.sigma, *smp).to_dict()
        ex["train_deals"] = int(n)
        ex["method"] = ("deal sampling: responses chosen on one sample of deals, valued on an independent one "
                        "(nashconv, a lower bound) and in-sample (nashconv_in, biased up)")
    return Solved(spec, game, strat.sigma, strat.iterations, strat.partial, time.perf_counter() - t0, ex,
                  history)


#: samples per owner of the exploitability estimates of the convergence history (vector)
HISTORY_SAMPLES = 10_000


def _solve_exact(spec: Spec, *, progress=None, stop=None, history_every=0, measure=True) -> Solved:
    from musstats.engines.betting.pooled import pooled_exploitability, pooled_law, solve_pooled
    from musstats.engines.betting.vector import vector_game

    t0 = time.perf_counter()
    iterations, _, _ = spec._sizes()
    game = spec.game()
    vg = vector_game(game, spec.variant, spec.pattern, pair_tables=False)
    pooled_law(vg)  # the law first: its seconds are part of the solve, not of the training
    strat = solve_pooled(vg, SolveConfig(iterations=iterations, method=spec.method), progress=progress,
                         evaluate_every=history_every, stop=stop)
    history = [(it, round(sec, 3), round(nc, 6), round(nc, 6)) for it, sec, nc in strat.history]
    ex = None
    if measure:
        e0 = time.perf_counter()
        ex = pooled_exploitability(vg, dequantise(quantise(strat.sigma), game)).to_dict()
        ex["nashconv_unquantised"] = round(pooled_exploitability(vg, strat.sigma).nashconv, 6)
        ex["eval_seconds"] = round(time.perf_counter() - e0, 2)
        ex["method"] = ("exact: each team's best response over the exact law of the two teams' pooled states (card "
                        "removal exact, no sampling), for the strategy as stored (1/255 steps; nashconv_unquantised: "
                        "as solved)")
    return Solved(spec, game, strat.sigma, strat.iterations, strat.partial, time.perf_counter() - t0, ex, history,
                  train_seconds=round(strat.seconds, 2))


def _solve_vector(spec: Spec, *, progress=None, stop=None, eval_deals=None, history_every=0,
                  history_deals=None, start=None, keep_state=False) -> Solved:
    from musstats.engines.betting.vector import solve_vector, vector_exploitability, vector_game

    t0 = time.perf_counter()
    iterations, batch, _ = spec._sizes()
    n_eval = EVAL_SAMPLES if eval_deals is None else int(eval_deals)
    n_pairs = min(n_eval, EVAL_PAIR_SAMPLES)
    n_hist = HISTORY_SAMPLES if history_deals is None else int(history_deals)
    game = spec.game()
    vg = vector_game(game, spec.variant, spec.pattern)
    marks: list[tuple[float, float]] = []
    evaluate = None
    if history_every:
        def evaluate(sig):
            e = vector_exploitability(vg, sig, n_hist, spec.seed, key_offset=100, n_pairs=min(n_hist, n_pairs))
            marks.append((e.nashconv, e.nashconv_in))
            return e.nashconv_in

    if start is not None and not spec.warm:
        raise MusError("a warm start must be described in the spec (Spec.warm)")
    strat = solve_vector(vg, SolveConfig(iterations=iterations, method=spec.method), batch, spec.seed,
                         progress=progress, evaluate=evaluate, eval_every=history_every, stop=stop, start=start,
                         keep_state=keep_state, batch_single=spec.batch_single if spec.pairs else None)
    history = [(it, round(sec, 3), round(lo, 6), round(hi, 6)) for (it, sec, _), (lo, hi) in zip(strat.history, marks)]
    ex = None
    if n_eval:
        e0 = time.perf_counter()
        ex = vector_exploitability(vg, strat.sigma, n_eval, spec.seed, n_pairs=n_pairs).to_dict()
        ex["train_samples"] = int(iterations * batch)
        if spec.pairs:
            ex["train_samples_single"] = int(iterations * spec.batch_single)
        ex["eval_seconds"] = round(time.perf_counter() - e0, 2)
        teams = ""
        if spec.pairs:
            ex["pair_samples"] = n_pairs
            teams = (f"; a pooled team's response is exact over every pair of its hands and Monte Carlo over the "
                     f"two opponents' hands ({n_pairs:,} samples)")
        ex["method"] = (f"public chance sampling: per owner, the best response is exact over the hands of one of its "
                        f"seats and Monte Carlo over the other three hands ({n_eval:,} samples per owner and sample "
                        f"set){teams}; chosen on one sample, valued on an independent one (nashconv, a lower bound) "
                        f"and in-sample (nashconv_in, biased up)")
    return Solved(spec, game, strat.sigma, strat.iterations, strat.partial, time.perf_counter() - t0, ex, history,
                  train_seconds=round(strat.seconds, 2), state=strat.meta.get("state"))


def _samples(spec: Spec, game: Game, n: int):
    v = spec.variant
    sg = (spec.lance, spec.pattern)
    a = D.kept_subgame_deals(spec.deal, v, *sg, n, spec.seed, D.CHOOSE_KEY)
    b = D.kept_subgame_deals(spec.deal, v, *sg, n, spec.seed, D.EVAL_KEY)
    return prepare(game, a, v, spec.lance), prepare(game, b, v, spec.lance)


# ---------------------------------------------------------------------------
# storage


def quantise(sigma: np.ndarray) -> np.ndarray:
    return np.rint(np.clip(sigma, 0, 1) * 255).astype(np.uint8)


def dequantise(q: np.ndarray, game: Game) -> np.ndarray:
    from musstats._kernels.cfr import normalise

    out = np.empty(q.shape[0])
    normalise(q.astype(np.float64), out, game.iset_base, game.iset_n)
    return out


def _pack(s: Solved) -> dict:
    return {"sigma": quantise(s.sigma), "meta": np.frombuffer(json.dumps(s.describe()).encode(), np.uint8),
            "history": np.array(s.history, np.float64).reshape(-1, 4)}


def _unpack(arrs: dict, spec: Spec, source: str) -> Solved | None:
    try:
        meta = json.loads(bytes(arrs["meta"]).decode())
        game = spec.game()
        if arrs["sigma"].shape[0] != game.n_slots:
            return None
        sig = dequantise(arrs["sigma"], game)
        hist = [tuple(r) for r in np.asarray(arrs.get("history", np.zeros((0, 4))))]
        return Solved(spec, game, sig, int(meta.get("iterations_done", spec.iterations)), bool(meta.get("partial")),
                      float(meta.get("seconds", 0.0)), meta.get("exploitability"), hist, source,
                      meta.get("train_seconds"))
    except Exception:
        return None


def shipped_path(variant: Variant, deal: str, info: str = "private") -> Path:
    """``musstats/data/betting_<deck>_<juego real>_<deal>_<info>.npz``."""
    return Path(__file__).resolve().parents[2] / "data" / f"betting_{variant.deck}_{variant.juego_real}_{deal}_{info}.npz"


_SHIPPED: dict[Path, dict | None] = {}


def _shipped_arrays(spec: Spec) -> dict | None:
    p = shipped_path(spec.variant, spec.deal, spec.info)
    if p not in _SHIPPED:
        try:
            with np.load(p, allow_pickle=False) as z:
                _SHIPPED[p] = {k: z[k] for k in z.files}
        except (OSError, ValueError):
            _SHIPPED[p] = None
    z = _SHIPPED[p]
    if z is None:
        return None
    name = f"{spec.lance}-{spec.pattern}"
    if f"{name}.sigma" not in z:
        return None
    meta = json.loads(bytes(z[f"{name}.meta"]).decode())
    fields = spec.fields()
    if any(meta.get(k) != v for k, v in fields.items()):
        return None
    return {"sigma": z[f"{name}.sigma"], "meta": z[f"{name}.meta"], "history": z[f"{name}.history"]}


def write_shipped(solved: list[Solved], path: Path) -> Path:
    """Write solved subgames (one deal model and information model) to a shipped file."""
    from musstats.base.files import atomic_write

    arrays = {}
    for s in solved:
        name = f"{s.spec.lance}-{s.spec.pattern}"
        for k, a in _pack(s).items():
            arrays[f"{name}.{k}"] = a

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)

    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, write)


_MEMO: dict[str, Solved] = {}


def get_solved(spec: Spec, *, solve: bool = True, progress=None, stop=None, cache: bool = True,
               eval_deals: int | None = None, start=None, keep_state: bool = False) -> Solved | None:
    """The solved subgame of ``spec``: from memory, the shipped file, the disk cache, or
    (with ``solve``) a fresh solve that is then cached.  None if absent and not solved.
    ``start`` and ``keep_state`` go to a fresh solve (:func:`solve_subgame`); the state is
    not cached here."""
    key = spec.key
    if key in _MEMO:
        return _MEMO[key]
    got = None
    z = _shipped_arrays(spec)
    if z is not None:
        got = _unpack(z, spec, "shipped")
    if got is None and cache:
        z = load_npz(f"strategy-{spec.lance}-{spec.pattern}-{spec.deal}-{spec.info}-{key}")
        if z is not None:
            got = _unpack(z, spec, "cache")
    if got is None:
        if not solve:
            return None
        got = solve_subgame(spec, progress=progress, stop=stop, eval_deals=eval_deals, start=start,
                            keep_state=keep_state)
        if cache and not got.partial:
            save_npz(f"strategy-{spec.lance}-{spec.pattern}-{spec.deal}-{spec.info}-{key}", _pack(got))
    if not got.partial:
        _MEMO[key] = got
    return got


def with_defaults(spec: Spec, **kw) -> Spec:
    return replace(spec, **kw)
