"""Ten kings engines: Monte Carlo odds with jokers, and deals with every joker fixed.

The identity options of each hand are :func:`musstats.tables.jokers.joker_tables`; how a
holder fixes his jokers is the kernel :func:`musstats._kernels.jokers.fix_jokers` (rule in
docs/rules.md, "Ten kings": each holder maximises his team's net stones at the count en
paso, in seat order, the earlier holder anticipating the later one's answer; ties keep
reyes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from musstats.rules.seats import team_array
from musstats.tables.hands import hand_tables
from musstats.tables.jokers import joker_tables
from musstats.tables.kernel import lance_table
from musstats.rules.variant import Variant

@dataclass
class JokerOdds:
    """Monte Carlo odds with jokers: mean and SE [5 lances, 5 stats] (musstats.engines.exact.STATS order)."""

    mean: np.ndarray
    se: np.ndarray
    trials: int
    seed: int
    partial: bool = False


def simulate_ten_kings(cards, seat: int, variant: Variant, *, dead=(), trials: int = 1_000_000,
                       seed: int | None = None, allowed: np.ndarray | None = None,
                       fixed_option: int = -1, n_chunks: int = 64,
                       counts_out: np.ndarray | None = None) -> JokerOdds:
    """Per-lance odds with ten kings by Monte Carlo; ``fixed_option`` fixes the user's jokers."""
    import secrets

    from musstats._kernels.jokers import tk_counts
    from musstats.engines.random import seed_states
    from musstats.base.errors import MusError

    t = hand_tables(variant)
    jt = joker_tables(variant)
    rem = t.remaining(list(cards) + list(dead))
    stock = np.repeat(np.arange(t.n_classes), rem).astype(np.int64)
    if stock.shape[0] < 12:
        raise MusError("too many dead cards: fewer than 12 cards left for the other hands")
    u = t.index_of(list(cards))
    seed = secrets.randbits(63) if seed is None else int(seed)
    n_chunks = max(1, min(n_chunks, trials))
    per = np.full(n_chunks, trials // n_chunks, np.int64)
    per[: trials % n_chunks] += 1
    use = allowed is not None
    al = np.ascontiguousarray(allowed if use else np.ones((4, t.n_hands), bool), np.bool_)
    acc, att = tk_counts(seed_states(seed, n_chunks), per, stock, u, seat, int(fixed_option), t.n_classes,
                         t.idx4.astype(np.int64), jt.n_options, jt.base, team_array(4), lance_table(variant), al,
                         use)
    done = int(per.sum())
    if counts_out is not None:
        counts_out[...] = acc.sum(axis=0)
    if use and acc.sum(axis=0)[0, 2] == 0:
        raise MusError("the conditions exclude every deal; no deal can satisfy them")
    a = acc.sum(axis=0).astype(np.float64)
    n = float(done)
    mean = np.full((5, 5), np.nan)
    se = np.full((5, 5), np.nan)
    for li in range(5):
        for si, col in enumerate((0, 1, 2, 3)):
            if si == 3 and li not in (2, 3):
                continue
            p = a[li, col] / n
            mean[li, si] = p
            se[li, si] = np.sqrt(p * (1 - p) / n)
        ev = a[li, 4] / n
        var = max(a[li, 5] / n - ev * ev, 0.0) * n / max(n - 1, 1)
        mean[li, 4] = ev
        se[li, 4] = np.sqrt(var / n)
    return JokerOdds(mean, se, done, seed)


def showdown_counts(cards, variant: Variant, seats=(0, 1, 2, 3), allowed: np.ndarray | None = None, *,
                    trials: int = 400_000, seed: int = 2026) -> tuple[np.ndarray, np.ndarray]:
    """Numerators [seat, lance, stat] (``musstats.engines.exact.ALL_STATS`` order) and denominators [seat].

    Exact integers for the plain game; Monte Carlo counts (``trials`` deals per seat, fixed
    seed) with ten kings.  Probabilities are numerators / denominators either way.
    """
    from musstats.engines.exact import exact_counts

    if not variant.ten_kings:
        return exact_counts(cards, variant, seats=seats, allowed=allowed)
    out = np.zeros((4, 5, 6), np.float64)
    totals = np.zeros(4, np.float64)
    acc = np.zeros((5, 7), np.int64)
    for s in seats:
        simulate_ten_kings(cards, s, variant, trials=trials, seed=seed, allowed=allowed, counts_out=acc)
        # kernel columns: team, self, played, contested, ev sum, ev sq, team and contested
        out[s] = acc[:, [0, 1, 2, 3, 4, 6]]
        totals[s] = trials
    return out, totals


def resolve_deals(deals: np.ndarray, variant: Variant) -> np.ndarray:
    """Plain hand indices (``hand_tables(variant.lance_rules)``) of ten-kings deals [N, 4]."""
    from musstats._kernels.jokers import resolve_deals as _kernel

    jt = joker_tables(variant)
    return _kernel(np.ascontiguousarray(deals, np.int64), jt.n_options, jt.base, team_array(4),
                   lance_table(variant))
