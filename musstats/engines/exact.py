"""Exact showdown engine: every deal of the other three hands, weighted by card combinations."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from musstats.rules.cards import Card
from musstats.base.errors import MusError
from musstats.tables.hands import LANCES, hand_tables
from musstats.rules.seats import team_array
from musstats.tables.kernel import kernel_tables, lance_table
from musstats.rules.variant import Variant

STATS = ("p_team", "p_self", "p_played", "p_contested", "ev_net")
#: STATS plus p_team_contested: our team holds the best hand and both teams hold the lance
ALL_STATS = STATS + ("p_team_contested",)


def exact_counts(
    hand: list[Card], variant: Variant = Variant(), dead: list[Card] = (), seats=(0, 1, 2, 3),
    allowed: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Integer numerators [seat, lance, stat] and denominators [seat] of the exact odds.

    Stats are in ``ALL_STATS`` order; ``ev_net`` counts stones.  ``allowed[seat, h]`` restricts
    the hands the other seats may hold (declarations, señas).  Seats not asked for are zero.
    """
    from musstats._kernels.exact import exact_counts as _kernel

    if variant.ten_kings:
        raise MusError("exact odds are not available with ten kings (each joker's identity depends on "
                       "all four hands); use the Monte Carlo method")
    t = hand_tables(variant)
    kt = kernel_tables(variant)
    rem = t.remaining(list(hand) + list(dead))
    u = t.index_of(list(hand))
    mask = np.zeros(4, np.bool_)
    mask[list(seats)] = True
    if allowed is None:
        allowed = np.ones((4, t.n_hands), np.uint8)
    allowed = np.ascontiguousarray(allowed, dtype=np.uint8)
    counts, totals = _kernel(u, rem, mask, allowed, kt.key, kt.value, lance_table(variant), team_array(4),
                             kt.counts, kt.nz_cls, kt.nz_cnt, kt.nnz, kt.binom, kt.binom_big, 64)
    for s in seats:
        if totals[s] == 0:
            raise MusError("the conditions exclude every deal; no deal can satisfy them")
    return counts, totals


def exact_fractions(hand: list[Card], seat: int, variant: Variant = Variant(), dead=(),
                    allowed: np.ndarray | None = None) -> dict:
    """Exact odds as Fractions: {lance: {stat: Fraction}} for every stat of ``ALL_STATS``."""
    counts, totals = exact_counts(hand, variant, dead, seats=(seat,), allowed=allowed)
    total = int(totals[seat])
    return {
        lance: {st: Fraction(int(counts[seat, li, si]), total) for si, st in enumerate(ALL_STATS)}
        for li, lance in enumerate(LANCES)
    }


def exact_table(hand: list[Card], seat: int, variant: Variant = Variant(), dead=(),
                allowed: np.ndarray | None = None) -> np.ndarray:
    """Exact odds as floats [lance, stat]; p_contested is NaN where it does not apply."""
    counts, totals = exact_counts(hand, variant, dead, seats=(seat,), allowed=allowed)
    out = counts[seat, :, : len(STATS)].astype(np.float64) / totals[seat]
    for li, lance in enumerate(LANCES):
        if lance not in ("pares", "juego"):
            out[li, STATS.index("p_contested")] = np.nan
    return out
