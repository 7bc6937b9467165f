"""The review of a game: every decision of the player with the action he took, the
equilibrium's best action, the expected stones of each and the stones lost against the best
(:mod:`.values` says how each is valued); totals per hand, per lance and per game, and the
other players' cards.

What is reviewed: every betting decision of the player (every lance), his first mus decision
of each hand and his throw in the first mus round.  A mus decision changes nothing when
somebody else cuts: it is then a decision that lost exactly 0 stones.  Later mus rounds are
listed, not valued (the mus figures model one round).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from musstats.analysis.practice.hand import Decision, Hand, cards_text
from musstats.analysis.practice.history import HandRecord, Record
from musstats.analysis.practice import values as V
from musstats.base.errors import MusError
from musstats.rules.labels import SEATS

__all__ = ["DecisionReview", "HandReview", "Review", "review", "review_hand", "LANCE_ORDER", "summarise"]

#: the review's kinds of decision, in the order of a hand
LANCE_ORDER = ("mus", "discard", "grande", "chica", "pares", "juego", "punto")


@dataclass
class DecisionReview:
    game: int
    hand: int
    seat: str
    lance: str
    cards: str
    history: str
    action: str
    best: str | None
    loss: float | None
    ev: float | None
    ev_best: float | None
    se: float | None
    p: float | None
    options: list[dict[str, Any]]
    note: str = ""
    rare: bool = False

    @property
    def valued(self) -> bool:
        return self.loss is not None

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "hand": self.hand, "seat": self.seat, "lance": self.lance, "cards": self.cards,
                "history": self.history, "action": self.action, "best": self.best, "loss": self.loss,
                "ev": self.ev, "ev_best": self.ev_best, "se": self.se, "p": self.p, "valued": self.valued,
                "rare": self.rare, "note": self.note, "options": self.options}


@dataclass
class HandReview:
    """The review of one hand: its decisions and what happened (every seat's cards, the count)."""

    game: int
    hand: int
    you: str
    score: tuple[int, int]
    decisions: list[DecisionReview]
    record: dict[str, Any] = field(default_factory=dict)
    complete: bool = True

    @property
    def loss(self) -> float:
        return round(sum(d.loss for d in self.decisions if d.loss is not None), 4)

    def to_dict(self) -> dict[str, Any]:
        valued = [d for d in self.decisions if d.valued]
        return {"game": self.game, "hand": self.hand, "you": self.you, "score_before": list(self.score),
                "complete": self.complete, "decisions": len(valued), "loss": self.loss,
                "by_lance": summarise(self.decisions)["by_lance"],
                "cards": {"dealt": self.record.get("dealt"), "after_mus": self.record.get("hands")},
                "mus": self.record.get("mus", []), "lances": self.record.get("lances", {}),
                "count": self.record.get("count"), "rows": [d.to_dict() for d in self.decisions]}


def summarise(decisions: list[DecisionReview]) -> dict[str, Any]:
    """Decisions valued, total and mean loss (± the standard error of the mean over the
    decisions) and the same per lance."""
    x = [d.loss for d in decisions if d.loss is not None]
    n = len(x)
    mean = sum(x) / n if n else None
    se = None
    if n > 1 and mean is not None:
        var = sum((v - mean) ** 2 for v in x) / (n - 1)
        se = math.sqrt(var / n)
    by = {}
    for lance in LANCE_ORDER:
        y = [d.loss for d in decisions if d.lance == lance and d.loss is not None]
        if y:
            by[lance] = {"decisions": len(y), "loss": round(sum(y), 4), "mean_loss": round(sum(y) / len(y), 4)}
    return {"decisions": n, "loss": round(sum(x), 4), "mean_loss": None if mean is None else round(mean, 4),
            "mean_loss_se": None if se is None else round(se, 4), "by_lance": by}


@dataclass
class Review:
    """The review of a game or match (``musstats review``): per hand, per lance, in total."""

    hands: list[HandReview]
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def decisions(self) -> list[DecisionReview]:
        return [d for h in self.hands for d in h.decisions]

    def summary(self) -> dict[str, Any]:
        s = summarise(self.decisions)
        games = sorted({h.game for h in self.hands})
        s["by_game"] = [{"game": g, **{k: v for k, v in summarise(
            [d for h in self.hands if h.game == g for d in h.decisions]).items() if k != "by_lance"}}
            for g in games]
        return s

    def to_dict(self) -> dict[str, Any]:
        return {**self.meta, "review": self.summary(), "hands": [h.to_dict() for h in self.hands]}

    def to_frame(self):
        """One row per decision."""
        import pandas as pd

        cols = ["game", "hand", "seat", "lance", "cards", "history", "action", "best", "loss", "ev", "ev_best", "se",
                "p", "valued", "rare", "note"]
        rows = [{k: v for k, v in d.to_dict().items() if k in cols} for d in self.decisions]
        df = pd.DataFrame(rows, columns=cols)
        df.attrs.update({k: v for k, v in self.meta.items() if not isinstance(v, (dict, list))})
        return df


# ---------------------------------------------------------------------------- valuing


def _label(cards, hand: Hand) -> str:
    return hand.tables.labels[hand.tables.index_of(cards)]


def _bet_review(hr: HandRecord, d: Decision, trials: int) -> DecisionReview:
    hand = hr.hand
    mine = [x for x in hand.decisions if x.kind == "bet" and x.lance == d.lance and x.seat == d.seat]
    start = mine[0].history
    label = _label(d.hand, hand)
    base: dict[str, Any] = dict(game=hr.game, hand=hr.number, seat=SEATS[d.seat], lance=d.lance, cards=label,
                history=",".join(d.history), action=d.action)
    try:
        v = V.bet_options(label, d.seat, d.lance, start, d.history, hand.declared_text(d.lance), d.deal, trials,
                          plan_seed=hand.plan_seed)
    except MusError as e:
        return DecisionReview(**base, best=None, loss=None, ev=None, ev_best=None, se=None, p=None, options=[],
                              note=f"not valued: {e}")
    opts = v["options"]
    j = V.judge("bet", opts, d.action)
    me = opts.get(d.action, {})
    best = j["best"]
    note = "played by the equilibrium" if j["played"] else ""
    if v["rare"]:
        note = (note + "; " if note else "") + "rarely reached: its figures rest on few deals"
    return DecisionReview(**base, best=best, loss=j["loss"], ev=me.get("ev"),
                          ev_best=opts[best]["ev"] if best else None, se=me.get("se"), p=me.get("p"),
                          options=[{"action": a, **x} for a, x in opts.items()], note=note, rare=v["rare"])


def _mus_review(hr: HandRecord, d: Decision) -> DecisionReview:
    hand = hr.hand
    base: dict[str, Any] = dict(game=hr.game, hand=hr.number, seat=SEATS[d.seat], lance="mus", cards="", history="",
                action=d.action)
    if d.round > 0:
        return DecisionReview(**base, best=None, loss=None, ev=None, ev_best=None, se=None, p=None, options=[],
                              note=f"mus round {d.round + 1}: not valued (the mus figures model one round)")
    label = _label(d.hand, hand)
    base["cards"] = label
    ask = hand.others_ask(d.seat)
    note = ""
    if ask is None:  # he cut before some spoke: would they all have asked (the mus decision's equilibrium)?
        from musstats.analysis.cut_game import cut_probabilities
        from musstats.analysis.practice.bots import MIXED

        P = cut_probabilities(hand.variant)
        spoke = {x.seat for x in hand.decisions if x.kind == "mus" and x.round == 0}
        later = [q for q in range(4) if q not in spoke]
        cutter = next((q for q in later if P[q, hand.tables.index_of(hand.dealt[q])] >= 1.0 - MIXED), None)
        ask = cutter is None
        if cutter is not None:
            note = f"your choice changed nothing: {SEATS[cutter]} would have cut (by the mus equilibrium)"
    elif not ask:
        cutter = next(x.seat for x in hand.decisions if x.kind == "mus" and x.round == 0 and x.action == "corto"
                      and x.seat != d.seat)
        note = f"your choice changed nothing: {SEATS[cutter]} cut"
    if not ask:  # lost exactly nothing: the same hand was played whatever he said
        return DecisionReview(**base, best=None, loss=0.0, ev=None, ev_best=None, se=None, p=None, options=[],
                              note=note)
    try:
        v = V.mus_options(label, d.seat)
    except MusError as e:
        return DecisionReview(**base, best=None, loss=None, ev=None, ev_best=None, se=None, p=None, options=[],
                              note=f"not valued: {e}")
    opts = v["options"]
    j = V.judge("mus", opts, d.action)
    options = [{"action": a, "ev": x["ev"], "se": None} for a, x in opts.items()]
    common: dict[str, Any] = dict(best=j["best"], ev=opts[d.action]["ev"], ev_best=opts[j["best"]]["ev"], se=v["se"], p=None,
                  options=options)
    note = (f"the mus decision's equilibrium: you speak when everybody before you asked; mus keeping "
            f"{v['keep']}; the difference ± {v['se']:.3f}" if v["by"] == "equilibrium" else
            f"the others ask for mus in {100 * v['p_others_ask']:.1f} % of deals; valued on those deals "
            f"(mus keeping {v['keep']}; the difference ± {v['se']:.3f})")
    return DecisionReview(**base, **common, loss=j["loss"], note=note)


def _throw_review(hr: HandRecord, d: Decision) -> DecisionReview:
    hand = hr.hand
    v_ = hand.variant
    kept = list(d.hand)
    for c in d.cards:
        kept.remove(c)
    label = _label(d.hand, hand) if d.hand else ""
    chosen = V.keep_label([v_.class_of(c.face, c.suit) for c in kept], v_)
    base: dict[str, Any] = dict(game=hr.game, hand=hr.number, seat=SEATS[d.seat], lance="discard", cards=label, history="",
                action=f"keep {chosen}")
    if d.round > 0 or not d.hand:
        return DecisionReview(**base, best=None, loss=None, ev=None, ev_best=None, se=None, p=None, options=[],
                              note=f"mus round {d.round + 1}: not valued (the discard figures model one round)")
    try:
        v = V.discard_options(label, d.seat)
    except MusError as e:
        return DecisionReview(**base, best=None, loss=None, ev=None, ev_best=None, se=None, p=None, options=[],
                              note=f"not valued: {e}")
    opts = v["options"]
    j = V.judge("discard", opts, chosen)
    mine = opts.get(chosen, {})
    return DecisionReview(**base, best=f"keep {j['best']}", loss=j["loss"], ev=mine.get("ev"),
                          ev_best=opts[j["best"]]["ev"], se=mine.get("gap_se"), p=None,
                          options=[{"action": f"keep {k}", "ev": x["ev"], "se": x["se"]} for k, x in opts.items()],
                          note=f"ranked by the {v['by']}, given that the mus round happens")


def review_hand(hr: HandRecord, trials: int = V.BET_TRIALS) -> HandReview:
    """The review of one hand of the player at ``hr.you``."""
    out = []
    for d in hr.hand.decisions:
        if d.seat != hr.you:
            continue
        if d.kind == "bet":
            out.append(_bet_review(hr, d, trials))
        elif d.kind == "mus":
            out.append(_mus_review(hr, d))
        else:
            out.append(_throw_review(hr, d))
    rec = hr.to_dict()
    return HandReview(hr.game, hr.number, SEATS[hr.you], hr.score, out, rec, hr.complete)


def review_meta(record: Record) -> dict[str, Any]:
    v = record.variant
    return {"rules": {"variant": v.deck, "juego_real": v.juego_real, "target": v.target}, "match": record.match,
            "games": len(record.games), "games_won": {"us": record.games_won()[0], "them": record.games_won()[1]},
            "unfinished": record.unfinished, **{k: record.meta[k] for k in ("players", "bots", "seed", "strategy")
                                                if k in record.meta},
            "units": "stones of your team (net) per decision", "played_p": V.PLAYED_P,
            "method": V.METHOD, "bet_trials": V.BET_TRIALS, "bet_seed": V.BET_SEED, "mus_trials": V.MUS_TRIALS,
            "mus_seed": V.MUS_SEED}


def review(record: Record, *, trials: int = V.BET_TRIALS,
           progress: Callable[[int, int], None] | None = None) -> Review:
    """The review of every hand of ``record`` (``progress(done, total)`` after each hand).  Ctrl-C
    stops between hands: the hands reviewed so far, marked ``partial``."""
    from musstats.engines.run import Interrupt

    hands = record.hands()
    out = []
    partial = False
    with Interrupt() as ctrl_c:
        for i, hr in enumerate(hands):
            if ctrl_c.hit:
                partial = True
                break
            try:
                out.append(review_hand(hr, trials))
            except KeyboardInterrupt:
                partial = True
                break
            if progress is not None:
                progress(i + 1, len(hands))
    meta = review_meta(record)
    meta["bet_trials"] = trials
    if partial:
        meta["partial"] = True
    return Review(out, meta)


def cards_of(hand: Hand, seat: int) -> str:  # pragma: no cover - a helper for renderers
    return cards_text(hand.holds(seat))
