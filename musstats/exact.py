"""Exact showdown engine: every deal of the other three hands, weighted by card combinations."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from musstats.cards import Card
from musstats.hands import LANCES, hand_tables
from musstats.tables import kernel_tables
from musstats.variant import Variant

STATS = ("p_team", "p_self", "p_played", "p_contested", "ev_net")


def exact_counts(
    hand: list[Card], variant: Variant = Variant(), dead: list[Card] = (), seats=(0, 1, 2, 3)
) -> tuple[np.ndarray, int]:
    """Integer numerators [seat, lance, stat] and the common denominator of the exact odds.

    Stats are in ``STATS`` order; ``ev_net`` counts stones.  Seats not asked for are zero.
    """
    from musstats._exact_kernel import exact_counts as _kernel

    t = hand_tables(variant)
    kt = kernel_tables(variant)
    rem = t.remaining(list(hand) + list(dead))
    u = t.index_of(list(hand))
    mask = np.zeros(4, np.bool_)
    mask[list(seats)] = True
    counts, total = _kernel(u, rem, mask, kt.key, kt.value, kt.counts, kt.nz_cls, kt.nz_cnt,
                            kt.nnz, kt.binom, kt.binom_big, 64)
    return counts, int(total)


def exact_fractions(hand: list[Card], seat: int, variant: Variant = Variant(), dead=()) -> dict:
    """Exact odds as Fractions: {lance: {stat: Fraction}}."""
    counts, total = exact_counts(hand, variant, dead, seats=(seat,))
    return {
        lance: {st: Fraction(int(counts[seat, li, si]), total) for si, st in enumerate(STATS)}
        for li, lance in enumerate(LANCES)
    }


def exact_table(hand: list[Card], seat: int, variant: Variant = Variant(), dead=()) -> np.ndarray:
    """Exact odds as floats [lance, stat]; p_contested is NaN where it does not apply."""
    counts, total = exact_counts(hand, variant, dead, seats=(seat,))
    out = counts[seat].astype(np.float64) / total
    for li, lance in enumerate(LANCES):
        if lance not in ("pares", "juego"):
            out[li, STATS.index("p_contested")] = np.nan
    return out
