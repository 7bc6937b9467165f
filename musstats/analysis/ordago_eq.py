"""The órdago at a score against equilibrium opponents.

One lance's betting (the abstraction of :mod:`musstats.engines.betting`: paso, envidos,
one raise, órdago) is solved with team 0's utility = P(team 0 wins the game)
(:class:`~musstats.engines.betting.game.GamePayoff`): an accepted órdago decides the game;
the deje of a refused bet is taken at once; then the hand is counted in lance order, the
other lances played en paso (:func:`rest_of_hand`), and the first team to reach the
target wins; a score short of it is valued by the win-the-game model at the start of the
next hand.  Solved per lance, declaration pattern and score, private
information, and cached on disk: for the hands as dealt by the vector solver (warm-started
from a nearby score), for the hands after a mus round (``deal="after-mus"``) by the deal
solver on after-mus deals (cold: :data:`AFTER_MUS_EQ`).

* :func:`score_solution` -- the solved lance at a score (from the cache or solved now);
* :func:`equilibrium_figures` -- for one hand at one seat: at the seat's first turn
  (everyone before it passed) P(they accept our órdago), P(we win the lance | they
  accept), P(we win the game) if we call / if we pass, the equilibrium frequency of the
  call and the decision (the action with the higher P(win the game)); facing an órdago
  (the first node where the seat answers an opening órdago of the other team that the
  others reach with the hands dealt; else the first where it faces one at all), P(we win
  the lance | they called it) from the callers' equilibrium range, P(win the game) if our
  team accepts / refuses (every answerer of the team refusing: a partner who answers
  after us may still accept) and the decision;
* :func:`pushfold_frame` -- for every hand and seat: the call and accept frequencies
  (the push/fold chart of ``musstats ordago --chart``).

The Monte Carlo figures are over ``trials`` deals of the other three hands given ours
(as dealt, or after the mus: the after-mus deals in which we end with our hand; fitting the
declaration pattern), each weighted by the other players' equilibrium reach of the node (as
:func:`musstats.analysis.betting.bet` does).  All
P(win the game) figures are for the asking player's team.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

from musstats.base.errors import MusError
from musstats.base.files import read_npz
from musstats.engines.betting.game import COUNT_SLOTS, GamePayoff, RestOfHand
from musstats.engines.betting.info import prepare
from musstats.engines.betting.solve import Solved
from musstats.engines.betting.specs import Spec
from musstats.engines.betting.store import get_solved
from musstats.engines.betting.tree import ORDAGO, BettingTree, betting_tree, pattern_text
from musstats.rules.labels import SEATS
from musstats.rules.variant import Variant

__all__ = ["next_hand_grid", "rest_of_hand", "rest_from_deals", "rest_source", "rest_file", "REST_DEALS", "REST_SEED", "DEFAULT_EQ_ITERATIONS", "AFTER_MUS_EQ", "eq_approximations", "DEFAULT_EQ_TRIALS",
           "DEFAULT_EQ_EVAL", "DEFAULT_EQ_SEED", "MIXED", "score_spec", "score_solution", "call_node", "answer_node",
           "answer_candidates", "team_refusal", "equilibrium_figures", "pushfold_frame", "anchor_scores",
           "anchor_file", "shipped_anchor", "warm_state", "warm_iterations", "ANCHOR_AXIS", "ANCHOR_ITERATIONS",
           "EQ_APPROXIMATIONS"]

#: iterations of the vector solver per (lance, pattern, score): NashConv ≈ 0.0004 P(win the game) at
#: grande 0-0 (0.0010 at 100 iterations, 0.0003-0.0004 at 300-400; measured, 10,000 samples per owner)
DEFAULT_EQ_ITERATIONS = 200
#: deals of the Monte Carlo figures of one hand
DEFAULT_EQ_TRIALS = 20_000
#: samples per owner of the NashConv measurement, cold and warm solves alike (standard error about
#: 0.001 P(win the game), beside NashConv values of 0.0005-0.005; 500 samples measured 0.0024 at
#: chica; on one thread 2,000 samples add 0.3 s to a question: p95 1.12 s against 0.77 s at 500,
#: 40 random questions on the busy 2-core machine)
DEFAULT_EQ_EVAL = 2_000
DEFAULT_EQ_SEED = 2026
#: a frequency strictly between MIXED and 1 - MIXED is "mixed"
MIXED = 0.05

EQ_APPROXIMATIONS = (
    "equilibrium: only this lance's betting is solved, with P(win the game) as the payoff: the deje of a refused "
    "bet at once, then the count in lance order with the other lances of the hand en paso (their stones as an "
    "average given this lance's outcome), the first team to reach the target winning; a score short of it is "
    "valued by the win-the-game model at the start of the next hand (the other team mano): with equilibrium "
    "betting where it ships (8 reyes), else en paso",
    "equilibrium: the abstraction's bets only (paso, envido 2 / 5, one raise of 2, órdago); hands as dealt "
    "(nothing read from the mus phase); private information (no señas)",
)
#: the deal solver's sizes for the órdago at a score after the mus (cold solves: it has no
#: warm start).  measured at grande (scripts/bench_ordago.py --after-mus): see the README
AFTER_MUS_EQ = {"iterations": 400, "batch": 20_000, "pool": 2_000_000, "eval": 200_000}


def eq_approximations(deal: str = "as-dealt") -> tuple[str, ...]:
    """What the equilibrium figures leave out, for a deal model."""
    if deal == "as-dealt":
        return EQ_APPROXIMATIONS
    return (EQ_APPROXIMATIONS[0],
            "equilibrium: the abstraction's bets only (paso, envido 2 / 5, one raise of 2, órdago); hands after one "
            "mus round, given that all four asked for it (the shipped cut flags and discard table), by the deal "
            "solver on sampled after-mus deals; private information (no señas)")


def next_hand_grid(variant: Variant) -> np.ndarray:
    """P(team 0 wins the game) [T, T] at the start of the next hand, team 1 mano: the
    win-the-game model's ``p[1]`` -- the model with equilibrium betting where it ships
    (8 reyes), else the en-paso one (default settings, cached)."""
    from musstats.analysis.game import game_model
    from musstats.analysis.game.model import betting_available

    return game_model(variant, betting=betting_available(variant)).p[1]


#: deals of a subgame whose other lances make :func:`rest_of_hand`'s table (and the seed of the
#: stream they come from, as dealt; after the mus the first deals of the solve's own training pool)
REST_DEALS = 100_000
REST_SEED = 1
_REST: dict[tuple, RestOfHand] = {}


def _rest_source(lance: str, pattern: int, variant: Variant, deal: str) -> str:
    from musstats.engines.betting.deals import deal_digest

    dg = deal_digest(deal, variant)
    where = (f"seed {REST_SEED}" if deal == "as-dealt" else
             f"the first of the training pool ({AFTER_MUS_EQ['pool']} deals, seed {DEFAULT_EQ_SEED})")
    return (f"{lance} {pattern} {variant.lance_rules.cache_key(target=False)} {deal}{'-' + dg if dg else ''}: "
            f"{REST_DEALS} deals of the subgame, {where}, the other lances en paso")


def rest_of_hand(lance: str, pattern: int, variant: Variant, deal: str = "as-dealt") -> RestOfHand:
    """The other lances of the hand at the count, played en paso, given ``lance``'s outcome
    code: :data:`REST_DEALS` deals of the subgame (the hands as dealt, or after the mus: the
    first of the after-mus solve's training pool; the declaration pattern), each deal's
    outcome code of ``lance`` and team 0's stones of every place of the count (grande, chica,
    pares, juego or punto: the one played).  From memory, the shipped table
    (``musstats/data/ordago_rest_*.npz``, as dealt), the disk cache, or drawn."""
    from musstats.engines import cache

    src = _rest_source(lance, pattern, variant, deal)
    key = ("ordago-rest", src)

    def read(z):
        if not {"o", "stones", "weight", "source"} <= set(z) or bytes(z["source"]).decode() != src:
            return None
        return RestOfHand(lance, z["o"], z["stones"], z["weight"], src)

    if key not in _REST:
        got = _shipped_rest(lance, pattern, variant, deal)
        if got is not None and got.source == src:
            _REST[key] = got
    out, _ = cache.fetch(_REST, key, "ordago-rest", read, lambda: _draw_rest(lance, pattern, variant, deal, src),
                         lambda r: {"o": r.o, "stones": r.stones, "weight": r.weight,
                                    "source": np.frombuffer(src.encode(), np.uint8)})
    return out


def _draw_rest(lance: str, pattern: int, variant: Variant, deal: str, src: str) -> RestOfHand:
    from musstats.engines.betting import deals as D

    if deal == "as-dealt":
        d = D.kept_subgame_deals(deal, variant, lance, pattern, REST_DEALS, REST_SEED, D.GAME_KEY)
    else:  # the deals the after-mus solve draws anyway (finding rare subgames after a round takes minutes)
        d = D.kept_subgame_deals(deal, variant, lance, pattern, AFTER_MUS_EQ["pool"], DEFAULT_EQ_SEED,
                                 D.TRAIN_KEY)[:REST_DEALS]
    return rest_from_deals(lance, pattern, variant, d, src)


def rest_from_deals(lance: str, pattern: int, variant: Variant, d: np.ndarray, src: str) -> RestOfHand:
    """:func:`rest_of_hand`'s table from the deals of the subgame ``d`` (hand indices [N, 4])."""
    from musstats.engines.betting import deals as D
    from musstats.engines.betting.game import paso_stones

    if d.shape[0] == 0:
        raise MusError(f"no deal of {lance} ({pattern_text(pattern)}) to count the other lances on")
    _, jm = D.holder_masks(d, variant)
    stones = np.zeros((d.shape[0], len(COUNT_SLOTS)), np.int64)
    own = None
    for i, name in enumerate(D.PLAYED_LANCES):
        o, _ = D.lance_states(d, name, variant, False)
        s = np.rint(paso_stones(name, o)).astype(np.int64)
        if name == "juego":
            stones[:, 3] = np.where(jm > 0, s, stones[:, 3])
        elif name == "punto":
            stones[:, 3] = np.where(jm == 0, s, stones[:, 3])
        else:
            stones[:, i] = s
        if name == lance:
            own = o
    assert own is not None  # every lance is one of PLAYED_LANCES
    return RestOfHand.from_samples(lance, own, stones, src)


def rest_source(lance: str, pattern: int, variant: Variant, deal: str) -> str:
    """What :func:`rest_of_hand`'s table of a subgame is drawn from (its key)."""
    return _rest_source(lance, pattern, variant, deal)


def rest_file(variant: Variant) -> Path:
    """``musstats/data/ordago_rest_<deck>_<juego real>.npz``: the shipped tables of
    :func:`rest_of_hand` (scripts/build_ordago.py)."""
    from musstats.base.files import data_file

    return data_file("ordago_rest", variant)


def _shipped_rest(lance: str, pattern: int, variant: Variant, deal: str) -> RestOfHand | None:
    z = read_npz(rest_file(variant))
    name = f"{deal}-{lance}-{pattern}"
    if z is None or f"{name}.o" not in z:
        return None
    try:
        return RestOfHand(lance, z[f"{name}.o"], z[f"{name}.stones"], z[f"{name}.weight"],
                          bytes(z[f"{name}.source"]).decode())
    except (KeyError, MusError):
        return None


def score_spec(lance: str, pattern: int, variant: Variant, a: int, b: int, *, iterations: int | None = None,
               seed: int = DEFAULT_EQ_SEED, grid: np.ndarray | None = None, deal: str = "as-dealt") -> Spec:
    """The spec of the lance solved at score ``a`` (team 0: mano and third) - ``b`` (team 1),
    for the hands as dealt (vector solver) or after the mus (deal solver)."""
    if grid is None:
        grid = next_hand_grid(variant)
    pay = GamePayoff(a, b, variant, grid=grid, rest=rest_of_hand(lance, pattern, variant, deal))
    if deal == "as-dealt":
        it = DEFAULT_EQ_ITERATIONS if iterations is None else int(iterations)
        return Spec(lance=lance, pattern=pattern, deal=deal, info="private", variant=variant, payoff=pay,
                    iterations=it, seed=int(seed), solver="vector")
    it = AFTER_MUS_EQ["iterations"] if iterations is None else int(iterations)
    return Spec(lance=lance, pattern=pattern, deal=deal, info="private", variant=variant, payoff=pay,
                iterations=it, batch=AFTER_MUS_EQ["batch"], pool=AFTER_MUS_EQ["pool"], seed=int(seed),
                solver="deals")


def score_solution(lance: str, pattern: int, variant: Variant, a: int, b: int, *, iterations: int | None = None,
                   seed: int = DEFAULT_EQ_SEED, eval_samples: int | None = None, grid: np.ndarray | None = None,
                   progress: Callable[[int, int], None] | None = None, cache: bool = True,
                   deal: str = "as-dealt") -> Solved:
    """The lance solved at a score: from memory, the disk cache, or a fresh solve (then
    cached).  ``progress(done, total)`` per iteration while solving.

    After the mus (``deal="after-mus"``) the solve is always cold (the deal solver, sizes
    :data:`AFTER_MUS_EQ`; NashConv on ``eval_samples`` deals per sample set).

    With the default ``iterations`` a score not solved before is **warm-started** from the
    regrets of the nearest solve of the same subgame: one kept in this process or in the
    disk cache at most :data:`WARM_NEAR` points away, or a shipped anchor
    (:func:`anchor_scores`, 8 reyes to 40), :func:`warm_iterations` more iterations (10 from
    the same score, up to :data:`WARM_ITERATIONS` from 10 points away).  With
    no such start, or with ``iterations`` given, or without the cache, the solve is cold
    (:data:`DEFAULT_EQ_ITERATIONS`; reproducible whatever was solved before).  NashConv is measured on ``eval_samples``
    (default :data:`DEFAULT_EQ_EVAL`) samples per owner.  ``Solved.spec.warm`` says where a
    warm solve started."""
    if variant.ten_kings:
        raise MusError("betting equilibria are not available with ten kings")
    if grid is None:
        grid = next_hand_grid(variant)
    spec = score_spec(lance, pattern, variant, a, b, iterations=iterations, seed=seed, grid=grid, deal=deal)

    def solve(sp: Spec, n_eval: int, start=None) -> Solved:
        cb = None
        if progress is not None:
            total = int(sp.iterations or 0)

            def cb(it, sec, ex):  # noqa: ARG001
                progress(int(it), total)
        s = get_solved(sp, progress=cb, cache=cache, eval_deals=int(n_eval), start=start,
                       keep_state=sp.solver == "vector")
        if s is None or s.partial:
            raise MusError("the equilibrium solve was interrupted")
        return s

    if spec.solver == "deals":
        return solve(spec, AFTER_MUS_EQ["eval"] if eval_samples is None else int(eval_samples))
    ev = DEFAULT_EQ_EVAL if eval_samples is None else int(eval_samples)
    if iterations is not None or not cache:
        return solve(spec, ev)
    got = get_solved(spec, solve=False)  # solved cold here before
    if got is not None:
        return got
    fam = _family(lance, pattern, variant, seed, grid)
    kept = _kept(fam, a, b)
    if kept is not None and kept.warm:  # warm-solved here before
        got = get_solved(replace(spec, iterations=kept.iterations, warm=kept.warm), solve=False)
        if got is not None:
            return got
    near = _nearest_start(fam, lance, pattern, variant, a, b)
    if near is None:
        s = solve(spec, ev)
        _keep(fam, a, b, s, "")
        return s
    (a0, b0), R, t, where = near
    warm = f"score {a0}-{b0}{' (shipped)' if where == 'shipped' else ''} after {t} iterations"
    k = warm_iterations(abs(a - a0) + abs(b - b0))
    s = solve(replace(spec, iterations=k, warm=warm), ev, warm_state(spec, R, t))
    _keep(fam, a, b, s, warm)
    return s


#: iterations of a warm start from afar (see :func:`score_solution`, :func:`warm_iterations`),
#: from the regrets of a solve at another score (the strategy sums start afresh).  Measured at
#: grande, NashConv in P(win the game) on 4,000 samples per owner, from the 200-iteration solve
#: at 25-25: 30 more iterations give 0.0005 at 27-26 (3 points away) and 0.0022 at 30-30 (10
#: points); with the strategy sums kept too 0.0006 and 0.0026 (and 0.089 instead of 0.009 at
#: 35-35, 20 points away: the old average strategy holds the new one back).  Cold solves of
#: 200 iterations measured 0.0004-0.0022 there.  Near the start fewer do: 10 iterations at 27-26
#: measured 0.0008, at 30-30 0.0049 (20: 0.0035)
WARM_ITERATIONS = 30
#: iterations of a warm start from the same score (a shipped anchor there); two more per point
#: of distance, up to :data:`WARM_ITERATIONS`
WARM_MIN_ITERATIONS = 10


def warm_iterations(distance: int) -> int:
    """Iterations of a warm start from a solve ``distance`` points away (|a - a0| + |b - b0|)."""
    return int(min(WARM_ITERATIONS, WARM_MIN_ITERATIONS + 2 * max(int(distance), 0)))
#: the farthest solve kept in this process or the disk cache (|a - a0| + |b - b0|) a warm start
#: goes on from (a shipped anchor serves at any distance: every score is within 10 of one, 14
#: for the subgames of pares and juego with fewer than four declared)
WARM_NEAR = 8
#: solver states kept per lance and declaration pattern (their regrets, about 0.2 MB each on
#: disk): the most recent ones, for the warm starts of scores near them
MAX_KEPT_STATES = 64
#: the scores (team 0's, team 1's) whose solves ship as warm starts (musstats/data/
#: ordago_anchors_*.npz, scripts/build_ordago.py anchors): every pair of ``ANCHOR_AXIS``,
#: denser where one hand can end the game; the subgames of a question without declarations
#: (grande, chica, punto, pares and juego with all four declared)
ANCHOR_AXIS = (5, 15, 25, 32, 36, 39)
#: the declaration patterns of pares and juego with fewer speakers, on a coarser grid
ANCHOR_AXIS_FEW = (5, 20, 32, 38)
#: iterations of an anchor's solve: from the regrets of the nearest anchor solved before (the
#: first one cold, :data:`DEFAULT_EQ_ITERATIONS`)
ANCHOR_ITERATIONS = 100


def anchor_scores(lance: str, pattern: int) -> list[tuple[int, int]]:
    """The shipped anchors' scores (team 0 first) of a subgame."""
    from musstats.engines.betting.tree import ALL_SEATS

    axis = ANCHOR_AXIS if lance in ("grande", "chica", "punto") or pattern == ALL_SEATS else ANCHOR_AXIS_FEW
    return [(x, y) for x in axis for y in axis]


def warm_state(spec: Spec, R: np.ndarray, t: int):
    """A warm start from regrets alone: ``R`` (working layout of ``spec``'s game), its current
    strategy by regret matching, empty strategy sums, after ``t`` iterations."""
    from musstats.engines.betting.solve import solver_game
    from musstats.engines.solving.cfr import SolverState

    lay = solver_game(spec).layout
    R = np.asarray(R, np.float64)
    if R.shape != (lay.n_rows, lay.MS):
        raise MusError("a warm start needs the regrets of a solve of the same game")
    return SolverState(R, np.zeros_like(R), lay.normalise(np.maximum(R, 0.0)), int(t))


#: mantissa bits a shipped anchor's regrets keep (of float16's 10): each regret to within 1/16
#: of itself (rounded to the nearest; below float16's normal range, 2**-18), what a warm start
#: needs, in half the space once compressed
ANCHOR_MANTISSA_BITS = 3


def coarse_regrets(R: np.ndarray, bits: int = ANCHOR_MANTISSA_BITS) -> np.ndarray:
    """``R`` as a shipped anchor keeps it: float16, its mantissa rounded to ``bits`` bits."""
    u = np.asarray(R, np.float16).view(np.uint16).astype(np.uint32)
    drop = np.uint32(10 - int(bits))
    if drop > 0:  # to the nearest (a carry into the exponent is the next power of two, as it should be)
        u = ((u + (np.uint32(1) << (drop - np.uint32(1)))) >> drop) << drop
    return u.astype(np.uint16).view(np.float16)


def anchor_file(variant: Variant) -> Path:
    """``musstats/data/ordago_anchors_<deck>_<juego real>.npz``: the shipped warm starts."""
    from musstats.base.files import data_file

    return data_file("ordago_anchors", variant)


_ANCHORS: dict[str, Any] = {}


def _anchor_arrays(variant: Variant) -> Any:
    """The shipped anchors' arrays of the rules (None where none ship), read once (lazily)."""
    p = str(anchor_file(variant))
    if p not in _ANCHORS:
        try:
            _ANCHORS[p] = np.load(p, allow_pickle=False)  # an NpzFile: each array read when asked for
        except (OSError, ValueError):
            _ANCHORS[p] = None
    return _ANCHORS[p]


def shipped_anchor(lance: str, pattern: int, variant: Variant, a: int, b: int) -> tuple[np.ndarray, int] | None:
    """(regrets, iterations) of the shipped anchor of a subgame at ``a``-``b``, or None."""
    z = _anchor_arrays(variant)
    name = f"{lance}-{pattern}-{a}-{b}"
    if z is None or f"{name}.R" not in z.files or variant.target != 40:
        return None
    return z[f"{name}.R"].astype(np.float64), int(z[f"{name}.t"])


def _nearest_start(fam: str, lance: str, pattern: int, variant: Variant, a: int, b: int):
    """((a0, b0), regrets, iterations, "kept" | "shipped") of the nearest warm start: a solve
    kept in this process or the disk cache at most :data:`WARM_NEAR` points away, or a
    shipped anchor (the nearer; ties: the kept one); None if there is none."""
    best = None
    near = _nearest(fam, a, b, int(variant.target), WARM_NEAR)
    if near is not None:
        (x, y), st = near
        best = (abs(x - a) + abs(y - b), (x, y), st.R, int(st.t), "kept")
    if _anchor_arrays(variant) is not None and variant.target == 40:
        for x, y in sorted(anchor_scores(lance, pattern), key=lambda s: (abs(s[0] - a) + abs(s[1] - b), s)):
            d = abs(x - a) + abs(y - b)
            if best is not None and d >= best[0]:
                break
            got = shipped_anchor(lance, pattern, variant, x, y)
            if got is not None:
                best = (d, (x, y), got[0], got[1], "shipped")
                break
    return None if best is None else best[1:]


class _Kept(NamedTuple):
    """A solve at one score kept for the warm starts of others: its final solver state,
    where it started ("" for a cold solve) and its iterations."""

    state: Any
    warm: str
    iterations: int


_STATE_MEMO: dict[str, dict[tuple[int, int], _Kept]] = {}


def _remember(fam: str, a: int, b: int, kept: _Kept) -> None:
    """Put a kept solve in memory, dropping the family's oldest beyond :data:`MAX_KEPT_STATES`."""
    mem = _STATE_MEMO.setdefault(fam, {})
    mem.pop((a, b), None)
    mem[(a, b)] = kept
    while len(mem) > MAX_KEPT_STATES:  # dicts keep their insertion order: the oldest first
        del mem[next(iter(mem))]


def _family(lance: str, pattern: int, variant: Variant, seed: int, grid: np.ndarray) -> str:
    """What the solves of one lance at every score share (the 0-0 cold spec's key)."""
    return f"eqstate-{lance}-{pattern}-{score_spec(lance, pattern, variant, 0, 0, seed=seed, grid=grid).key}"


def _kept(fam: str, a: int, b: int) -> _Kept | None:
    """The solve kept at ``a``-``b``: from memory, else from the disk cache; None if none."""
    from musstats.engines.cache import load_named
    from musstats.engines.solving.cfr import SolverState

    mem = _STATE_MEMO.setdefault(fam, {})
    if (a, b) in mem:
        return mem[(a, b)]
    z = load_named(f"{fam}-{a}-{b}")
    if z is None:
        return None
    try:
        R = z["R"].astype(np.float64)
        kept = _Kept(SolverState(R, np.zeros_like(R), np.zeros_like(R), int(z["t"])), bytes(z["warm"]).decode(),
                     int(z["iterations"]))
    except (KeyError, ValueError):
        return None
    _remember(fam, a, b, kept)
    return kept


def _keep(fam: str, a: int, b: int, s: Solved, warm: str) -> None:
    """Keep a solve's final regrets (memory and disk) for the warm starts of other scores: the
    :data:`MAX_KEPT_STATES` most recent ones of the lance and pattern."""
    from musstats.engines.cache import prune, save_named

    st = s.state
    if st is None:
        return
    _remember(fam, a, b, _Kept(st, warm, int(s.iterations)))
    save_named(f"{fam}-{a}-{b}", {"R": st.R.astype(np.float16), "t": np.int64(st.t),
                                "warm": np.frombuffer(warm.encode(), np.uint8), "iterations": np.int64(s.iterations)})
    prune(fam, MAX_KEPT_STATES)


def _nearest(fam: str, a: int, b: int, target: int, within: int):
    """((a0, b0), state) of the nearest other score at most ``within`` points away solved
    before (in memory or the disk cache; ties: the lower score of team 0, then of team 1);
    None if there is none."""
    cands = sorted((abs(x - a) + abs(y - b), x, y) for x in range(target) for y in range(target)
                   if (x, y) != (a, b) and abs(x - a) + abs(y - b) <= within)
    for _, x, y in cands:
        kept = _kept(fam, x, y)
        if kept is not None:
            return (x, y), kept.state
    return None


# ---------------------------------------------------------------------------
# nodes


def call_node(tree: BettingTree, seat: int) -> int | None:
    """The seat's first turn: everyone before it passed."""
    return tree.first_turn(seat)


def answer_candidates(tree: BettingTree, seat: int) -> list[int]:
    """Every node where the seat faces an órdago of the other team (``no quiero`` /
    ``quiero``), best first: an opening órdago it answers as its team's first answerer (the
    history: passes, then the órdago) before any other, then the shorter history."""
    out = []
    for nd in tree.nodes:
        if nd.is_terminal or nd.seat != seat or not nd.history:
            continue
        h = nd.history
        if "órdago" not in h or nd.actions != ("no quiero", "quiero"):
            continue
        i = h.index("órdago")
        opening = h[-1] == "órdago" and all(x == "paso" for x in h[:i])
        out.append((0 if opening else 1, len(h), nd.id))
    return [n for _, _, n in sorted(out)]


def answer_node(tree: BettingTree, seat: int) -> int | None:
    """Where the seat answers an opening órdago of the other team as its team's first
    answerer (the history: passes, then the órdago), the earliest such; else the
    earliest node where it faces an órdago at all.  None if it never does."""
    c = answer_candidates(tree, seat)
    return c[0] if c else None


# ---------------------------------------------------------------------------
# per-deal reach and values


def _owner_rows(game, sigma, st) -> list[np.ndarray]:
    """Per owner ``k``: [slots of one state, deals], the strategy block of each deal's state
    of ``k`` (node ``n``'s actions are the rows ``noff[n] .. noff[n] + n_act[n]``)."""
    out = []
    for k in range(len(game.stride)):
        ns, w, b = int(game.n_states[k]), int(game.stride[k]), int(game.obase[k])
        out.append(np.ascontiguousarray(sigma[b: b + ns * w].reshape(ns, w)[st[:, k].astype(np.int64)].T))
    return out


def _reach_values(game, sigma, st, o, k, roots):
    """For the nodes of the subtrees of ``roots`` (and their ancestors, for the reach), per
    deal: the reach of every owner but ``k`` (``r[node]``) and team 0's value under
    ``sigma`` (``V[node]``, subtrees only)."""
    tree = game.tree
    n = st.shape[0]
    rows = _owner_rows(game, sigma, st)
    below = sorted({x for c in roots for x in tree.subtree(c)})
    need = set(below)
    for c in roots:
        while tree.parent[c] >= 0:
            c = int(tree.parent[c])
            need.add(c)

    def probs(nid):  # [actions, deals]
        return rows[int(game.owner[nid])][int(game.noff[nid]): int(game.noff[nid]) + int(tree.n_act[nid])]

    r = {0: np.ones(n)}
    for nid in sorted(need):  # children come after their parent
        q = int(tree.parent[nid])
        if q >= 0:
            r[nid] = r[q] if int(game.owner[q]) == k else r[q] * probs(q)[int(tree.parent_action[nid])]
    V = {}
    U = game.U
    for nid in reversed(below):
        if tree.is_term[nid]:
            V[nid] = U[int(tree.term[nid]), o]
        else:
            f = int(tree.first[nid])
            V[nid] = sum(p * V[f + a] for a, p in enumerate(probs(nid)))
    return r, V


def _ratio(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    """sum x / sum y and its standard error (ratio estimate over independent deals)."""
    sy = float(y.sum())
    if sy <= 0:
        return None, None
    m = float(x.sum()) / sy
    n = x.shape[0]
    z = x - m * y
    se = float(np.sqrt(max(float((z * z).sum()), 0.0)) / sy) if n > 1 else None
    return m, se


def _r4(x):
    return None if x is None else round(float(x), 5)


def _best(yes: str, no: str, ev_yes: float | None, ev_no: float | None, gap: float | None) -> str | None:
    """The action with the higher P(win the game) (``gap`` = yes - no over the same deals);
    ``no`` when they are equal; None without figures."""
    if ev_yes is None or ev_no is None:
        return None
    g = gap if gap is not None else ev_yes - ev_no
    return yes if g > 0 else no


def _refusal_path(tree: BettingTree, nid: int) -> list[int]:
    """The answer nodes of one team facing a bet, from ``nid``: each "no quiero" leads to the
    next answerer of the same team (who may still accept), until the refusal ends the lance."""
    path = [nid]
    team = tree.nodes[nid].seat % 2
    while True:
        nd = tree.nodes[path[-1]]
        c = nd.children[nd.actions.index("no quiero")]
        ch = tree.nodes[c]
        if ch.is_terminal or ch.seat % 2 != team or "no quiero" not in ch.actions:
            return path
        path.append(c)


def team_refusal(tree: BettingTree, nid: int) -> int:
    """The node reached when every answerer of the team at ``nid`` refuses (a terminal: the deje)."""
    last = tree.nodes[_refusal_path(tree, nid)[-1]]
    return last.children[last.actions.index("no quiero")]


def equilibrium_figures(sol: Solved, variant: Variant, lance: str, pattern: int, hand_index: int, seat: int,
                        cards=None, *, trials: int = DEFAULT_EQ_TRIALS, seed: int = DEFAULT_EQ_SEED) -> dict[str, Any]:
    """The equilibrium figures of one hand at one seat (module doc), in P(win) for its team."""
    from musstats.analysis.betting import _subgame_deals_for

    t0 = time.perf_counter()
    game = sol.game
    tree = game.tree
    q = int(seat)
    team = q % 2
    k = game.seat_owner[q]
    deal = sol.spec.deal
    out: dict[str, Any] = {"lance": lance, "declared": pattern_text(pattern) if lance in ("pares", "juego") else None,
                           "deal": deal, "iterations": sol.iterations, "warm_start": sol.spec.warm or None,
                           "strategy_source": sol.source,
                           "solve_seconds": round(float(sol.seconds), 2),
                           "nashconv": _nashconv(sol.exploit, _centre(sol)), "units": "P(win the game) for your team",
                           "method": ("Monte Carlo over deals of the other three hands given yours" if deal == "as-dealt"
                                      else "Monte Carlo over the after-mus deals in which you end with your hand")
                           + ", each weighted by the other players' equilibrium reach of the node"}
    notes: list[str] = []
    if q not in tree.speakers:
        notes.append(f"you have no say in {lance} (you did not declare it): your partner answers for the team")
        out.update({"call": None, "answer": None, "notes": notes})
        return out
    deals = _subgame_deals_for(deal, variant, lance, pattern, hand_index, q, int(trials), int(seed), cards)
    if deals.shape[0] == 0:
        raise MusError(f"no deal gives {SEATS[q]} this hand under these declarations ({deal})")
    if deals.shape[0] < trials:
        notes.append(f"{deals.shape[0]:,} deals fit your hand and the declarations (asked {trials:,})")
    st, o, w = prepare(game, deals, variant, lance)
    n1, cands = call_node(tree, q), answer_candidates(tree, q)
    r, V = _reach_values(game, sol.sigma, st, o, k, [x for x in [n1, *cands] if x is not None])
    # facing an órdago: the first candidate the others reach with these hands (else the first)
    n2 = next((x for x in cands if float((w * r[x]).sum()) > 0), cands[0] if cands else None)
    V = {x: v + _centre(sol) for x, v in V.items()}  # the solver's table is P(win) - centre
    us_best = (o // 49 == 1) if team == 0 else (o // 49 == 0)

    def to_us(m):
        return None if m is None else (m if team == 0 else 1.0 - m)

    def action_evs(nid):
        nd = tree.nodes[nid]
        res = {}
        for a, label in enumerate(nd.actions):
            c = nd.children[a]
            m, se = _ratio(w * r[nid] * V[c], w * r[nid])
            res[label] = {"p": round(float(game.strategy_at(sol.sigma, nid, int(st[0, k]))[a]), 4),
                          "p_win_game": _r4(to_us(m)), "se": _r4(se)}
        return res

    def accepted_reach(c):
        tot = np.zeros(st.shape[0])
        for n2 in tree.subtree(c):
            nd2 = tree.nodes[n2]
            if nd2.is_terminal and tree.terminals[nd2.terminal].kind == ORDAGO:
                tot += r[n2]
        return tot

    def diff(nid, c1, c2):
        """P(win | child c1) - P(win | child c2) for our team and its standard error (the same deals)."""
        m, se = _ratio(w * r[nid] * (V[c1] - V[c2]), w * r[nid])
        if m is None:
            return None, None
        return _r4(m if team == 0 else -m), _r4(se)

    # calling: our first turn
    call = None
    if n1 is not None:
        nd = tree.nodes[n1]
        acts = action_evs(n1)
        c = nd.children[nd.actions.index("órdago")]
        cp = nd.children[nd.actions.index("paso")]
        acc = accepted_reach(c)
        p_acc, p_acc_se = _ratio(w * acc, w * r[n1])
        p_win_acc, p_win_acc_se = _ratio(w * acc * us_best, w * acc)
        p_call = acts["órdago"]["p"]
        ev_call, ev_pass = acts["órdago"]["p_win_game"], acts["paso"]["p_win_game"]
        gap, gap_se = diff(n1, c, cp)
        call = {"history": list(nd.history), "p_call": p_call, "mixed": bool(MIXED < p_call < 1 - MIXED),
                "p_they_accept": _r4(p_acc), "p_they_accept_se": _r4(p_acc_se),
                "p_win_lance_if_accepted": _r4(p_win_acc), "p_win_lance_if_accepted_se": _r4(p_win_acc_se),
                "p_win_game_if_call": ev_call, "p_win_game_if_pass": ev_pass,
                "call_minus_pass": gap, "call_minus_pass_se": gap_se,
                "decision": _best("call", "pass", ev_call, ev_pass, gap),
                "actions": acts}
        if p_win_acc is None:
            notes.append("at equilibrium they never accept an órdago here")
    # answering: the first node where we face an opening órdago of theirs
    answer = None
    if n2 is not None:
        nd = tree.nodes[n2]
        p_called, _ = _ratio(w * r[n2], w)
        off_path = not float((w * r[n2]).sum()) > 0
        if off_path and tree.parent[n2] >= 0:
            # nobody calls it at equilibrium: the figures over the hands that reach the caller's turn
            r[n2] = r[int(tree.parent[n2])]
        acts = action_evs(n2)
        cq = nd.children[nd.actions.index("quiero")]
        cr = team_refusal(tree, n2)
        p_win, p_win_se = _ratio(w * r[n2] * us_best, w * r[n2])
        p_acc = acts["quiero"]["p"]
        ev_acc = acts["quiero"]["p_win_game"]
        m, se = _ratio(w * r[n2] * V[cr], w * r[n2])
        ev_ref = _r4(to_us(m))
        gap, gap_se = diff(n2, cq, cr)
        later = [SEATS[tree.nodes[x].seat] for x in _refusal_path(tree, n2)[1:]]
        answer = {"history": list(nd.history), "p_accept": p_acc, "mixed": bool(MIXED < p_acc < 1 - MIXED),
                  "p_they_reach": _r4(p_called),
                  "p_win_lance_if_called": _r4(p_win), "p_win_lance_if_called_se": _r4(p_win_se),
                  "p_win_game_if_accept": ev_acc, "p_win_game_if_refuse": ev_ref, "p_win_game_if_refuse_se": _r4(se),
                  "accept_minus_refuse": gap, "accept_minus_refuse_se": gap_se,
                  "partners_after": later, "off_path": off_path,
                  "decision": _best("accept", "refuse", ev_acc, ev_ref, gap), "actions": acts}
        if later:
            answer["p_win_game_if_you_refuse"] = acts["no quiero"]["p_win_game"]
        if off_path:
            notes.append("at equilibrium nobody calls an órdago against you there: the figures facing one are over "
                         "every hand that reaches the caller's turn, as if any of them called")
        if p_win is None:
            notes.append("no deal reaches an órdago against you there: no figures facing one")
    out.update({"call": call, "answer": answer, "deals": int(deals.shape[0]), "trials_seed": int(seed),
                "notes": notes, "seconds": round(time.perf_counter() - t0, 3)})
    return out


def _centre(sol: Solved) -> float:
    return float(getattr(sol.spec.payoff, "CENTRE", 0.0))


def _nashconv(ex: dict | None, centre: float = 0.0) -> dict | None:
    if not ex:
        return None
    v = ex.get("value")
    return {"nashconv": ex.get("nashconv"), "nashconv_se": ex.get("nashconv_se"),
            "nashconv_in": ex.get("nashconv_in"), "nashconv_in_se": ex.get("nashconv_in_se"),
            "value_team0": None if v is None else round(float(v) + centre, 6), "samples": ex.get("deals"),
            "units": "P(win the game)"}


# ---------------------------------------------------------------------------
# the push/fold chart


def pushfold_frame(sol: Solved, variant: Variant, lance: str, pattern: int, a: int, b: int):
    """For every seat that speaks and every hand it can hold in the subgame: the
    equilibrium probability of an órdago at its first turn (``p_call``) and of accepting
    an opening órdago of the other team (``p_accept``, at :func:`answer_node`).  Columns
    seat, hand, hand_index, p_call, p_accept, mixed_call, mixed_accept; ``attrs`` hold
    the lance, the score (team 0 first) and the solve's NashConv."""
    import pandas as pd

    from musstats.analysis.betting import _possible
    from musstats.tables.hands import hand_tables

    t = hand_tables(variant)
    game, tree = sol.game, sol.game.tree
    rows = []
    for q in tree.speakers:
        ok = np.nonzero(_possible(variant, lance, q, pattern))[0]
        n1, n2 = call_node(tree, q), answer_node(tree, q)
        pc = np.full(ok.shape[0], np.nan)
        pa = np.full(ok.shape[0], np.nan)
        if n1 is not None:
            i = tree.nodes[n1].actions.index("órdago")
            pc = game.block(sol.sigma, n1)[ok, i]
        if n2 is not None:
            i = tree.nodes[n2].actions.index("quiero")
            pa = game.block(sol.sigma, n2)[ok, i]
        rows.append(pd.DataFrame({"seat": SEATS[q], "hand": np.array(t.labels)[ok], "hand_index": ok,
                                  "p_call": pc, "p_accept": pa}))
    df = pd.concat(rows, ignore_index=True)
    df["mixed_call"] = (df["p_call"] > MIXED) & (df["p_call"] < 1 - MIXED)
    df["mixed_accept"] = (df["p_accept"] > MIXED) & (df["p_accept"] < 1 - MIXED)
    df.attrs.update({"variant": variant.name, "rules": variant.describe(), "lance": lance, "deal": sol.spec.deal,
                     "declared": pattern_text(pattern) if lance in ("pares", "juego") else None,
                     "score": {"us": int(a), "them": int(b), "target": int(variant.target),
                               "order": "mano's team first"},
                     "iterations": sol.iterations, "warm_start": sol.spec.warm or None,
                     "nashconv": _nashconv(sol.exploit, _centre(sol)),
                     "call_node": {SEATS[q]: ",".join(tree.nodes[n].history) if (n := call_node(tree, q)) is not None
                                   else None for q in tree.speakers},
                     "answer_node": {SEATS[q]: ",".join(tree.nodes[n].history)
                                     if (n := answer_node(tree, q)) is not None else None for q in tree.speakers}})
    return df
