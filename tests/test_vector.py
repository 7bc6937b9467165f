"""The vector solver's exact conditional probabilities against a brute-force enumeration.

The vector solver (musstats.engines.betting.vector) samples three seats' hands and weighs
every hand h of the fourth by P(h | the other three hands) = ways(h | the 28 remaining
cards) / C(28, 4).  Here that weight is counted the slow way: the 28 remaining physical
cards are listed, each of their C(28, 4) = 20,475 four-card subsets is sorted into its
hand by its multiset of card classes (from the hand tables' labels), and the counts are
divided by 20,475.  Card removal is exact in both; nothing here calls a kernel.
"""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest

from musstats.rules.variant import Variant


def _brute_weights(counts: np.ndarray, class_count: np.ndarray, others: list[int]) -> np.ndarray:
    """P(the fourth seat holds hand h | the three hands ``others``) for every hand h, by listing the
    remaining physical cards and counting their four-card subsets per class multiset."""
    left = class_count.astype(int).copy()
    for h in others:
        left -= counts[h].astype(int)
    assert (left >= 0).all()
    cards = [c for c, n in enumerate(left) for _ in range(n)]  # one entry per physical card
    assert len(cards) == 28
    by_multiset = Counter(tuple(sorted(sub)) for sub in itertools.combinations(cards, 4))
    out = np.zeros(counts.shape[0])
    for h in range(counts.shape[0]):
        key = tuple(sorted(c for c, n in enumerate(counts[h]) for _ in range(int(n))))
        out[h] = by_multiset.get(key, 0) / comb(28, 4)
    return out


@pytest.mark.parametrize("variant", [Variant(), Variant(deck="4-reyes")], ids=["8-reyes", "4-reyes"])
def test_own_weights_are_the_brute_force_conditional_probabilities(variant):
    from musstats._kernels.vcfr import own_weights
    from musstats.engines.betting.vector import deck_tables
    from musstats.tables.hands import hand_tables

    t = hand_tables(variant)
    d = deck_tables(variant)
    assert (d.cls_cnt == t.class_count).all() and d.cls_cnt.sum() == 40
    rng = np.random.default_rng(7)
    L = np.arange(t.n_hands, dtype=np.int64)
    checked = 0
    for _ in range(6):
        # three hands dealt from a shuffled physical deck: the labels' classes via the hand tables
        deck = [c for c, n in enumerate(t.class_count) for _ in range(int(n))]
        rng.shuffle(deck)
        others = []
        for q in range(3):
            cnt = np.bincount(deck[4 * q: 4 * q + 4], minlength=t.n_classes)
            others.append(int(t.index_of_counts(cnt)))
        for seat in range(4):
            hb = np.full(4, -1, np.int64)
            hb[[q for q in range(4) if q != seat]] = others
            got = own_weights(hb, seat, L, d.cls_cnt, d.nzc, d.nzn, d.nnz, d.binom, 1.0 / comb(28, 4))
            want = _brute_weights(t.counts, t.class_count, others)
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
            assert abs(got.sum() - 1.0) < 1e-12  # every hand of the 28 cards, once
            checked += 1
    assert checked == 24
