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
from musstats.tables.policies import KEEP_ALL, cut_flags, get_policy, keep_mask_for, keep_options, visto_policy
from musstats.rules.seats import SEATS, parse_seat
from musstats.rules.variant import Variant, make_variant

OBJECTIVES = ("total", "grande", "chica", "pares", "juego")
#: keep-sets whose means are within this many standard errors of the best are flagged
CLOSE_SE = 2.0
DEFAULT_TRIALS = 60_000
N_CHUNKS = 64


@dataclass
class KeepEval:
    """Monte Carlo estimates for a set of user keep masks on common deals."""

    masks: np.ndarray  # int64 [K]
    trials: int
    seed: int
    ev: np.ndarray  # float [K, 5] mean net stones per lance
    ev_se: np.ndarray  # float [K, 5]
    p_team: np.ndarray  # float [K, 5] our team holds the best hand of the lance
    total: np.ndarray  # float [K] mean of the summed net stones
    total_cov: np.ndarray  # float [K, K] covariance of the totals (per trial)
    ev_m2: np.ndarray  # float [K, 5] mean of the squared net stones per lance
    p_deal_kept: float = 1.0  # share of the dealt deals that met the conditions

    def total_se(self) -> np.ndarray:
        """Standard error of each total."""
        return np.sqrt(np.maximum(np.diag(self.total_cov), 0) / self.trials)

    def diff_se(self, a: int, b: int) -> float:
        """Standard error of total[a] - total[b] (common random numbers)."""
        c = self.total_cov
        return float(np.sqrt(max(c[a, a] + c[b, b] - 2 * c[a, b], 0.0) / self.trials))

    def objective(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error of the objective for every keep-set."""
        if name == "total":
            return self.total, self.total_se()
        li = LANCES.index(name)
        if name == "juego":  # the fourth count step: juego, or punto when nobody has juego
            # per deal one of the two is 0, so E[(J + P)^2] = E[J^2] + E[P^2]
            mean = self.ev[:, 3] + self.ev[:, 4]
            n = self.trials
            var = np.maximum(self.ev_m2[:, 3] + self.ev_m2[:, 4] - mean**2, 0) * n / max(n - 1, 1)
            return mean, np.sqrt(var / n)
        return self.ev[:, li], self.ev_se[:, li]


def deck_ids(variant: Variant) -> np.ndarray:
    """Class id of each physical card id 0..39."""
    return np.repeat(np.arange(len(variant.classes)), [c.count for c in variant.classes]).astype(np.int64)


def _user_cards(cards: list[Card], variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Physical ids for the user's cards (sorted by class, highest first) and the unseen ids."""
    t = hand_tables(variant)
    card_class = deck_ids(variant)
    ids = sorted(t.class_ids(cards), reverse=True)
    used = []
    for c in ids:
        free = [i for i in np.nonzero(card_class == c)[0] if i not in used]
        used.append(int(free[0]))
    unseen = np.array([i for i in range(40) if i not in used], np.int64)
    return np.array(used, np.int64), unseen


def evaluate_keeps(
    cards: list[Card],
    seat: int,
    masks: Iterable[int],
    variant: Variant = Variant(),
    policy: np.ndarray | None = None,
    *,
    rounds: int = 1,
    trials: int = DEFAULT_TRIALS,
    seed: int | None = None,
    spawn_key: tuple[int, ...] = (),
    others_ask: bool = False,
) -> KeepEval:
    """Estimate the net stones en paso after ``rounds`` mus rounds for each user keep mask.

    The other seats (and the user after the first round) discard by ``policy`` [4, H].
    All masks are evaluated on the same deals and draws (common random numbers).  With
    mus visto (``variant.mus_visto``) the masks are the user's change in the visto round
    (15 = keep everything) and the others follow :func:`visto_policy` there.  The mask
    ``NO_MUS`` (16) is "the user cuts": nobody changes cards.  With ``others_ask`` only
    deals in which none of the other three holds a hand he would cut with count (the
    mus happens only when all four ask for it); ``KeepEval.p_deal_kept`` is their share.
    """
    from musstats._kernels.mus import keep_sets_eval
    from musstats.engines.random import seed_states
    from musstats.rules.seats import team_array
    from musstats.tables.jokers import joker_tables
    from musstats.tables.kernel import lance_table
    from musstats.engines.montecarlo import check_seed

    t = hand_tables(variant)
    if policy is None:
        policy, _ = get_policy("table", variant)
    masks = np.asarray(list(masks), np.int64)
    seed = check_seed(seed)
    user, unseen = _user_cards(cards, variant)
    n_chunks = min(N_CHUNKS, max(1, trials))
    per = np.full(n_chunks, trials // n_chunks, np.int64)
    per[: trials % n_chunks] += 1
    seeds = seed_states(seed, n_chunks, key=spawn_key)
    jt = joker_tables(variant)
    visto = bool(variant.mus_visto)
    pol_visto = visto_policy(policy, variant) if visto else policy
    reject = np.zeros((4, t.n_hands), np.int64)
    if variant.redeal_4567:
        reject[:, redeal_hand(variant)] = 1
    if others_ask:
        reject[cut_flags(variant)] = 1
    acc, tot, cross, attempts = keep_sets_eval(seeds, per, user, unseen, seat, masks,
                                               np.ascontiguousarray(policy, np.int64), rounds,
                                               deck_ids(variant), t.n_classes, t.idx4.astype(np.int64),
                                               team_array(4), lance_table(variant), jt.n_options, jt.base, reject, visto,
                                               np.ascontiguousarray(pol_visto, np.int64))
    if (attempts < 0).any():
        raise MusError("no deal satisfies the conditions (every deal was rejected)")
    acc = acc.sum(axis=0).astype(np.float64)
    tot = tot.sum(axis=0).astype(np.float64)
    cross = cross.sum(axis=0).astype(np.float64)
    cross = np.triu(cross) + np.triu(cross, 1).T
    n = float(trials)
    ev = acc[:, :, 1] / n
    var = np.maximum(acc[:, :, 2] / n - ev**2, 0) * n / max(n - 1, 1)
    mean_tot = tot / n
    cov = (cross / n - np.outer(mean_tot, mean_tot)) * n / max(n - 1, 1)
    return KeepEval(masks, trials, seed, ev, np.sqrt(var / n), acc[:, :, 0] / n, mean_tot, cov,
                    acc[:, :, 2] / n, float(trials / attempts.sum()))


def deals_after_mus(n: int, seed: int, variant: Variant = Variant(), *, rounds: int = 1,
                    policy: str = "table") -> np.ndarray:
    """``n`` random deals after ``rounds`` mus rounds in which all four players discard by
    ``policy``: final hand indices int64 [n, 4] in seat order (a deal source for the game model)."""
    from musstats._kernels.mus import deals_after_mus as _kernel
    from musstats.engines.random import seed_states

    t = hand_tables(variant)
    pol, _ = get_policy(policy, variant)
    n = int(n)
    n_chunks = min(N_CHUNKS, max(1, n))
    per = np.full(n_chunks, n // n_chunks, np.int64)
    per[: n % n_chunks] += 1
    offsets = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int64)
    seeds = seed_states(seed, n_chunks)
    visto = bool(variant.mus_visto) and rounds > 0  # hands played as dealt see no visto round
    pol_visto = visto_policy(pol, variant) if visto else pol
    return _kernel(seeds, per, offsets, np.ascontiguousarray(pol, np.int64), rounds, deck_ids(variant),
                   t.n_classes, t.idx4.astype(np.int64), redeal_hand(variant), visto,
                   np.ascontiguousarray(pol_visto, np.int64))


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
