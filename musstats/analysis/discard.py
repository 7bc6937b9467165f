"""The mus phase for one hand: which cards to keep (:func:`discard`), and whether to cut the
mus or ask for it (:func:`mus`)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.musphase import DEFAULT_TRIALS, KeepEval, evaluate_keeps
from musstats.engines.run import Progress
from musstats.rules import checks
from musstats.rules.cards import parse_cards
from musstats.rules.labels import LANCES
from musstats.rules.seats import FOUR, Seating
from musstats.rules.variant import Variant, make_variant
from musstats.tables.context import Context, make_context
from musstats.tables.policies import KEEP_ALL, POLICIES, get_policy, keep_mask_for, keep_options

__all__ = ["OBJECTIVES", "CLOSE_SE", "DiscardResult", "MusAdvice", "KeepRanking", "discard", "mus", "rank_keeps"]

OBJECTIVES = ("total", "grande", "chica", "pares", "juego")
#: keep-sets whose means are within this many standard errors of the best are flagged
CLOSE_SE = 2.0


def _run_info(ev: KeepEval, policy: str, rounds: int) -> dict[str, Any]:
    return {"method": "mc", "trials": ev.trials, "seed": ev.seed, "partial": ev.partial,
            "others_discard_by": policy, "rounds": rounds}


@dataclass
class DiscardResult:
    """The keep-sets of a hand with their expected stones, best first."""

    context: Context
    objective: str
    policy: str
    rounds: int
    trials: int
    seed: int
    rows: list[dict[str, Any]] = field(default_factory=list)  # best first
    close: bool = False  # the top two are within CLOSE_SE standard errors
    chosen: int | None = None  # row index of the user's keep-set (with ``keep``)
    partial: bool = False
    betting: bool = False  # ranked by the total with betting (see BETTING_NOTE)
    given: str = "the mus round happens"

    @property
    def variant(self) -> Variant:
        return self.context.variant

    def to_frame(self):
        """One row per keep-set, best first; run metadata in ``attrs``."""
        import pandas as pd

        df = pd.DataFrame(self.rows)
        df.attrs.update({k: v for k, v in self.to_dict().items() if k != "keep_sets"})
        return df

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``musstats discard --format json``."""
        return {
            **self.context.describe(),
            "objective": self.objective, "others_discard_by": self.policy, "rounds": self.rounds,
            "given": self.given,
            "method": "mc", "trials": self.trials, "seed": self.seed, "partial": self.partial,
            "recommended": self.rows[0]["keep"], "close": self.close,
            "advice": f"keep {self.rows[0]['keep']} (throw {self.rows[0]['discard']})",
            "ranked_by": ("total with betting" if self.betting else
                          "total en paso" if self.objective == "total" else f"{self.objective} en paso"),
            **({"with_betting": BETTING_NOTE} if self.betting else {}),
            "keep_sets": self.rows,
        }


def _validated(hand, seat, variant, juego_real, target, redeal_4567, mus_visto, rounds, trials, policy,
               players=4, individual=False):
    if hand is None:
        raise MusError('a hand is required, e.g. "R R 3 A"')
    v = make_variant(variant, juego_real, target, redeal_4567=redeal_4567, mus_visto=mus_visto)
    seating = Seating(checks.whole(players, "players", 2, 6), individual)
    ctx = make_context(v, hand, seat, seating=seating)
    rounds = checks.rounds(rounds)
    trials = checks.trials(trials, DEFAULT_TRIALS, checks.MAX_KEEP_TRIALS)
    name = checks.choice(policy, POLICIES, "policy")
    if name == "table" and seating != FOUR:
        name = "reyes-pairs"  # the shipped table is the strategy of four players in partnerships
    pol, pol_name = get_policy(name, v)
    return ctx, rounds, trials, pol, pol_name


def _options(ctx: Context, keep) -> tuple[list, int | None]:
    """The user's distinct keep-sets (with "change nothing" in mus visto) and the mask of ``keep``."""
    v, t, h = ctx.variant, ctx.tables, ctx.user
    opts = keep_options(h, v)
    if v.mus_visto:  # in the visto round a player may change nothing
        opts = opts + [(KEEP_ALL, tuple(int(c) for c in t.cls4[h]), "all (change nothing)")]
    chosen = keep_mask_for(list(ctx.hand), parse_cards(keep), v, allow_all=v.mus_visto) if keep else None
    if chosen is not None:
        kept = tuple(int(t.cls4[h][i]) for i in range(4) if chosen >> i & 1)
        chosen = next(m for m, k, _ in opts if k == kept)
    return opts, chosen


# ---------------------------------------------------------------------------
# the value of betting the final hand


BETTING_NOTE = ("with betting = en paso + what equilibrium betting adds to the final hand at this seat "
                "(musstats.analysis.betting.betting_gain): after the mus round, with everybody's hands after "
                "it (all four asked for mus) and the strategies solved for them, on the deals in which the other "
                "three ask for mus (the shipped cut flags)")
#: the note of the mus decision's betting terms: also the hand kept by cutting
MUS_BETTING_NOTE = (BETTING_NOTE + "; when cutting, with the hands and strategies as dealt on the same deals "
                    "(after a cut the strategies read nothing from who cut)")


def draw_distribution(ctx: Context, kept: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The user's final hand after keeping the classes ``kept`` and drawing the rest: the
    replacements are a uniformly random draw from his unseen cards (the stock is a random
    part of them, whoever draws first).  Returns (hand indices, probabilities)."""
    t = ctx.tables
    k = 4 - len(kept)
    unseen = np.asarray(ctx.unseen, np.int64)
    draws, counts = _draws(t.n_classes, k)
    # ways to draw each multiset of classes: the product over classes of C(unseen, drawn)
    ways = np.prod(_COMB[unseen[None, :], counts], axis=1)
    ids = np.concatenate([np.broadcast_to(np.asarray(kept, np.int64), (len(draws), len(kept))), draws], axis=1)
    hands = t.index_of_ids(ids)
    live = ways > 0
    p = np.bincount(hands[live], weights=ways[live] / math.comb(int(unseen.sum()), k), minlength=t.n_hands)
    hs = np.unique(hands[live])
    return hs, p[hs]


#: C(u, n) for u <= 40 cards of a class (with room) and n <= 4 drawn
_COMB = np.array([[math.comb(u, n) for n in range(5)] for u in range(41)], np.int64)


@functools.lru_cache(maxsize=None)
def _draws(n_classes: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every multiset of ``k`` classes: (the sorted class ids [m, k], the count per class [m, n_classes])."""
    from itertools import combinations_with_replacement

    combos = list(combinations_with_replacement(range(n_classes), k))
    draws = np.array(combos, np.int64).reshape(len(combos), k)
    counts = np.zeros((len(draws), n_classes), np.int64)
    for j in range(k):
        np.add.at(counts, (np.arange(len(draws)), draws[:, j]), 1)
    return draws, counts


def _equilibrium_covers(ctx: Context, rounds: int) -> bool:
    """Whether the shipped equilibria can answer the question at all: four partners, no ten
    kings, no mus visto, one mus round."""
    v = ctx.variant
    return ctx.seating == FOUR and not v.ten_kings and not v.mus_visto and rounds == 1


def betting_terms(ctx: Context, kept_sets: list[tuple[int, ...]], rounds: int, table: str = "after-mus"
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """Per keep-set: E[betting gain of the final hand] and its standard error, or None where
    the shipped equilibrium does not cover the question (not 4 partners, ten kings, mus
    visto, more than one mus round, rules whose gain table does not ship: computing it
    would mean solving every lance first).  ``table``: one of
    :data:`musstats.analysis.betting.GAIN_TABLES` (default: after the mus round)."""
    if not _equilibrium_covers(ctx, rounds):
        return None
    from musstats.analysis.betting import shipped_gain

    got = shipped_gain(ctx.variant, table)
    if got is None:
        return None
    gain, se = got
    g, s = gain[ctx.seat], se[ctx.seat]
    m, e = [], []
    for kept in kept_sets:
        hs, p = draw_distribution(ctx, kept)
        m.append(float(p @ g[hs]))
        e.append(float(np.sqrt(p ** 2 @ s[hs] ** 2)))
    return np.array(m), np.array(e)


def discard(
    hand: str | Iterable,
    seat: str | int = "mano",
    *,
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    target: int | None = None,
    redeal_4567: bool = False,
    mus_visto: bool = False,
    players: int = 4,
    individual: bool = False,
    objective: str = "total",
    policy: str = "table",
    rounds: int = 1,
    trials: int | None = None,
    seed: int | None = None,
    keep: str | Iterable | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
) -> DiscardResult:
    """Every distinct keep-set of ``hand`` at ``seat`` with its expected net stones per lance
    and in total after ``rounds`` mus rounds, best first, given that the mus round happens.

    The other players discard by ``policy`` (the shipped strategy table, or a heuristic of
    ``musstats.tables.policies.POLICY_HELP``); all keep-sets are evaluated on the same deals
    (common random numbers), so their gaps have small errors.  ``objective``: rank by the
    total or by one lance (``juego`` = juego or punto).  ``keep``: compare that keep-set with
    the best one (the result then holds those two rows).  ``players`` 2..6 with
    ``individual`` (every player for himself: the others discard by a heuristic, by default
    ``reyes-pairs``, since the shipped table is a strategy of four partners).
    """
    ctx, rounds, trials, pol, pol_name = _validated(hand, seat, variant, juego_real, target, redeal_4567,
                                                    mus_visto, rounds, trials, policy, players, individual)
    objective = checks.objective(objective, OBJECTIVES)
    opts, chosen_mask = _options(ctx, keep)
    ev = evaluate_keeps(ctx, [m for m, _, _ in opts], pol, rounds=rounds, trials=trials, seed=seed,
                        spawn_key=(ctx.seat, ctx.user), others_ask=_others_ask(ctx), threads=threads,
                        progress=progress)
    rk = rank_keeps(ctx, ev, opts, rounds, objective)
    mean, se, bt, order = rk.mean, rk.se, rk.betting, rk.order
    tse = ev.total_se()
    rows = []
    for rank, i in enumerate(order):
        m, kept, label = opts[i]
        row: dict[str, Any] = {"keep": label, "discard": 4 - len(kept)}
        for li, lance in enumerate(LANCES):
            row[f"ev_{lance}"] = float(ev.ev[i, li])
            row[f"se_{lance}"] = float(ev.ev_se[i, li])
        for li, lance in enumerate(LANCES):
            row[f"p_team_{lance}"] = float(ev.p_team[i, li])
        row["ev_total"] = float(ev.total[i])
        row["se_total"] = float(tse[i])
        if bt is not None:
            row["ev_betting_gain"] = float(bt[0][i])
            row["se_betting_gain"] = float(bt[1][i])
            row["ev_total_with_betting"] = float(mean[i])
        row["objective"] = float(mean[i])
        row["se_objective"] = float(se[i])
        row["gap_to_best"] = float(mean[order[0]] - mean[i])
        row["se_gap"] = rk.gap_se(i)
        row["recommended"] = rank == 0
        row["yours"] = chosen_mask is not None and m == chosen_mask
        rows.append(row)
    close = len(rows) > 1 and rows[1]["gap_to_best"] <= CLOSE_SE * max(rows[1]["se_gap"], 1e-12)
    chosen = None
    if chosen_mask is not None:
        rows = [r for r in rows if r["recommended"] or r["yours"]]
        chosen = next(i for i, r in enumerate(rows) if r["yours"])
    return DiscardResult(ctx, objective, pol_name, rounds, ev.trials, ev.seed, rows, close, chosen, ev.partial,
                         betting=bt is not None, given=_given(ctx))


def _others_ask(ctx: Context) -> bool:
    """Whether the mus round needs the other three to ask for it (four partners, no mus visto):
    then the keep-sets are valued on the deals in which they do."""
    return ctx.seating == FOUR and not ctx.variant.mus_visto


def _given(ctx: Context) -> str:
    return ("the mus round happens: the other three ask for mus (the shipped cut flags)" if _others_ask(ctx)
            else "the mus round happens")


@dataclass
class KeepRanking:
    """The one ranking of keep-sets that :func:`discard` shows and :func:`mus` takes its
    keep-set from: ``mean`` / ``se`` the objective per keep-set (the total with betting where
    the gain table ships, else en paso), ``order`` best first, ``betting`` (gain, error) per
    keep-set or None."""

    mean: np.ndarray
    se: np.ndarray
    order: np.ndarray
    betting: tuple[np.ndarray, np.ndarray] | None
    ev: KeepEval
    objective: str

    @property
    def ranked_by(self) -> str:
        return ("total with betting" if self.betting is not None else
                "total en paso" if self.objective == "total" else f"{self.objective} en paso")

    def gap_se(self, i: int) -> float:
        """The standard error of (best - keep-set ``i``)."""
        b = int(self.order[0])
        if i == b:
            return 0.0
        if self.objective != "total":
            return float(np.hypot(self.se[b], self.se[i]))
        d = self.ev.diff_se(b, i)
        if self.betting is None:
            return float(d)
        return float(np.sqrt(d ** 2 + self.betting[1][b] ** 2 + self.betting[1][i] ** 2))


def rank_keeps(ctx: Context, ev: KeepEval, opts: list, rounds: int, objective: str = "total") -> KeepRanking:
    """Rank the keep-sets ``opts`` (the first ``len(opts)`` masks of ``ev``) by ``objective``:
    for the total, with betting where the gain table of the hands after the round on the deals
    in which the other three ask ships (``mus-others-ask``), else en paso."""
    n = len(opts)
    mean, se = ev.objective(objective)
    mean, se = np.asarray(mean[:n], np.float64), np.asarray(se[:n], np.float64)
    bt = betting_terms(ctx, [kept for _, kept, _ in opts], rounds, "mus-others-ask") if objective == "total" else None
    if bt is not None:
        mean = ev.total[:n] + bt[0]
        se = np.hypot(ev.total_se()[:n], bt[1])
    order = np.argsort(-mean, kind="stable")
    return KeepRanking(mean, se, order, bt, ev, objective)


@dataclass
class MusAdvice:
    """Cut the mus now, or ask for it: expected stones both ways, on the same deals.

    Asking changes anything only when the other three ask too, so both sides are
    estimated on the deals in which none of them holds a hand he would cut with
    (``p_others_ask`` is how often that happens); elsewhere asking equals cutting.
    """

    context: Context
    keep: str
    policy: str
    rounds: int
    trials: int
    seed: int
    cut_ev: np.ndarray  # [5] net stones per lance if the mus is cut
    cut_p_team: np.ndarray  # [5]
    cut_ev_se: np.ndarray  # [5]
    mus_ev: np.ndarray  # [5] after the mus round(s)
    mus_ev_se: np.ndarray  # [5]
    mus_p_team: np.ndarray  # [5]
    cut_total_se: float
    mus_total_se: float
    diff_se: float  # SE of the difference (common random numbers)
    p_others_ask: float  # share of deals in which the other three ask for mus
    partial: bool = False
    betting: dict | None = None  # the comparison with betting (see BETTING_NOTE), where available
    ranked_by: str = "total en paso"  # how ``keep`` was chosen (the ranking of :func:`discard`), or "yours"
    equilibrium: dict | None = None  # the mus decision's equilibrium for this hand and seat, where it ships

    @property
    def variant(self) -> Variant:
        return self.context.variant

    @property
    def diff(self) -> float:
        """Expected gain of asking for mus over cutting en paso, when the others ask too (stones)."""
        return float(self.mus_ev.sum() - self.cut_ev.sum())

    @property
    def advice_en_paso(self) -> str:
        """``"cut"`` or ``"ask for mus"`` en paso."""
        return "cut" if self.diff <= 0 else "ask for mus"

    @property
    def advice(self) -> str:
        """``"cut"`` or ``"ask for mus"``: the mus decision's equilibrium where it ships, else the
        comparison with betting, else en paso."""
        if self.equilibrium is not None:
            return self.equilibrium["advice"]
        return self.betting["advice"] if self.betting is not None else self.advice_en_paso

    @property
    def advice_by(self) -> str:
        if self.equilibrium is not None:
            return "equilibrium of the mus decision"
        return "with betting" if self.betting is not None else "en paso"

    def to_frame(self):
        """Per lance: net stones and p_team if the mus is cut and after a mus round."""
        import pandas as pd

        df = pd.DataFrame({"cut_ev_net": self.cut_ev, "cut_se_ev_net": self.cut_ev_se, "cut_p_team": self.cut_p_team,
                           "mus_ev_net": self.mus_ev, "mus_se_ev_net": self.mus_ev_se, "mus_p_team": self.mus_p_team},
                          index=pd.Index(LANCES, name="lance"))
        df.attrs.update({k: v for k, v in self.to_dict().items() if k != "lances"})
        return df

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``musstats mus --format json``."""
        lances = {
            lance: {"cut": {"ev_net": float(self.cut_ev[i]), "p_team": float(self.cut_p_team[i]),
                            "se": {"ev_net": float(self.cut_ev_se[i])}},
                    "mus": {"ev_net": float(self.mus_ev[i]), "p_team": float(self.mus_p_team[i]),
                            "se": {"ev_net": float(self.mus_ev_se[i])}}}
            for i, lance in enumerate(LANCES)}
        return {
            **self.context.describe(),
            "keep": self.keep, "others_discard_by": self.policy, "rounds": self.rounds,
            "method": "mc", "trials": self.trials, "seed": self.seed, "partial": self.partial,
            "given": "the other three ask for mus" if not self.variant.mus_visto else "every deal",
            "p_others_ask": self.p_others_ask,
            "cut": {"ev_total": float(self.cut_ev.sum()), "se": self.cut_total_se},
            "mus": {"ev_total": float(self.mus_ev.sum()), "se": self.mus_total_se},
            "difference": {"value": self.diff, "se": self.diff_se},
            "advice": self.advice, "recommended": self.advice, "advice_by": self.advice_by,
            "advice_en_paso": self.advice_en_paso, "keep_ranked_by": self.ranked_by,
            **({"equilibrium": self.equilibrium} if self.equilibrium is not None else {}),
            **({"with_betting": self.betting} if self.betting is not None else {}),
            "lances": lances,
        }


def mus(
    hand: str | Iterable,
    seat: str | int = "mano",
    *,
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    target: int | None = None,
    redeal_4567: bool = False,
    mus_visto: bool = False,
    policy: str = "table",
    rounds: int = 1,
    trials: int | None = None,
    seed: int | None = None,
    keep: str | Iterable | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
) -> MusAdvice:
    """Cut the mus or ask for it: the best keep-set (or ``keep``) after the mus round(s)
    against keeping the hand, both on the deals in which the other three ask for mus.

    Who asks: a player cuts with the hands the strategy table marks (or medias, duples
    and 31 under a heuristic policy).  With mus visto the visto round happens anyway and
    every deal counts.  The same ``seed`` and ``trials`` reproduce the hand's row of
    ``musstats table`` exactly.
    """
    from musstats._kernels.mus import NO_MUS

    ctx, rounds, trials, pol, pol_name = _validated(hand, seat, variant, juego_real, target, redeal_4567,
                                                    mus_visto, rounds, trials, policy)
    opts, chosen = _options(ctx, keep)
    masks = [m for m, _, _ in opts] + [NO_MUS]
    ev = evaluate_keeps(ctx, masks, pol, rounds=rounds, trials=trials, seed=seed, spawn_key=(ctx.seat, ctx.user),
                        others_ask=not ctx.variant.mus_visto, threads=threads, progress=progress)
    return advice_from(ctx, ev, opts, chosen, pol_name, rounds)


def advice_from(ctx: Context, ev: KeepEval, opts: list, chosen: int | None, policy: str, rounds: int) -> MusAdvice:
    """The :class:`MusAdvice` of an evaluation of the keep-sets ``opts`` plus cutting (last):
    the keep-set is ``chosen``, else the best of :func:`rank_keeps` (the ranking
    :func:`discard` shows: with betting where it ships), compared with cutting en paso and,
    where it ships, with betting."""
    masks = [m for m, _, _ in opts]
    cut = len(masks)
    rk = rank_keeps(ctx, ev, opts, rounds)
    best = masks.index(chosen) if chosen is not None else int(rk.order[0])
    tse = ev.total_se()
    return MusAdvice(ctx, opts[best][2], policy, rounds, ev.trials, ev.seed,
                     ev.ev[cut], ev.p_team[cut], ev.ev_se[cut], ev.ev[best], ev.ev_se[best], ev.p_team[best],
                     float(tse[cut]), float(tse[best]), ev.diff_se(best, cut), ev.p_deal_kept, ev.partial,
                     _mus_betting(ctx, ev, opts, best, rk, rounds), rk.ranked_by if chosen is None else "yours",
                     mus_equilibrium(ctx, rounds, policy))


def mus_equilibrium(ctx: Context, rounds: int, policy: str) -> dict | None:
    """The shipped equilibrium of the mus decision for the context's hand and seat
    (:func:`musstats.analysis.cut_game.cut_advice`, with ``advice`` and what it is of), or None
    where it does not answer the question: it is solved for four partners, one mus round, the
    others discarding by the strategy table, no mus visto and no 4-5-6-7 redeal, and ships for
    8 reyes."""
    v = ctx.variant
    if not _equilibrium_covers(ctx, rounds) or v.redeal_4567 or policy != "table":
        return None
    from musstats.analysis.cut_game import EQUILIBRIUM_NOTE, cut_advice, ships

    if not ships(v):
        return None
    d = cut_advice(ctx.user, ctx.seat, v)
    d.update(advice="cut" if d["p_cut"] >= 0.5 else "ask for mus", what=EQUILIBRIUM_NOTE)
    return d


def _mus_betting(ctx: Context, ev: KeepEval, opts: list, best: int, rk: KeepRanking, rounds: int) -> dict | None:
    """Cut or mus with betting: en paso plus the betting gain of the hand kept (cut) or of the
    final hand after keeping ``opts[best]``."""
    kept_now = tuple(int(c) for c in ctx.tables.cls4[ctx.user])
    now = betting_terms(ctx, [kept_now], rounds, "cut-others-ask")
    if rk.betting is None or now is None:
        return None
    cut = len(opts)
    cut_v = float(ev.total[cut] + now[0][0])
    mus_v = float(ev.total[best] + rk.betting[0][best])
    se = float(np.sqrt(ev.diff_se(best, cut) ** 2 + rk.betting[1][best] ** 2 + now[1][0] ** 2))
    return {"what": MUS_BETTING_NOTE, "keep": opts[best][2], "cut": {"ev_total": cut_v, "betting_gain": float(now[0][0])},
            "mus": {"ev_total": mus_v, "betting_gain": float(rk.betting[0][best])},
            "difference": {"value": mus_v - cut_v, "se": se},
            "advice": "cut" if mus_v - cut_v <= 0 else "ask for mus"}


def keep_set_options(ctx: Context) -> list:
    """The distinct keep-sets of the context's hand (what :func:`mus` compares with cutting)."""
    return _options(ctx, None)[0]

