"""Conditions on the other hands: declarations and partner signals (señas).

A condition is a boolean mask ``allowed[seat, h]`` over absolute seats and hand
indices; both the exact and the Monte Carlo engines take such a mask, so a new
kind of condition needs no new kernel.
"""

from __future__ import annotations

import numpy as np

from musstats.base.errors import MusError
from musstats.tables.hands import JUEGO, PARES, hand_tables
from musstats.rules.seats import SEATS, parse_seat
from musstats.rules.variant import Variant

DECLARATIONS = ("pares", "no-pares", "juego", "no-juego")
_DECL_ALIASES = {"pares": "pares", "no-pares": "no-pares", "nopares": "no-pares", "sin-pares": "no-pares",
                 "juego": "juego", "no-juego": "no-juego", "nojuego": "no-juego", "sin-juego": "no-juego",
                 "punto": "no-juego"}
#: RULES.md "Partner signals": the seña and what it says about the partner's hand.
SIGNALS = {
    "duples": "duples (two pairs, or four of a kind)",
    "medias": "medias (three of a rank)",
    "31": "juego of 31",
    "two-reyes": "exactly two reyes",
    "three-reyes": "exactly three reyes",
    "four-reyes": "four reyes",
    "two-ases": "exactly two ases",
    "three-ases": "exactly three ases",
    "four-ases": "four ases",
    "punto-30": "punto 30",
    "bad": "bad cards: no pares and no juego",
}


def _top_bottom_counts(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    t = hand_tables(variant)
    ranks = np.array([c.rank for c in variant.classes])
    top = t.counts[:, ranks == ranks.max()].sum(axis=1)
    bottom = t.counts[:, ranks == ranks.min()].sum(axis=1)
    return top, bottom


def signal_mask(signal: str, variant: Variant = Variant()) -> np.ndarray:
    """Hands (bool [H]) a partner can hold when he makes ``signal``."""
    s = str(signal).strip().lower()
    if s not in SIGNALS:
        raise MusError(f"unknown signal {signal!r}; accepted: {'|'.join(SIGNALS)}")
    t = hand_tables(variant)
    reyes, ases = _top_bottom_counts(variant)
    if s == "duples":
        return t.pares_cat == 3
    if s == "medias":
        return t.pares_cat == 2
    if s == "31":
        return t.points == 31
    if s == "punto-30":
        return t.points == 30
    if s == "bad":
        return (t.pares_cat == 0) & (t.points < 31)
    n = {"two": 2, "three": 3, "four": 4}[s.split("-")[0]]
    return (reyes if s.endswith("reyes") else ases) == n


def declaration_mask(what: str, variant: Variant = Variant()) -> np.ndarray:
    """Hands (bool [H]) consistent with a declaration (pares, no-pares, juego, no-juego)."""
    w = _DECL_ALIASES.get(str(what).strip().lower())
    if w is None:
        raise MusError(f"unknown declaration {what!r}; accepted: {', '.join(DECLARATIONS)}")
    t = hand_tables(variant)
    held = t.key[PARES if "pares" in w else JUEGO] > 0
    return held if not w.startswith("no-") else ~held


def parse_declared(text: str) -> list[tuple[int, str]]:
    """``"second:pares,postre:no-pares"`` → [(1, "pares"), (3, "no-pares")]."""
    out = []
    for item in str(text).replace(";", ",").split(","):
        item = item.strip()
        if not item:
            continue
        if ":" not in item:
            raise MusError(f"declaration {item!r} needs SEAT:WHAT, e.g. second:pares "
                           f"(WHAT: {', '.join(DECLARATIONS)})")
        seat, what = item.split(":", 1)
        out.append((parse_seat(seat), what))
    return out


def build_allowed(
    variant: Variant,
    hand_index: int,
    seat: int,
    declared: str | None = None,
    signal: str | None = None,
) -> np.ndarray | None:
    """The mask ``allowed[4, H]`` for the given declarations and partner signal (None if none).

    Raises MusError when a declaration of the user's own seat contradicts his hand.
    """
    if not declared and not signal:
        return None
    t = hand_tables(variant)
    allowed = np.ones((4, t.n_hands), bool)
    for s, what in parse_declared(declared or ""):
        mask = declaration_mask(what, variant)
        if s == seat:
            if not mask[hand_index]:
                raise MusError(f"the declaration {SEATS[s]}:{what} contradicts your own hand "
                               f"({t.labels[hand_index]})")
            continue
        allowed[s] &= mask
    if signal:
        partner = (seat + 2) % 4
        allowed[partner] &= signal_mask(signal, variant)
    return allowed


def redeal_hand(variant: Variant) -> int:
    """Index of the hand nobody keeps as a first deal (4-5-6-7 with the redeal switch), or -1."""
    if not variant.redeal_4567:
        return -1
    from musstats.rules.cards import parse_hand

    return hand_tables(variant).index_of(parse_hand("4 5 6 7"))


def check_not_redealt(variant: Variant, user: int) -> None:
    """MusError when the user's own hand would be shown and replaced (4-5-6-7 redeal)."""
    if user == redeal_hand(variant) >= 0:
        raise MusError("with --redeal-4567 a hand of 4-5-6-7 is shown and replaced before the mus, "
                       "so it is never played; ask about the new hand instead")


def redeal_allowed(variant: Variant, user: int, allowed: np.ndarray | None) -> np.ndarray | None:
    """``allowed`` with first-dealt 4-5-6-7 removed for every other seat (unchanged without the switch)."""
    h = redeal_hand(variant)
    if h < 0:
        return allowed
    check_not_redealt(variant, user)
    out = np.ones((4, hand_tables(variant).n_hands), bool) if allowed is None else allowed.copy()
    out[:, h] = False
    return out
