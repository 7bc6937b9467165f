"""Rule variants and the card classes they induce.

A *card class* is a set of physical cards that behave identically for every
lance under a variant (e.g. with 8 reyes every 3 and every Rey form the class
``R``).  Hands are multisets of card classes; everything downstream works on
class ids and never on physical ranks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from musstats.base.errors import MusError

__all__ = ["DECKS", "VARIANT_NAMES", "JUEGO_REAL", "TARGETS", "SUITS", "FACES", "FACE_POINTS", "CardClass",
           "Variant", "make_variant"]

DECKS = ("8-reyes", "4-reyes")
#: --variant values: the two decks, and ten kings (on top of 8 reyes)
VARIANT_NAMES = ("8-reyes", "4-reyes", "ten-kings")
JUEGO_REAL = ("off", "figure", "sota", "sota-oros")
TARGETS = (40, 30)
SUITS = ("oros", "copas", "espadas", "bastos")

#: Physical faces of the Spanish 40-card deck and their point values.
FACES = (12, 11, 10, 7, 6, 5, 4, 3, 2, 1)
FACE_POINTS = {12: 10, 11: 10, 10: 10, 7: 7, 6: 6, 5: 5, 4: 4, 3: 3, 2: 2, 1: 1}


@dataclass(frozen=True)
class CardClass:
    """Cards that are interchangeable for every lance under a variant."""

    label: str  # short label used in hand strings, e.g. "R", "7", "S/o"
    rank: int  # effective rank for grande/chica/pares, 0 = lowest
    points: int  # juego/punto points
    count: int  # cards of this class in the 40-card deck
    faces: tuple[int, ...]  # physical faces that belong to it
    suits: tuple[str, ...] = SUITS  # suits that belong to it
    real_partner: bool = False  # completes "31 real" with three 7s


@dataclass(frozen=True)
class Variant:
    """A set of rule switches (RULES.md "Variants"); drives every table and engine."""

    deck: str = "8-reyes"
    juego_real: str = "off"
    target: int = 40
    ten_kings: bool = False  # sota de copas and sota de oros are jokers (rey or as)
    redeal_4567: bool = False  # a player dealt 4-5-6-7 takes a new hand before the mus
    mus_visto: bool = False  # one free change of any number of cards before the mus

    def __post_init__(self) -> None:
        if self.deck not in DECKS:
            raise MusError(f"unknown variant {self.deck!r}; accepted: {', '.join(DECKS)}")
        if self.juego_real not in JUEGO_REAL:
            raise MusError(
                f"unknown juego real option {self.juego_real!r}; accepted: {', '.join(JUEGO_REAL)}"
            )
        if self.target not in TARGETS:
            raise MusError(f"unknown game target {self.target!r}; accepted: 40, 30")
        if self.ten_kings and self.deck != "8-reyes":
            raise MusError("ten kings is played on top of 8 reyes; it cannot be combined with 4 reyes")
        if self.ten_kings and self.juego_real == "sota-oros":
            raise MusError("with ten kings the sota de oros is a joker, so juego real with the sota de oros "
                           "cannot be played; accepted juego real options: off, figure, sota")

    @property
    def reyes(self) -> int:
        """Number of cards that rank as Rey (8 or 4)."""
        return 8 if self.deck == "8-reyes" else 4

    @property
    def name(self) -> str:
        """Short name of the variant, e.g. ``"8-reyes"`` or ``"ten-kings"``."""
        return "ten-kings" if self.ten_kings else self.deck

    @property
    def base(self) -> "Variant":
        """The variant without ten kings (the lances of a hand whose jokers are fixed)."""
        if not self.ten_kings:
            return self
        return Variant(self.deck, self.juego_real, self.target, False, self.redeal_4567, self.mus_visto)

    @property
    def lance_rules(self) -> "Variant":
        """The switches that decide the lances of a fixed hand (deck and juego real only)."""
        return Variant(self.deck, self.juego_real)

    @property
    def classes(self) -> tuple[CardClass, ...]:
        """The card classes, ordered from the lowest effective rank to the highest.

        With ten kings the jokers form a class of their own (label ``J``), placed last.
        """
        return _classes(self.deck, self.juego_real, self.ten_kings)

    @property
    def n_ranks(self) -> int:
        """Number of distinct effective ranks."""
        return 1 + max(c.rank for c in self.classes)

    def cache_key(self, *, target: bool = True) -> str:
        """Every switch that can change a result, as a short stable text (for cache keys);
        ``target=False`` leaves out the game target (for results that do not depend on it)."""
        parts = [self.deck, f"jr-{self.juego_real}", f"tk{int(self.ten_kings)}", f"rd{int(self.redeal_4567)}",
                 f"mv{int(self.mus_visto)}"]
        if target:
            parts.append(f"t{self.target}")
        return ".".join(parts)

    def describe(self) -> dict:
        """All switches as a JSON-friendly dict."""
        return {"name": self.name, "deck": self.deck, "juego_real": self.juego_real, "target": self.target,
                "ten_kings": self.ten_kings, "redeal_4567": self.redeal_4567, "mus_visto": self.mus_visto}

    def class_of(self, face: int, suit: str | None) -> int:
        """Class id of a physical card (suit None = unknown / not relevant).

        An unsuited sota is a plain sota: with ten kings, write the jokers S/c and S/o."""
        matches = [
            i
            for i, c in enumerate(self.classes)
            if face in c.faces and (suit is None or suit in c.suits)
        ]
        if not matches:  # pragma: no cover - every face belongs to some class
            raise MusError(f"card {face} is not in the deck")
        if len(matches) > 1:
            # A suit-split class (sota de oros) needs the suit; unsuited means the common class.
            full = [i for i in matches if len(self.classes[i].suits) > 1]
            return full[0]
        return matches[0]


@lru_cache(maxsize=None)
def _classes(deck: str, juego_real: str, ten_kings: bool = False) -> tuple[CardClass, ...]:
    if deck == "8-reyes":
        groups = [((1, 2), 1), ((4,), 4), ((5,), 5), ((6,), 6), ((7,), 7), ((10,), 10), ((11,), 10), ((12, 3), 10)]
    else:
        groups = [((f,), FACE_POINTS[f]) for f in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
    labels = {1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 10: "S", 11: "C", 12: "R"}
    out: list[CardClass] = []
    for rank, (faces, points) in enumerate(groups):
        partner = (juego_real == "figure" and points == 10) or (juego_real == "sota" and faces == (10,))
        if faces == (10,) and juego_real == "sota-oros":
            rest = tuple(s for s in SUITS if s != "oros")
            out.append(CardClass("S", rank, points, 3, faces, rest, False))
            out.append(CardClass("S/o", rank, points, 1, faces, ("oros",), True))
            continue
        if faces == (10,) and ten_kings:
            plain = ("espadas", "bastos")
            out.append(CardClass("S", rank, points, 2, faces, plain, partner))
            continue
        out.append(CardClass(labels[faces[0]], rank, points, 4 * len(faces), faces, SUITS, partner))
    if ten_kings:
        # the jokers (sota de copas, sota de oros): ranked and counted as a rey for labels and
        # discard heuristics; for the lances each is fixed as a rey or an as (musstats.engines.jokers)
        top = out[-1]
        out.append(CardClass("J", top.rank, top.points, 2, (10,), ("copas", "oros"), False))
    return tuple(out)


def make_variant(deck: str | Variant = "8-reyes", juego_real: str = "off", target: int | None = None, *,
                 redeal_4567: bool = False, mus_visto: bool = False) -> Variant:
    """Build a Variant from user-facing option values.

    ``deck`` is one of ``VARIANT_NAMES`` (8-reyes, 4-reyes, ten-kings = 8 reyes with jokers)
    or an existing Variant, whose switches are kept (``juego_real`` is then ignored; a
    ``target`` or a switch turned on here is applied).
    """
    if isinstance(deck, Variant):
        from dataclasses import replace

        return replace(deck, target=deck.target if target is None else _target(target),
                       redeal_4567=deck.redeal_4567 or bool(redeal_4567),
                       mus_visto=deck.mus_visto or bool(mus_visto))
    key = str(deck).strip().lower().replace("_", "-").replace(" ", "-")
    key = {"8": "8-reyes", "4": "4-reyes", "8reyes": "8-reyes", "4reyes": "4-reyes",
           "tenkings": "ten-kings", "10-kings": "ten-kings"}.get(key, key)
    if key not in VARIANT_NAMES:
        raise MusError(f"unknown variant {deck!r}; accepted: {', '.join(VARIANT_NAMES)}")
    ten = key == "ten-kings"
    if ten:
        key = "8-reyes"
    jr = str(juego_real).strip().lower().replace("_", "-")
    jr = {"on": "figure", "true": "figure", "false": "off", "no": "off", "sota-de-oros": "sota-oros"}.get(jr, jr)
    return Variant(deck=key, juego_real=jr, target=40 if target is None else _target(target), ten_kings=ten, redeal_4567=bool(redeal_4567),
                   mus_visto=bool(mus_visto))


def _target(target) -> int:
    try:
        return int(target)
    except (TypeError, ValueError):
        raise MusError(f"game target must be 40 or 30, got {target!r}") from None
