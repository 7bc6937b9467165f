"""Hand index and per-hand tables.

Every distinct hand under a variant (a multiset of 4 card classes) gets a dense
index.  The tables below are what the numba kernels evaluate by lookup.  Keys
are dense ranks where *higher is better* in every lance; for pares, juego and
punto the key 0 means "does not take part" (no pares / no juego / has juego).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, permutations
from math import comb

import numpy as np

from musstats.rules.labels import CHICA, GRANDE, JUEGO, LANCES, PARES, PARES_NAMES, PUNTO
from musstats.rules.cards import Card
from musstats.base.errors import MusError
from musstats.rules.variant import Variant

__all__ = ["LANCES", "GRANDE", "CHICA", "PARES", "JUEGO", "PUNTO", "JUEGO_ORDER", "PARES_NAMES",
           "HandTables", "hand_tables", "hand_cards", "reversed_hands"]

#: Juego totals from worst to best (RULES.md): 33 < 34 < ... < 40 < 32 < 31.
JUEGO_ORDER = (33, 34, 35, 36, 37, 40, 32, 31)


@dataclass(frozen=True, eq=False)
class HandTables:
    """Dense hand index and per-hand lookup tables for one variant."""

    variant: Variant
    n_classes: int
    class_count: np.ndarray  # int64 [K] cards of each class in the deck
    counts: np.ndarray  # int8 [H, K] class counts of each hand
    cls4: np.ndarray  # int8 [H, 4] class ids of each hand, highest rank first
    deal_weight: np.ndarray  # int64 [H] card combinations giving this hand from a full deck
    idx4: np.ndarray  # int32 [K**4] hand index of any ordered 4-tuple of class ids
    key: np.ndarray  # int32 [5, H] per-lance key, higher is better
    value: np.ndarray  # int8 [5, H] stones the hand itself scores (pares 1/2/3, juego 2/3)
    points: np.ndarray  # int8 [H] juego/punto total
    pares_cat: np.ndarray  # int8 [H] 0 none, 1 par, 2 medias, 3 duples
    real31: np.ndarray  # bool [H] "31 real" (only with juego real on)
    labels: tuple[str, ...]  # hand labels, highest card first, e.g. "R R C A"

    @property
    def n_hands(self) -> int:
        """Number of distinct hands (330 with 8 reyes, 715 with 4 reyes)."""
        return int(self.counts.shape[0])

    def class_ids(self, cards: list[Card]) -> list[int]:
        """Class id of each physical card."""
        return [self.variant.class_of(c.face, c.suit) for c in cards]

    def index_of(self, cards: list[Card]) -> int:
        """Dense index of a 4-card hand."""
        ids = self.class_ids(cards)
        if len(ids) != 4:
            raise MusError(f"a hand has exactly 4 cards, got {len(ids)}")
        return int(self.index_of_ids(np.asarray(ids, np.int64)))

    def index_of_counts(self, counts) -> int:
        """Dense index of a hand given its class counts."""
        ids = [k for k, n in enumerate(counts) for _ in range(int(n))]
        return int(self.index_of_ids(np.asarray(ids, np.int64)))

    def index_of_ids(self, ids: np.ndarray) -> np.ndarray:
        """Dense indices of hands given as class ids in any order: int [..., 4] -> int64 [...]."""
        k = self.n_classes
        return self.idx4[((ids[..., 0] * k + ids[..., 1]) * k + ids[..., 2]) * k + ids[..., 3]].astype(np.int64)

    def remaining(self, cards: list[Card]) -> np.ndarray:
        """Class counts left in the deck once ``cards`` are out of it."""
        rem = self.class_count.copy()
        for c in self.class_ids(cards):
            rem[c] -= 1
        if (rem < 0).any():
            k = int(np.argmin(rem))
            cl = self.variant.classes[k]
            hint = ""
            if len(cl.suits) < 4 and 10 in cl.faces:
                hint = "; name the suits of sotas that are special in this variant (S/o, S/c)"
            raise MusError(f"more {cl.label} cards than the {self.variant.name} deck holds "
                           f"({self.class_count[k]}){hint}")
        return rem


def _dense(raw: list, held: list[bool] | None = None) -> np.ndarray:
    """Dense rank of raw comparable scores; with ``held``, 0 = not held, held ranks start at 1."""
    if held is None:
        levels = sorted(set(raw))
        pos = {v: i for i, v in enumerate(levels)}
        return np.array([pos[v] for v in raw], dtype=np.int32)
    levels = sorted({v for v, h in zip(raw, held) if h})
    pos = {v: i + 1 for i, v in enumerate(levels)}
    return np.array([pos[v] if h else 0 for v, h in zip(raw, held)], dtype=np.int32)


def reversed_hands(variant: Variant = Variant()) -> np.ndarray | None:
    """Per hand index, the hand with every card's rank reversed (the highest class for the
    lowest, and so on), where that makes grande and chica one game: each rank one class, the
    deck holding as many cards of a rank as of its reverse, and the chica order of the hands
    exactly the grande order of their reverses (int64 [H]; None where it does not).  With 8
    reyes the eight reyes change places with the eight ases, C with 4, S with 5, 7 with 6."""
    return _reversed_hands(Variant(variant.deck, variant.juego_real, ten_kings=variant.ten_kings))


@lru_cache(maxsize=None)
def _reversed_hands(variant: Variant) -> np.ndarray | None:
    if variant.ten_kings:
        return None
    t = hand_tables(variant)
    k = t.n_classes
    if k != variant.n_ranks or not np.array_equal(t.class_count, t.class_count[::-1]):
        return None
    where = {tuple(c): h for h, c in enumerate(t.counts.tolist())}
    rev = np.array([where[tuple(c[::-1])] for c in t.counts.tolist()], dtype=np.int64)
    g, c = t.key[GRANDE][rev].astype(np.int64), t.key[CHICA].astype(np.int64)
    if not np.array_equal(np.sign(g[:, None] - g[None, :]), np.sign(c[:, None] - c[None, :])):
        return None
    return rev


def hand_tables(variant: Variant = Variant()) -> HandTables:
    """The dense hand index and lookup tables of a variant (built once per deck rules).

    With ten kings the lance keys treat a joker as a rey; engines resolve the jokers
    through :func:`musstats.tables.jokers.joker_tables` instead of using those keys.
    """
    return _hand_tables(Variant(variant.deck, variant.juego_real, ten_kings=variant.ten_kings))


@lru_cache(maxsize=None)
def _hand_tables(variant: Variant) -> HandTables:
    classes = variant.classes
    k = len(classes)
    class_count = np.array([c.count for c in classes], dtype=np.int64)
    hands = [h for h in combinations_with_replacement(range(k), 4)
             if all(h.count(i) <= classes[i].count for i in set(h))]
    hands.sort(key=lambda h: sorted((classes[i].rank, i) for i in h)[::-1], reverse=True)
    n = len(hands)
    counts = np.zeros((n, k), dtype=np.int8)
    cls4 = np.zeros((n, 4), dtype=np.int8)
    weight = np.zeros(n, dtype=np.int64)
    idx4 = np.full(k**4, -1, dtype=np.int32)
    raw: dict[str, list] = {name: [] for name in LANCES}
    held_p, held_j = [], []
    value = np.zeros((5, n), dtype=np.int8)
    points = np.zeros(n, dtype=np.int8)
    pares_cat = np.zeros(n, dtype=np.int8)
    real31 = np.zeros(n, dtype=bool)
    labels = []
    for h_i, h0 in enumerate(hands):
        h = tuple(sorted(h0, key=lambda i: (classes[i].rank, i), reverse=True))
        cls4[h_i] = h
        for i in h:
            counts[h_i, i] += 1
        weight[h_i] = np.prod([comb(classes[i].count, h.count(i)) for i in set(h)])
        labels.append(" ".join(classes[i].label for i in h))
        ranks = sorted((classes[i].rank for i in h), reverse=True)
        raw["grande"].append(tuple(ranks))
        raw["chica"].append(tuple(-r for r in sorted(ranks)))
        # pares by effective rank
        rc: dict[int, int] = {}
        for r in ranks:
            rc[r] = rc.get(r, 0) + 1
        groups = sorted(((m, r) for r, m in rc.items() if m >= 2), reverse=True)
        if not groups:
            cat, pk = 0, (0, 0, 0)
        elif groups[0][0] == 4:
            cat, pk = 3, (3, groups[0][1], groups[0][1])
        elif len(groups) == 2:
            hi, lo = max(groups[0][1], groups[1][1]), min(groups[0][1], groups[1][1])
            cat, pk = 3, (3, hi, lo)
        elif groups[0][0] == 3:
            cat, pk = 2, (2, groups[0][1], 0)
        else:
            cat, pk = 1, (1, groups[0][1], 0)
        pares_cat[h_i] = cat
        value[PARES, h_i] = cat
        raw["pares"].append(pk)
        held_p.append(cat > 0)
        pts = sum(classes[i].points for i in h)
        points[h_i] = pts
        is_real = (
            variant.juego_real != "off"
            and sum(1 for i in h if classes[i].faces == (7,)) == 3
            and any(classes[i].real_partner for i in h)
        )
        real31[h_i] = is_real
        if pts >= 31:
            jo = len(JUEGO_ORDER) + (1 if is_real else 0) if pts == 31 else JUEGO_ORDER.index(pts) + 1
            raw["juego"].append(jo)
            held_j.append(True)
            value[JUEGO, h_i] = 3 if pts == 31 else 2
            raw["punto"].append(0)
        else:
            raw["juego"].append(0)
            held_j.append(False)
            raw["punto"].append(pts)
    key = np.zeros((5, n), dtype=np.int32)
    key[GRANDE] = _dense(raw["grande"])
    key[CHICA] = _dense(raw["chica"])
    key[PARES] = _dense(raw["pares"], held_p)
    key[JUEGO] = _dense(raw["juego"], held_j)
    key[PUNTO] = _dense(raw["punto"], [not j for j in held_j])
    for h_i, row in enumerate(cls4):
        for perm in set(permutations(int(x) for x in row)):
            idx4[((perm[0] * k + perm[1]) * k + perm[2]) * k + perm[3]] = h_i
    for arr in (counts, cls4, weight, idx4, key, value, points, pares_cat, real31):
        arr.setflags(write=False)
    return HandTables(variant, k, class_count, counts, cls4, weight, idx4, key, value, points,
                      pares_cat, real31, tuple(labels))


def hand_cards(h: int, variant: Variant) -> list[Card]:
    """Representative physical cards of hand index ``h``."""
    t = hand_tables(variant)
    out: list[Card] = []
    for c in t.cls4[h]:
        cl = variant.classes[int(c)]
        if len(cl.suits) == 4 or (len(cl.suits) > 1 and variant.class_of(cl.faces[0], None) == int(c)):
            out.append(Card(cl.faces[0]))  # an unsuited card names this class
        else:  # a suit-named class (sota de oros, the ten-kings jokers): one suit per card
            used = sum(1 for x in out if x.face == cl.faces[0] and x.suit in cl.suits)
            out.append(Card(cl.faces[0], cl.suits[used]))
    return out
