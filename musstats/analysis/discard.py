"""The mus phase: expected stones of every keep-set, best discards, cut-mus advice,
and the discard strategy table by iterated best response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from musstats.rules.cards import Card, parse_cards, parse_hand
from musstats.rules.conditions import check_not_redealt, redeal_hand
from musstats.base.errors import MusError
from musstats.tables.hands import LANCES, hand_tables
from musstats.engines.musphase import DEFAULT_TRIALS, evaluate_keeps
from musstats.tables.policies import KEEP_ALL, get_policy, keep_mask_for, keep_options
from musstats.rules.seats import SEATS, parse_seat
from musstats.rules.variant import Variant, make_variant

OBJECTIVES = ("total", "grande", "chica", "pares", "juego")
#: keep-sets whose means are within this many standard errors of the best are flagged
CLOSE_SE = 2.0


# ------------------------------------------------------------------ public API

def _validate(hand, seat, variant, juego_real, rounds, trials, objective):
    v = make_variant(variant, juego_real)
    cards = parse_hand(hand)
    hand_tables(v).remaining(cards)
    s = parse_seat(seat)
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise MusError(f"--rounds must be a whole number of at least 1, got {rounds!r}")
    if trials is not None and (isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 1):
        raise MusError(f"--trials must be a whole number of at least 1, got {trials!r}")
    if objective not in OBJECTIVES:
        raise MusError(f"unknown objective {objective!r}; accepted: {', '.join(OBJECTIVES)}")
    return v, cards, s


@dataclass
class DiscardResult:
    """Every distinct keep-set of a hand with its expected stones, best first."""

    hand: list[Card]
    seat: int
    variant: Variant
    objective: str
    policy: str
    rounds: int
    trials: int
    seed: int
    rows: list[dict[str, Any]] = field(default_factory=list)  # best first
    close: bool = False  # the top two are within CLOSE_SE standard errors
    chosen: int | None = None  # row index of the user's --keep, if given

    def to_frame(self):
        """One row per keep-set, best first."""
        import pandas as pd

        df = pd.DataFrame(self.rows)
        df.attrs.update({k: v for k, v in self.to_dict().items() if k != "keep_sets"})
        return df

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``musstats discard --format json``."""
        return {
            "hand": [c.label for c in self.hand], "seat": SEATS[self.seat],
            "variant": self.variant.name, "rules": self.variant.describe(),
            "objective": self.objective, "policy": self.policy, "rounds": self.rounds,
            "method": "mc", "trials": self.trials, "seed": self.seed,
            "recommended": self.rows[0]["keep"], "close": self.close,
            "keep_sets": self.rows,
        }


def _options(cards: list[Card], v: Variant, keep) -> tuple[list, int | None]:
    """The user's distinct keep-sets (with "change nothing" in mus visto) and the mask of ``keep``."""
    t = hand_tables(v)
    h = t.index_of(cards)
    check_not_redealt(v, h)
    opts = keep_options(h, v)
    if v.mus_visto:  # in the visto round a player may change nothing
        opts = opts + [(KEEP_ALL, tuple(int(c) for c in t.cls4[h]), "all (change nothing)")]
    chosen = keep_mask_for(cards, parse_cards(keep), v, allow_all=v.mus_visto) if keep else None
    if chosen is not None:
        kept = tuple(int(t.cls4[h][i]) for i in range(4) if chosen >> i & 1)
        chosen = next(m for m, k, _ in opts if k == kept)
    return opts, chosen


def best_discards(
    hand: str | Iterable,
    seat: str | int = "mano",
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    *,
    objective: str = "total",
    policy: str = "table",
    rounds: int = 1,
    trials: int | None = None,
    seed: int | None = None,
    keep: str | Iterable | None = None,
) -> DiscardResult:
    """Evaluate every distinct keep-set of ``hand`` at ``seat`` (see :func:`discard`)."""
    v, cards, s = _validate(hand, seat, variant, juego_real, rounds, trials, objective)
    pol, pol_name = get_policy(policy, v)
    opts, chosen_mask = _options(cards, v, keep)
    ev = evaluate_keeps(cards, s, [m for m, _, _ in opts], v, pol, rounds=rounds,
                        trials=trials or DEFAULT_TRIALS, seed=seed)
    mean, se = ev.objective(objective)
    order = np.argsort(-mean, kind="stable")
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
        row["objective"] = float(mean[i])
        row["se_objective"] = float(se[i])
        row["gap_to_best"] = float(mean[order[0]] - mean[i])
        row["se_gap"] = ev.diff_se(order[0], i) if objective == "total" else float(np.hypot(se[order[0]], se[i]))
        row["recommended"] = rank == 0
        rows.append(row)
    close = len(rows) > 1 and rows[1]["gap_to_best"] <= CLOSE_SE * max(rows[1]["se_gap"], 1e-12)
    chosen = None
    if chosen_mask is not None:
        chosen = [opts[i][0] for i in order].index(chosen_mask)
    return DiscardResult(cards, s, v, objective, pol_name, rounds, ev.trials, ev.seed, rows, close, chosen)


def discard(hand: str | Iterable, seat: str | int = "mano", variant: str | Variant = "8-reyes",
            juego_real: str = "off", **options: Any):
    """Every distinct keep-set of ``hand`` with expected net stones per lance and in total.

    A DataFrame, best first, with standard errors.  Options: ``objective`` (total, grande,
    chica, pares, juego), ``policy`` of the other players (table, reyes-pairs, grande,
    chica, 31), ``rounds``, ``trials``, ``seed``, ``keep``.
    """
    return best_discards(hand, seat, variant, juego_real, **options).to_frame()


@dataclass
class MusAdvice:
    """Cut the mus now, or ask for it: expected stones both ways, on the same deals.

    Asking changes anything only when the other three ask too, so both sides are
    estimated on the deals in which none of them holds a hand he would cut with
    (``p_others_ask`` is how often that happens); elsewhere asking equals cutting.
    """

    hand: list[Card]
    seat: int
    variant: Variant
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

    @property
    def diff(self) -> float:
        """Expected gain of asking for mus over cutting, when the others ask too (stones)."""
        return float(self.mus_ev.sum() - self.cut_ev.sum())

    @property
    def advice(self) -> str:
        """``"cut"`` or ``"ask for mus"``."""
        return "cut" if self.diff <= 0 else "ask for mus"

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``musstats mus --format json``."""
        lances = {
            lance: {"cut": {"ev_net": float(self.cut_ev[i]), "p_team": float(self.cut_p_team[i]),
                            "se": {"ev_net": float(self.cut_ev_se[i])}},
                    "mus": {"ev_net": float(self.mus_ev[i]), "p_team": float(self.mus_p_team[i]),
                            "se": {"ev_net": float(self.mus_ev_se[i])}}}
            for i, lance in enumerate(LANCES)}
        return {
            "hand": [c.label for c in self.hand], "seat": SEATS[self.seat],
            "variant": self.variant.name, "rules": self.variant.describe(),
            "keep": self.keep, "policy": self.policy, "rounds": self.rounds,
            "method": "mc", "trials": self.trials, "seed": self.seed,
            "given": "the other three ask for mus" if not self.variant.mus_visto else "every deal",
            "p_others_ask": self.p_others_ask,
            "cut": {"ev_total": float(self.cut_ev.sum()), "se": self.cut_total_se},
            "mus": {"ev_total": float(self.mus_ev.sum()), "se": self.mus_total_se},
            "difference": {"value": self.diff, "se": self.diff_se},
            "advice": self.advice, "lances": lances,
        }


def mus_advice(
    hand: str | Iterable,
    seat: str | int = "mano",
    variant: str | Variant = "8-reyes",
    juego_real: str = "off",
    *,
    policy: str = "table",
    rounds: int = 1,
    trials: int | None = None,
    seed: int | None = None,
    keep: str | Iterable | None = None,
) -> MusAdvice:
    """Cut the mus or ask for it: the best keep-set (or ``keep``) after the mus round(s)
    against keeping the hand, both on the deals in which the other three ask for mus.

    Who asks: a player cuts with the hands the strategy table marks (or medias, duples
    and 31 under a heuristic policy).  With mus visto the visto round happens anyway and
    every deal counts.
    """
    from musstats._kernels.mus import NO_MUS

    v, cards, s = _validate(hand, seat, variant, juego_real, rounds, trials, "total")
    pol, pol_name = get_policy(policy, v)
    opts, chosen = _options(cards, v, keep)
    masks = [m for m, _, _ in opts] + [NO_MUS]
    ev = evaluate_keeps(cards, s, masks, v, pol, rounds=rounds, trials=trials or DEFAULT_TRIALS, seed=seed,
                        others_ask=not v.mus_visto)
    cut = len(masks) - 1
    best = masks.index(chosen) if chosen is not None else int(np.argmax(ev.total[:cut]))
    tse = ev.total_se()
    return MusAdvice(cards, s, v, opts[best][2], pol_name, rounds, ev.trials, ev.seed,
                     ev.ev[cut], ev.p_team[cut], ev.ev_se[cut], ev.ev[best], ev.ev_se[best], ev.p_team[best],
                     float(tse[cut]), float(tse[best]), ev.diff_se(best, cut), ev.p_deal_kept)


def mus(hand: str | Iterable, seat: str | int = "mano", variant: str | Variant = "8-reyes",
        juego_real: str = "off", **options: Any):
    """Per lance: net stones and p_team if the mus is cut and after a mus round, on the deals
    in which the other three ask for mus (see :func:`mus_advice`)."""
    import pandas as pd

    a = mus_advice(hand, seat, variant, juego_real, **options)
    df = pd.DataFrame({"cut_ev_net": a.cut_ev, "cut_se_ev_net": a.cut_ev_se, "cut_p_team": a.cut_p_team,
                       "mus_ev_net": a.mus_ev, "mus_se_ev_net": a.mus_ev_se, "mus_p_team": a.mus_p_team},
                      index=pd.Index(LANCES, name="lance"))
    df.attrs.update({k: v for k, v in a.to_dict().items() if k != "lances"})
    return df
