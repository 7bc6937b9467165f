"""The deals behind a reading of the table (private; see musstats.analysis.reading): the other
three seats' hands dealt from the unseen cards and, where the mus was played, their throws
by the discard table and the cards they draw."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from musstats._kernels.dealing import hand_index, shuffle, sorted_hand

__all__ = ["deal_history"]


@njit(cache=True, parallel=True)
def deal_history(seeds, chunk_trials, offsets, unseen, seat, mus, policy, card_class, k_cls, idx4):
    """Deals of every seat but ``seat`` from the physical card ids ``unseen``, ``chunk_trials[c]``
    of them from chunk ``c``'s xoshiro state ``seeds[c]``.  With ``mus`` each of those seats then
    throws the cards his keep mask ``policy[q, hand]`` (bit i keeps the i-th card, highest class
    first) does not keep and draws as many from the cards left.

    Returns ``(dealt, final, thrown)``, int64 [n, 4] each: the hand index as dealt, the hand index
    he plays with and the number of cards thrown (0 without the mus); ``seat``'s column is -1."""
    n_chunks = seeds.shape[0]
    n = offsets[n_chunks - 1] + chunk_trials[n_chunks - 1]
    dealt = np.full((n, 4), -1, np.int64)
    final = np.full((n, 4), -1, np.int64)
    thrown = np.full((n, 4), -1, np.int64)
    n_unseen = unseen.shape[0]
    m = 24 if mus else 12  # the cards drawn from the shuffled deck at most: 3 hands and 12 replacements
    for ch in prange(n_chunks):
        st = seeds[ch].copy()
        deck = unseen.copy()
        h = np.empty(4, np.int64)
        srt = np.empty(4, np.int64)
        for t in range(chunk_trials[ch]):
            r = offsets[ch] + t
            shuffle(deck, n_unseen, st, m)
            j = n_unseen
            for q in range(4):
                if q == seat:
                    continue
                for i in range(4):
                    j -= 1
                    h[i] = deck[j]
                sorted_hand(h, card_class, srt)
                hi = hand_index(srt, card_class, k_cls, idx4)
                dealt[r, q] = hi
                final[r, q] = hi
                thrown[r, q] = 0
            if not mus:
                continue
            # the throws, then the replacements from the cards left (in turn from mano)
            k = j
            for q in range(4):
                if q == seat:
                    continue
                base = n_unseen - 4 * (q - (1 if q > seat else 0)) - 4
                for i in range(4):
                    h[i] = deck[base + 3 - i]
                sorted_hand(h, card_class, srt)
                mask = policy[q, dealt[r, q]]
                n_keep = 0
                for i in range(4):
                    if mask & (1 << i):
                        h[n_keep] = srt[i]
                        n_keep += 1
                thrown[r, q] = 4 - n_keep
                for i in range(n_keep, 4):
                    k -= 1
                    h[i] = deck[k]
                sorted_hand(h, card_class, srt)
                final[r, q] = hand_index(srt, card_class, k_cls, idx4)
    return dealt, final, thrown
