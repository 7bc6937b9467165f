"""What a solved subgame depends on (:class:`Spec`), the solvers' default sizes, and the
solver game of a spec (:func:`solver_game`).

A *subgame* is one lance under one declaration pattern (pares, juego) for one deal model
and one information model.  Three kinds of chance, one game class each, all solved by the
one CFR driver (:mod:`musstats.engines.solving.cfr`) and measured by the one
exploitability module (:mod:`musstats.engines.solving.exploit`):

* ``vector`` -- public chance sampling with a vector over one seat's hands
  (:class:`.vector.VectorGame`; the hands as dealt, whose conditional law is exact);
* ``deals`` -- sampled whole deals (:class:`musstats.engines.solving.dealt.DealGame`; any
  deal model, the one for after the mus);
* ``exact`` -- exact chance over the law of the two teams' states
  (:class:`.pooled.PooledGame`; pooled information, the hands as dealt).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from musstats.base.errors import MusError
from musstats.engines.betting import deals as D
from musstats.engines.betting.abstraction import DEFAULT_ABSTRACTION, Abstraction
from musstats.engines.betting.game import Payoff, StonePayoff
from musstats.engines.betting.info import INFO_MODELS, make_game
from musstats.engines.betting.tree import BettingTree, betting_tree, pattern_text
from musstats.engines.solving.game import Game
from musstats.rules.variant import Variant

__all__ = ["Spec", "DEFAULT_ITERATIONS", "DEFAULT_BATCH", "DEFAULT_POOL", "DEFAULT_SEED", "EVAL_DEALS",
           "EVAL_SAMPLES", "EVAL_PAIR_SAMPLES", "HISTORY_SAMPLES", "SOLVERS", "SOLVER_DEFAULTS", "VECTOR_BATCH",
           "VECTOR_ITERATIONS", "DEALS_ITERATIONS", "VECTOR_POOLED", "VECTOR_POOLED_BATCH", "default_solver",
           "default_method", "MIRRORED", "holders", "seat_source",
           "FORMAT"]

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
#: samples per owner of the exploitability estimates of the convergence history (vector)
HISTORY_SAMPLES = 10_000
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


#: the after-mus subgames solved with the team scheme: chica, where a pair changing together beat
#: DCFR's equilibrium by 0.39 stones a chica (docs/quality.md)
TEAM_AFTER_MUS = ("chica",)


#: lances solved as the image of another under the reversal of the ranks: with the hands as
#: dealt, grande is chica with every hand reversed (:func:`musstats.tables.hands.reversed_hands`),
#: one game solved once (:attr:`Spec.mirror`)
MIRRORED = {"grande": "chica"}


def holders(pattern: int) -> list[int]:
    """The seats that hold a lance under a declaration pattern, in the order of speech."""
    return [q for q in range(4) if pattern >> q & 1]


def seat_source(lance: str, pattern: int) -> int | None:
    """The declaration pattern of pares or juego whose game, the seats renamed, is this one's: the
    first whose holders, in the order of speech, are on the same teams or on the teams swapped
    (with the hands as dealt every seat's hand is alike, ties go to the holder who speaks
    first, and a bet is answered in turn from the bettor, so only that order matters); None
    where the pattern is the first of its kind.  Mano+postre, third+postre and second+third are
    mano+second; second+third+postre is mano+second+third."""
    if lance not in ("pares", "juego"):
        return None
    teams = [q % 2 for q in holders(pattern)]
    for p in sorted(x for ln, x in D.SUBGAMES if ln == lance and x < pattern):
        other = [q % 2 for q in holders(p)]
        if other == teams or other == [1 - t for t in teams]:
            return p
    return None


def default_method(deal: str, info: str, payoff: Payoff, lance: str | None = None) -> str:
    """The CFR scheme of a subgame (:data:`musstats.engines.solving.cfr.PRESETS`): the team-sound
    scheme for the lances' betting with private information and the hands as dealt (partners
    decide apart, so a pair changing together must be trained against), and after the mus in
    the lances of :data:`TEAM_AFTER_MUS`; DCFR for the other after-mus subgames (the deal solver
    with the team scheme and its measures does not fit the build's time there), for the
    two-player pooled game and for the órdago at a score."""
    private = info == "private" and isinstance(payoff, StonePayoff)
    if not private:
        return "dcfr"
    return "team" if deal == "as-dealt" or lance in TEAM_AFTER_MUS else "dcfr"


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
    method: str = "auto"
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
        object.__setattr__(self, "deal", D.check_deal(self.deal, solved=True))
        if (self.deal == D.CUT) != (self.info == "mus-read"):
            raise MusError("the mus-read information model and the cut deal model go together")
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
        if self.method in (None, "auto"):
            object.__setattr__(self, "method", default_method(self.deal, self.info, self.payoff, self.lance))
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
                **({"mus": mus} if (mus := D.deal_digest(self.deal, self.variant)) else {}),
                **({"mirror": self.mirror.name} if self.mirror is not None else {})}

    @property
    def mirror(self) -> Spec | None:
        """The spec whose solution is this one's, renamed (:func:`musstats.engines.betting.solve.mirrored`):
        with the hands as dealt, private information, the stones payoff and the default scheme,
        grande is chica with every hand reversed (``MIRRORED``, wherever the reversal of the
        ranks makes them one game), and a pattern of pares or juego is another with the seats
        renamed (:func:`seat_source`); None elsewhere: the spec is solved itself."""
        from musstats.tables.hands import reversed_hands

        if (self.deal != "as-dealt" or self.info != "private" or self.warm or not isinstance(self.payoff, StonePayoff)
                or self.method != default_method(self.deal, self.info, self.payoff, self.lance)):
            return None
        if self.lance in MIRRORED:
            return replace(self, lance=MIRRORED[self.lance]) if reversed_hands(self.variant) is not None else None
        src = seat_source(self.lance, self.pattern)
        return None if src is None else replace(self, pattern=src)

    @property
    def mirror_text(self) -> str:
        """What the mirror is, for an answer: ``"chica's with every hand reversed (one game)"``,
        ``"juego mano+second+third's with the seats renamed (one game)"``.  Only for a spec with a mirror."""
        m = self.mirror
        assert m is not None
        how = "every hand reversed" if m.lance != self.lance else "the seats renamed"
        return f"{m.name}'s with {how} (one game)"

    def mirror_map(self) -> tuple[list[int], Any]:
        """How this spec's solution is read from its mirror's: for each seat the mirror's seat
        whose strategy it plays, and the hand each hand plays as (an index array, or None: the
        same hand).  Only for a spec with a mirror."""
        from musstats.tables.hands import reversed_hands

        m = self.mirror
        assert m is not None
        if m.lance != self.lance:  # the ranks reversed, the seats the same
            return [0, 1, 2, 3], reversed_hands(self.variant)
        mine, theirs = holders(self.pattern), holders(m.pattern)
        seat = {a: b for a, b in zip(mine, theirs)}
        rest = iter([q for q in range(4) if q not in theirs])
        return [seat[q] if q in seat else next(rest) for q in range(4)], None

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
        from musstats.engines.solving.store import strategy_key

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
