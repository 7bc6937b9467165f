"""The rules of one question, resolved once: a :class:`Context`.

Every public entry point turns its (variant, hand, seat, dead cards, declarations, seña)
into one Context at the boundary -- the variant with its hand, lance and joker tables, the
table of seats, the user's hand index and the unseen cards, and the masks of the hands
the other seats may hold -- and passes it down to the engines, which never go back to the
variant themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from musstats.base.errors import MusError
from musstats.rules.cards import Card, check_physical, parse_cards, parse_hand
from musstats.rules.conditions import SIGNALS, declared_text, parse_declared, parse_signal
from musstats.rules.seats import FOUR, Seating
from musstats.rules.variant import Variant
from musstats.tables.hands import JUEGO, PARES, HandTables, hand_tables
from musstats.tables.jokers import JokerTables, joker_tables
from musstats.tables.kernel import KernelTables, kernel_tables, lance_table

__all__ = ["Context", "make_context", "signal_mask", "declaration_mask", "redeal_hand"]


@dataclass(frozen=True, eq=False)
class Context:
    """A variant with its tables, a table of seats, and (optionally) the user's hand and the
    conditions on the other hands."""

    variant: Variant
    seating: Seating
    tables: HandTables
    lances: np.ndarray  # int64 [H_plain, 8]: the lance table of musstats._kernels.lances
    jokers: JokerTables
    hand: tuple[Card, ...] = ()
    seat: int = -1  # seat index of the user (0 = mano); -1 without a user
    user: int = -1  # hand index of the user's hand; -1 without a user
    dead: tuple[Card, ...] = ()
    unseen: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # class counts not seen
    allowed: np.ndarray | None = None  # bool [players, H]: hands each seat may hold (None: any)
    conditions: dict = field(default_factory=dict)  # what restricts the other hands, for metadata

    def __post_init__(self) -> None:
        a = self.allowed
        if a is None:
            return
        shape = (self.seating.players, self.tables.n_hands)
        if not isinstance(a, np.ndarray) or a.dtype != np.bool_ or a.shape != shape:
            got = f"{getattr(a, 'dtype', type(a).__name__)} {getattr(a, 'shape', '')}".strip()
            raise MusError(f"allowed must be a boolean array of shape {shape} (seats x hands), got {got}")

    @property
    def kernel(self) -> KernelTables:
        """The exact engine's kernel tables."""
        return kernel_tables(self.variant)

    @property
    def team(self) -> np.ndarray:
        """int64 [players]: team of each seat index."""
        return self.seating.team_array()

    def describe(self) -> dict[str, Any]:
        """JSON-friendly: the rules, the table of seats, the hand, the seat, the dead cards, the
        conditions."""
        out: dict[str, Any] = {"variant": self.variant.name, "rules": self.variant.describe(),
                               **self.seating.describe()}
        if self.seat >= 0:
            out["hand"] = [c.label for c in self.hand]
            out["seat"] = self.seating.name(self.seat)
            out["team"] = self.seating.team_label(self.seat)
        out["dead"] = [c.label for c in self.dead]
        out["conditions"] = dict(self.conditions)
        return out


def signal_mask(signal: str, variant: Variant = Variant()) -> np.ndarray:
    """Hands (bool [H]) a partner can hold when he makes ``signal``."""
    s = parse_signal(signal)
    t = hand_tables(variant)
    ranks = np.array([c.rank for c in variant.classes])
    reyes = t.counts[:, ranks == ranks.max()].sum(axis=1)
    ases = t.counts[:, ranks == ranks.min()].sum(axis=1)
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
    assert s in SIGNALS
    n = {"two": 2, "three": 3, "four": 4}[s.split("-")[0]]
    return (reyes if s.endswith("reyes") else ases) == n


def declaration_mask(lance: str, holds: bool, variant: Variant = Variant()) -> np.ndarray:
    """Hands (bool [H]) consistent with declaring that one holds (or not) pares or juego."""
    held = hand_tables(variant).key[PARES if lance == "pares" else JUEGO] > 0
    return held if holds else ~held


def redeal_hand(variant: Variant) -> int:
    """Index of the hand nobody keeps as a first deal (4-5-6-7 with the redeal switch), or -1."""
    if not variant.redeal_4567:
        return -1
    return hand_tables(variant).index_of(parse_hand("4 5 6 7"))


def make_context(
    variant: Variant,
    hand: str | Iterable | None = None,
    seat: str | int | None = None,
    *,
    dead: str | Iterable | None = None,
    declared: str | Iterable[str] | None = None,
    signal: str | Iterable[str] | None = None,
    seating: Seating = FOUR,
) -> Context:
    """Validate a question and resolve its rules once.

    ``hand`` and ``seat`` (a name or a 1-based number) are the user's; ``dead`` cards seen
    on the table; ``declared`` (``"second:pares,postre:no-juego"``, repeatable) and
    ``signal`` (the partner's seña) restrict the other hands.  Raises MusError (one line)
    for anything impossible: cards the deck cannot hold, a declaration that contradicts the
    user's own hand, conditions no deal satisfies, a first-dealt 4-5-6-7 with the redeal.
    """
    if not isinstance(variant, Variant):
        raise MusError(f"variant must be a musstats Variant, got {type(variant).__name__}")
    t = hand_tables(variant)
    base: dict[str, Any] = dict(variant=variant, seating=seating, tables=t, lances=lance_table(variant),
                                jokers=joker_tables(variant))
    dead_cards = parse_cards(dead) if dead else []
    decl = parse_declared(declared, seating)
    sig = parse_signal(signal)
    if hand is None:
        if dead_cards or decl or sig:
            raise MusError("dead cards, declarations and señas go with a hand and a seat")
        return Context(**base)
    cards = parse_hand(hand)
    check_physical(cards + dead_cards, "hand and dead cards")
    s = seating.parse("mano" if seat is None else seat)
    unseen = t.remaining(cards + dead_cards)
    need = 4 * (seating.players - 1)
    if int(unseen.sum()) < need:
        raise MusError(f"{len(dead_cards)} dead cards leave {int(unseen.sum())} unseen cards, but the "
                       f"{seating.players - 1} other hands need {need}")
    u = t.index_of(cards)
    conds: dict[str, Any] = {}
    allowed = None
    if decl or sig:
        if variant.ten_kings:
            raise MusError("--declared and --signal are not available with ten kings (a joker's pares "
                           "and juego depend on its identity)")
        if seating.players != 4 or seating.individual:
            raise MusError("--declared and --signal are available for four players in partnerships")
        allowed = np.ones((seating.players, t.n_hands), bool)
        for q, lances in decl.items():
            for lance, holds in lances.items():
                mask = declaration_mask(lance, holds, variant)
                if q == s:
                    if not mask[u]:
                        raise MusError(f"the declaration {seating.name(q)}:{'' if holds else 'no-'}{lance} "
                                       f"contradicts your own hand ({t.labels[u]})")
                    continue
                allowed[q] &= mask
        if decl:
            conds["declared"] = declared_text(decl, seating)
        if sig:
            allowed[(s + 2) % 4] &= signal_mask(sig, variant)
            conds["signal"] = sig
    h_redeal = redeal_hand(variant)
    if h_redeal >= 0:
        if u == h_redeal:
            raise MusError("with --redeal-4567 a hand of 4-5-6-7 is shown and replaced before the mus, "
                           "so it is never played; ask about the new hand instead")
        if allowed is None:
            allowed = np.ones((seating.players, t.n_hands), bool)
        allowed[:, h_redeal] = False
    if allowed is not None:
        fits = (t.counts <= unseen[None, :]).all(axis=1)
        for q in range(seating.players):
            if q != s and not (allowed[q] & fits).any():
                raise MusError(f"no deal satisfies the conditions: no hand the unseen cards can make "
                               f"is allowed for {seating.name(q)}")
        allowed.setflags(write=False)
    return Context(**base, hand=tuple(cards), seat=s, user=u, dead=tuple(dead_cards), unseen=unseen,
                   allowed=allowed, conditions=conds)
