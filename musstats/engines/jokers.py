"""Ten kings: the sota de copas and the sota de oros are jokers that stand for a rey or an as.

A ten-kings hand (a multiset of the 8-reyes classes plus the joker class ``J``) has one
*identity option* per way of fixing its jokers: one option without jokers, two with one
(rey, as), three with two (two reyes, rey and as, two ases).  Each option is a plain
8-reyes hand, evaluated with the ordinary tables.

Who picks what (documented rule, RULES.md leaves it open): every holder fixes his jokers
when the cards are shown so as to maximise his team's total stones at the count en paso.
Holders choose in seat order from mano; a later holder answers the earlier choice, and
the earlier holder anticipates that answer.  Ties keep the option listed first (reyes
before ases).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from musstats.tables.hands import hand_tables
from musstats.rules.variant import Variant

MAX_OPTIONS = 3


@dataclass(frozen=True, eq=False)
class JokerTables:
    """Identity options of every hand of a variant (trivial without ten kings)."""

    n_options: np.ndarray  # int64 [H]
    base: np.ndarray  # int64 [H, 3] plain-hand index (in hand_tables(variant.lance_rules)) per option
    labels: tuple[tuple[str, ...], ...]  # per hand, per option: e.g. ("J as R", "J as A")


@lru_cache(maxsize=None)
def joker_tables(variant: Variant = Variant()) -> JokerTables:
    """Identity options per hand index of ``hand_tables(variant)``."""
    t = hand_tables(variant)
    plain = hand_tables(variant.lance_rules)
    n = t.n_hands
    n_opt = np.ones(n, np.int64)
    base = np.zeros((n, MAX_OPTIONS), np.int64)
    labels = []
    if not variant.ten_kings:
        base[:, 0] = np.arange(n)
        return JokerTables(n_opt, base, tuple(("",) for _ in range(n)))
    classes = variant.classes
    j = next(i for i, c in enumerate(classes) if c.label == "J")
    r = next(i for i, c in enumerate(plain.variant.classes) if c.label == "R")
    a = next(i for i, c in enumerate(plain.variant.classes) if c.label == "A")
    for h in range(n):
        counts = t.counts[h]
        nj = int(counts[j])
        rest = [int(x) for x in counts[:j]]  # the plain classes come first, in the same order
        opts = []
        for n_as in range(nj + 1):  # 0 ases first: reyes are tried first
            c = list(rest)
            c[r] += nj - n_as
            c[a] += n_as
            opts.append(plain.index_of_counts(c))
        n_opt[h] = len(opts)
        base[h, : len(opts)] = opts
        names = {0: "as R", 1: "as A"} if nj == 1 else {0: "both as R", 1: "as R and A", 2: "both as A"}
        labels.append(tuple(f"J {names[k]}" for k in range(len(opts))) if nj else ("",))
    return JokerTables(n_opt, base, tuple(labels))


def lance_table(variant: Variant) -> np.ndarray:
    """int64 [H_plain, 8]: the five lance keys, pares value, juego value of every plain hand."""
    p = hand_tables(variant.lance_rules)
    tab = np.zeros((p.n_hands, 8), np.int64)
    tab[:, :5] = p.key.T
    tab[:, 5] = p.value[2]
    tab[:, 6] = p.value[3]
    return tab


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
    from musstats._kernels.rng import chunk_states
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
    acc, att = tk_counts(chunk_states(seed, n_chunks), per, stock, u, seat, int(fixed_option), t.n_classes,
                         t.idx4.astype(np.int64), jt.n_options, jt.base, lance_table(variant), al, use)
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
    return _kernel(np.ascontiguousarray(deals, np.int64), jt.n_options, jt.base, lance_table(variant))
