"""Ten kings identity options: per hand, the plain hands its jokers can stand for.

A ten-kings hand (a multiset of the 8-reyes classes plus the joker class ``J``) has one
*identity option* per way of fixing its jokers: one option without jokers, two with one
(rey, as), three with two (two reyes, rey and as, two ases), in that order.  Each option
is a plain 8-reyes hand, evaluated with the ordinary tables.  Without ten kings every hand
has one option, itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from musstats.rules.variant import Variant
from musstats.tables.hands import hand_tables

__all__ = ["MAX_OPTIONS", "JokerTables", "joker_tables"]

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
