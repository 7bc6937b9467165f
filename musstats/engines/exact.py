"""Exact showdown engine: every deal of the other three hands, weighted by card combinations."""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

import numpy as np

from musstats.base.errors import MusError
from musstats.engines.run import threads as run_threads
from musstats.rules.labels import LANCES
from musstats.tables.context import Context

__all__ = ["STATS", "ALL_STATS", "exact_counts", "exact_fractions", "exact_table", "exact_two"]

STATS = ("p_team", "p_self", "p_played", "p_contested", "ev_net")
#: STATS plus p_team_contested: our team holds the best hand and both teams hold the lance
ALL_STATS = STATS + ("p_team_contested",)
#: the lances for which p_contested applies (both teams may hold them)
CONTESTED_LANCES = ("pares", "juego")
NO_DEAL = "no deal satisfies the conditions: the unseen cards cannot make the other hands as required"


def exact_counts(ctx: Context, seats: Iterable[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Integer numerators [seat, lance, stat] and denominators [seat] of the exact odds of the
    context's hand at each seat index of ``seats`` (default: the context's seat).

    Stats are in ``ALL_STATS`` order; ``ev_net`` counts stones.  The context's masks
    restrict the hands the other seats may hold.  Seats not asked for are zero.
    """
    from musstats._kernels.exact import exact_counts as _kernel

    if ctx.variant.ten_kings:
        raise MusError("exact odds are not available with ten kings (each joker's identity depends on "
                       "all four hands); use the Monte Carlo method")
    if ctx.seating.players != 4 or ctx.seating.individual:
        raise MusError("the exact method covers four players in partnerships; use --method mc")
    seats = (ctx.seat,) if seats is None else tuple(seats)
    kt = ctx.kernel
    mask = np.zeros(4, np.bool_)
    mask[list(seats)] = True
    allowed = np.ones((4, ctx.tables.n_hands), np.uint8) if ctx.allowed is None else ctx.allowed
    with run_threads(None, dynamic=True):  # dynamic scheduling of the 64 chunks: a busy core does not hold the rest up
        counts, totals = _kernel(ctx.user, ctx.unseen, mask, np.ascontiguousarray(allowed, dtype=np.uint8),
                                 kt.key, kt.value, ctx.lances, ctx.team, kt.counts, kt.nz_cls, kt.nz_cnt, kt.nnz,
                                 kt.binom, kt.binom_big, 64)
    for s in seats:
        if totals[s] == 0:
            raise MusError(NO_DEAL)
    return counts, totals


def exact_fractions(ctx: Context) -> dict[str, dict[str, Fraction]]:
    """Exact odds as Fractions: {lance: {stat: Fraction}} for every stat of ``ALL_STATS``."""
    counts, totals = exact_counts(ctx)
    total = int(totals[ctx.seat])
    return {
        lance: {st: Fraction(int(counts[ctx.seat, li, si]), total) for si, st in enumerate(ALL_STATS)}
        for li, lance in enumerate(LANCES)
    }


def exact_table(ctx: Context) -> np.ndarray:
    """Exact odds as floats [lance, stat]; p_contested is NaN where it does not apply."""
    counts, totals = exact_counts(ctx)
    out = counts[ctx.seat, :, : len(STATS)].astype(np.float64) / totals[ctx.seat]
    for li, lance in enumerate(LANCES):
        if lance not in CONTESTED_LANCES:
            out[li, STATS.index("p_contested")] = np.nan
    return out


def exact_two(ctx: Context) -> np.ndarray:
    """Exact odds as floats [lance, stat] for two players, each for himself: every deal of
    the other hand (``p_team`` equals ``p_self``; ``ev_net`` is our stones minus his)."""
    from musstats._kernels.exact import exact_two as _kernel

    if ctx.seating.players != 2:
        raise MusError("exact_two is the exact engine of two players")
    kt = ctx.kernel
    other = 1 - ctx.seat
    allowed = np.ones(ctx.tables.n_hands, np.uint8) if ctx.allowed is None else ctx.allowed[other].astype(np.uint8)
    counts, total = _kernel(ctx.user, ctx.seat, ctx.unseen, allowed, ctx.lances, kt.nz_cls, kt.nz_cnt, kt.nnz,
                            kt.binom)
    if total == 0:
        raise MusError(NO_DEAL)
    out = counts[:, : len(STATS)].astype(np.float64) / total
    for li, lance in enumerate(LANCES):
        if lance not in CONTESTED_LANCES:
            out[li, STATS.index("p_contested")] = np.nan
    return out
