"""Parsing of card notation.

Accepted notation (case-insensitive, tokens separated by spaces or commas):

* letters ``R`` (rey), ``C`` (caballo), ``S`` (sota), ``A`` (as);
* digits ``7 6 5 4 3 2 1`` and the numbers ``12 11 10`` (rey, caballo, sota; 1 is the as);
* Spanish words ``rey caballo sota siete seis cinco cuatro tres dos as``;
* compact tokens of single-character cards: ``RR3A`` is ``R R 3 A``;
* an optional suit after ``/`` or ``:``: ``S/o``, ``sota:oros``, ``10/oros``, or the
  phrase ``sota de oros``.  Suits: ``o``/``oros``, ``c``/``copas``, ``e``/``espadas``,
  ``b``/``bastos``.  Suits only matter for variants that name a suit.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from musstats.base.errors import MusError
from musstats.rules.variant import FACES

__all__ = ["ACCEPTED", "Card", "parse_cards", "check_physical", "parse_hand"]

_WORDS = {
    "r": 12, "rey": 12, "reyes": 12, "12": 12,
    "c": 11, "caballo": 11, "11": 11,
    "s": 10, "sota": 10, "10": 10,
    "7": 7, "siete": 7, "6": 6, "seis": 6, "5": 5, "cinco": 5, "4": 4, "cuatro": 4,
    "3": 3, "tres": 3, "2": 2, "dos": 2,
    "a": 1, "as": 1, "1": 1,
}
_SUITS = {"o": "oros", "oros": "oros", "c": "copas", "copas": "copas",
          "e": "espadas", "espadas": "espadas", "b": "bastos", "bastos": "bastos"}
_SINGLE = {k: v for k, v in _WORDS.items() if len(k) == 1}
_LABEL = {12: "R", 11: "C", 10: "S", 7: "7", 6: "6", 5: "5", 4: "4", 3: "3", 2: "2", 1: "A"}
ACCEPTED = "R C S 7 6 5 4 3 2 A, 12 11 10 1, or rey caballo sota siete ... as (suit as S/o)"


@dataclass(frozen=True, order=True)
class Card:
    """A physical card: face value 1..12 and, when given, its suit."""

    face: int
    suit: str | None = None

    @property
    def label(self) -> str:
        """Short notation, e.g. ``R`` or ``S/o``."""
        return _LABEL[self.face] + (f"/{self.suit[0]}" if self.suit else "")

    def __str__(self) -> str:
        return self.label


def _parse_token(tok: str) -> list[Card]:
    suit = None
    m = re.fullmatch(r"(.+?)[/:](.+)", tok)
    if m:
        tok, s = m.group(1), m.group(2)
        if s not in _SUITS:
            raise MusError(f"unknown suit {s!r} in {tok}/{s}; accepted suits: o/oros, c/copas, e/espadas, b/bastos")
        suit = _SUITS[s]
        if tok not in _WORDS:
            raise MusError(f"a suit can follow only a single card, got {tok!r}/{s}")
    if tok in _WORDS:
        return [Card(_WORDS[tok], suit)]
    if re.search(r"1[012]", tok):
        raise MusError(f"ambiguous card token {tok!r}: write 10, 11, 12 separated by spaces")
    if tok.isdigit() and "1" in tok:
        raise MusError(f"unknown card {tok!r}; accepted: {ACCEPTED} (separate the cards with spaces)")
    bad = [ch for ch in tok if ch not in _SINGLE]
    if bad:
        raise MusError(f"unknown card {bad[0]!r} in {tok!r}; accepted: {ACCEPTED}")
    return [Card(_SINGLE[ch]) for ch in tok]


def parse_cards(text: str | Iterable) -> list[Card]:
    """Parse any number of cards from a string or an iterable of tokens/Cards."""
    if isinstance(text, Card):
        return [text]
    if not isinstance(text, str):
        items = list(text)
        if all(isinstance(c, Card) for c in items):
            return items
        text = " ".join(str(t) for t in items)
    s = text.strip().lower()
    s = re.sub(r"\s+de\s+(oros|copas|espadas|bastos)\b", r"/\1", s)
    s = re.sub(r"\s*([/:])\s*", r"\1", s)
    cards: list[Card] = []
    for tok in re.split(r"[\s,;]+", s):
        if tok:
            cards.extend(_parse_token(tok))
    return cards


def check_physical(cards: list[Card], what: str = "cards") -> None:
    """Raise if the cards cannot all exist in one 40-card deck."""
    per_face = Counter(c.face for c in cards)
    for face, n in per_face.items():
        if n > 4:
            raise MusError(f"{what}: {n} cards of rank {_LABEL[face]} but the deck holds 4")
    suited = Counter(c for c in cards if c.suit)
    for card, n in suited.items():
        if n > 1:
            raise MusError(f"{what}: the card {card.label} appears {n} times; each suited card exists once")


def parse_hand(text: str | Iterable) -> list[Card]:
    """Parse exactly four cards that can form one hand."""
    cards = parse_cards(text)
    if len(cards) != 4:
        shown = " ".join(c.label for c in cards) or "nothing"
        raise MusError(f"a hand has exactly 4 cards, got {len(cards)} ({shown}); e.g. 'R R 3 A'")
    check_physical(cards, "hand")
    return cards


assert set(_LABEL) == set(FACES)
