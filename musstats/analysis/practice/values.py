"""What each decision of a hand is worth: the figures of the hints and of the review.

* **Betting** (every lance): :func:`musstats.analysis.betting.bet` at the player's turn --
  the equilibrium probability of every legal action and its expected stones (Monte Carlo,
  ± standard error) against opponents and a partner who play the shipped equilibrium, with
  the hands of the deal model of the hand (as dealt where somebody cut, after the mus where
  a mus round was played), the lance's declarations and its public history.  One call at
  the player's first turn in a lance gives every later turn of his in it.
* **Mus or cut** (the first mus decision of a hand): :func:`musstats.analysis.discard.mus`
  -- the mus decision's equilibrium: the probability of cutting, and the stones of cutting and
  of asking for the player's team when he speaks (everybody before him asked), every hand then
  bet by the strategies that read who cut.
* **The discard** (the first mus round): :func:`musstats.analysis.discard.discard` -- every
  keep-set's total with betting on the deals in which the mus round happens.

:func:`judge` turns the figures of a decision into the review's verdict: the best action
is the one of highest expected stones among those the equilibrium plays (probability at
least :data:`PLAYED_P`; for the discard, the best by value), and the stones
lost are its value minus the action's, 0 for an action the equilibrium plays.

Every figure has a fixed seed: a hand is valued the same each time (the page, ``musstats
review`` and ``musstats play`` agree), and the answers are kept in memory per hand and seat.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable

from musstats.base.errors import MusError
from musstats.rules.labels import SEATS
from musstats.rules.variant import Variant

__all__ = ["PLAYED_P", "BET_TRIALS", "BET_SEED", "MUS_TRIALS", "MUS_SEED", "check_rules", "bet_options",
           "mus_options", "discard_options", "judge", "keep_label", "RULES_TEXT", "METHOD"]

#: an action the equilibrium takes with at least this probability is one it plays (it loses 0)
PLAYED_P = 0.01
#: deals of each betting valuation (``musstats bet --trials``) and their seed
BET_TRIALS = 20_000
BET_SEED = 2026
#: deals per keep-set of the mus and discard valuations (``musstats mus/discard --trials``) and their seed
MUS_TRIALS = 20_000
MUS_SEED = 1
RULES_TEXT = "8 reyes without juego real"
METHOD = {
    "betting": "musstats bet at the player's turn: P(action) of the shipped equilibrium and its expected stones "
               "for his team in the lance (Monte Carlo, deals weighted by the others' equilibrium reach of the "
               "history; an accepted órdago counts 19.8 stones)",
    "mus": "musstats mus: the mus decision's equilibrium (P(cut); the stones of cutting and of asking for the "
           "player's team when he speaks, every hand then bet by the strategies that read who cut); an action the "
           "equilibrium plays loses nothing",
    "discard": "musstats discard: every keep-set's total with betting on the deals in which the mus round "
               "happens; net stones of the hand",
    "best": f"the action of highest expected stones among those the equilibrium plays (P >= {PLAYED_P:g}); "
            "stones lost = its value minus the action's (0 for an action the equilibrium plays)",
}


def check_rules(variant: Variant) -> None:
    """Practice plays the rules whose betting strategies ship (MusError otherwise)."""
    if variant.deck != "8-reyes" or variant.ten_kings or variant.juego_real != "off" or variant.redeal_4567 \
            or variant.mus_visto:
        raise MusError(f"practice plays {RULES_TEXT} (the rules whose betting strategies ship), to 40 or 30; "
                       f"got {variant.name}" + (f", juego real {variant.juego_real}" if variant.juego_real != "off"
                                                else ""))


class _Memo:
    """A small thread-safe memo of answers (or of the one-line error they gave)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data: OrderedDict[Any, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any, compute: Callable[[], Any]) -> Any:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                got = self.data[key]
                if isinstance(got, MusError):
                    raise got
                return got
        try:
            val: Any = compute()
        except MusError as e:
            val = e
        with self.lock:
            self.data[key] = val
            while len(self.data) > self.size:
                self.data.popitem(last=False)
        if isinstance(val, MusError):
            raise val
        return val


_BET = _Memo(4096)
_MUS = _Memo(2048)
_DISCARD = _Memo(2048)


def _bet_result(hand: str, seat: int, lance: str, start: tuple[str, ...], declared: str | None, deal: str,
                trials: int, seed: int, plan_seed: int | None):
    from musstats.analysis.betting import bet

    key = (hand, seat, lance, start, declared, deal, trials, seed, plan_seed)
    return _BET.get(key, lambda: bet(hand, SEATS[seat], lance=lance, history=",".join(start) if start else None,
                                      declared=declared, deal=deal, trials=trials, seed=seed, solve=False,
                                      plan_seed=plan_seed))


def bet_options(hand: str, seat: int, lance: str, start: tuple[str, ...], history: tuple[str, ...],
                declared: str | None, deal: str, trials: int = BET_TRIALS, seed: int = BET_SEED,
                plan_seed: int | None = None) -> dict[str, Any]:
    """The equilibrium figures at ``seat``'s turn after ``history`` in ``lance``: ``{"options":
    {action: {"p", "ev", "se"}}, "rare", "weight", "meta"}``.  ``start``: the history at his
    first turn in the lance on this path (one valuation serves all his turns).  ``plan_seed``:
    the hand's (:mod:`.bots`): where the seat's pair plays correlated plans, the figures are
    those of the plan it draws, the one his partner plays."""
    from musstats.analysis.betting import declaration_pattern
    from musstats.analysis.practice.bots import pair_plan
    from musstats.rules.cards import parse_hand
    from musstats.tables.hands import hand_tables

    plan = None
    if plan_seed is not None:
        v = Variant()
        pattern = declaration_pattern(lance, hand_tables(v).index_of(parse_hand(hand)), seat, declared, v)
        plan = plan_seed if pair_plan(lance, pattern, deal, v, seat)[1] else None
    res = _bet_result(hand, seat, lance, tuple(start), declared, deal, trials, seed, plan)
    node = next((n for n in res.nodes if tuple(n["history"]) == tuple(history)), None)
    if node is None:  # pragma: no cover - every later turn of the seat is in the answer
        raise MusError(f"no figures for {SEATS[seat]} after '{','.join(history)}' in {lance}")
    meta = res.meta
    return {"options": node["actions"], "rare": bool(node.get("rare")), "weight": node.get("weight"),
            "meta": {"deal": deal, "declared": meta.get("declared"), "trials": meta.get("ev_deals"),
                     "seed": meta.get("ev_seed"), "strategy_source": meta.get("strategy_source"),
                     "iterations": meta.get("iterations"), "ordago_stones": meta.get("ordago_stones"),
                     "strategies": meta.get("strategies"), "notes": meta.get("notes", [])}}


def mus_options(hand: str, seat: int, trials: int = MUS_TRIALS, seed: int = MUS_SEED) -> dict[str, Any]:
    """Cut or mus, as ``musstats mus`` advises: ``{"options": {"mus": {"p", "ev", "se"}, "corto":
    {...}}, "keep", "p_others_ask", "difference", "se", "by"}``: the mus decision's equilibrium
    (P and the stones of each call for the player's team when he speaks); where it does not ship,
    the comparison with betting on the deals in which the other three ask (no P)."""
    from musstats.analysis.discard import mus

    def compute():
        m = mus(hand, SEATS[seat], trials=trials, seed=seed)
        if m.partial:  # Ctrl-C: never kept
            raise KeyboardInterrupt
        b, eq = m.betting, m.equilibrium
        p = {"mus": None, "corto": None}
        if eq is not None:
            cut, mus_v, se, by = eq["ev_cut"], eq["ev_ask"], eq["se"], "equilibrium"
            diff = mus_v - cut
            p = {"mus": round(1.0 - eq["p_cut"], 4), "corto": round(eq["p_cut"], 4)}
        elif b is None:  # pragma: no cover - 8 reyes ships its gain tables
            cut, mus_v, diff, se, by = float(m.cut_ev.sum()), float(m.mus_ev.sum()), m.diff, m.diff_se, "en paso"
        else:
            cut, mus_v = b["cut"]["ev_total"], b["mus"]["ev_total"]
            diff, se, by = b["difference"]["value"], b["difference"]["se"], "with betting"
        return {"options": {"mus": {"p": p["mus"], "ev": round(mus_v, 4), "se": None},
                            "corto": {"p": p["corto"], "ev": round(cut, 4), "se": None}},
                "keep": m.keep, "p_others_ask": round(m.p_others_ask, 4), "difference": round(diff, 4),
                "se": round(se, 4), "by": by, "trials": m.trials, "seed": m.seed}

    return _MUS.get((hand, seat, trials, seed), compute)


def keep_label(kept_classes: list[int], variant: Variant) -> str:
    """The keep-set's name as ``musstats discard`` writes it (``R R A``; ``–`` for nothing)."""
    cls = sorted(kept_classes, reverse=True)
    return " ".join(variant.classes[c].label for c in cls) or "–"


def discard_options(hand: str, seat: int, trials: int = MUS_TRIALS, seed: int = MUS_SEED) -> dict[str, Any]:
    """Every keep-set's value (with betting) given that the mus round happens: ``{"options":
    {keep: {"ev", "se", "gap", "throw"}}, "best", "by"}``, best first."""
    from musstats.analysis.discard import discard

    def compute():
        d = discard(hand, SEATS[seat], trials=trials, seed=seed)
        if d.partial:  # Ctrl-C: never kept
            raise KeyboardInterrupt
        opts = {}
        for r in d.rows:
            opts[r["keep"]] = {"ev": round(r["objective"], 4), "se": round(r["se_objective"], 4),
                               "gap": round(r["gap_to_best"], 4), "gap_se": round(r["se_gap"], 4),
                               "throw": r["discard"]}
        return {"options": opts, "best": d.rows[0]["keep"], "by": "total with betting" if d.betting else
                "total en paso", "trials": d.trials, "seed": d.seed}

    return _DISCARD.get((hand, seat, trials, seed), compute)


def judge(kind: str, options: dict[str, dict], chosen: str) -> dict[str, Any]:
    """The verdict on ``chosen`` among ``options`` (see the module docstring): ``{"best",
    "loss", "played"}``; ``loss`` None where the chosen action has no value."""
    if kind == "bet" or (kind == "mus" and all(x.get("p") is not None for x in options.values())):
        with_ev = {a: x for a, x in options.items() if x.get("ev") is not None}
        played = [a for a, x in with_ev.items() if (x.get("p") or 0) >= PLAYED_P]
        if not played:
            played = [max(options, key=lambda a: options[a].get("p") or 0)]
            played = [a for a in played if a in with_ev] or list(with_ev)
        if not played:
            return {"best": None, "loss": None, "played": False}
        best = max(played, key=lambda a: with_ev[a]["ev"])
        is_played = (options.get(chosen, {}).get("p") or 0) >= PLAYED_P
        if is_played:
            return {"best": best, "loss": 0.0, "played": True}
        ev = options.get(chosen, {}).get("ev")
        if ev is None:
            return {"best": best, "loss": None, "played": False}
        return {"best": best, "loss": round(max(0.0, with_ev[best]["ev"] - ev), 4), "played": False}
    # mus and discard: the best by value
    with_ev = {a: x for a, x in options.items() if x.get("ev") is not None}
    best = max(with_ev, key=lambda a: with_ev[a]["ev"])
    if chosen not in with_ev:
        return {"best": best, "loss": None, "played": False}
    return {"best": best, "loss": round(max(0.0, with_ev[best]["ev"] - with_ev[chosen]["ev"]), 4),
            "played": chosen == best}
